/** Start and steer a sandbox shop running in a child process (see shop-child.ts). */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TrafficView } from '../../../src/sandbox/index.js';

/** A running shop process. */
export interface ShopProcess {
  readonly url: string;
  readonly token: string;
  /** Set the sandbox's injected faults (latency_ms, rate_limit_per_second…). */
  faults(settings: Readonly<Record<string, number>>): Promise<void>;
  /** What the shop counted: API requests, 429s, busiest second (GET /sandbox/traffic). */
  traffic(): Promise<TrafficView>;
  /** The shop process's id (for its CPU time). */
  readonly pid: number;
  /** The shop process's peak resident memory is not ours: stop it. */
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Start a fresh empty sandbox in its own process (`dbPath` ':memory:' unless given). */
export async function startShopProcess(dbPath = ':memory:'): Promise<ShopProcess> {
  const child = spawn(process.execPath, [join(here, 'shop-child.js'), dbPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`the sandbox process exited with ${code} before it was ready`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /READY (\S+) (\S+)/.exec(out);
      if (m) resolve([m[1]!, m[2]!]);
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const control = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path} failed: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    url,
    token,
    pid: child.pid!,
    async traffic() {
      return (await (await control('GET', '/sandbox/traffic')).json()) as TrafficView;
    },
    async faults(settings) {
      await control('PUT', '/sandbox/faults', settings);
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
