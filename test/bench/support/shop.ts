/** Start and steer a sandbox shop running in a child process (see shop-child.ts). */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running shop process. */
export interface ShopProcess {
  readonly url: string;
  readonly token: string;
  /** Set the sandbox's injected faults (latency_ms, rate_limit_per_second…). */
  faults(settings: Readonly<Record<string, number>>): Promise<void>;
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
  return {
    url,
    token,
    async faults(settings) {
      const res = await fetch(`${url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
      if (!res.ok) throw new Error(`setting sandbox faults failed: ${res.status} ${await res.text()}`);
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
