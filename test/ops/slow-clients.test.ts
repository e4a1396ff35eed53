/**
 * Issue 42 finding 6: clients that open `POST /hooks/*` and send one body byte every couple of
 * seconds must not hold the daemon's connections (and file descriptors) forever. The server runs
 * in a process of its own under `ulimit -n 256`, so 300 such clients would exhaust it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, until } from '../support/wait.js';

const SLOW_CLIENTS = 300;
let child: ChildProcess | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(() => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  child?.kill('SIGKILL');
  child = undefined;
});

/** Start the server under a low descriptor limit; resolve with its URL and what it wrote to stderr. */
async function startServer(): Promise<{ url: string; stderr: () => string }> {
  const proc = spawn('bash', ['-c', 'ulimit -n 256; exec node --import tsx test/ops/support/slow-server.ts'], { cwd: process.cwd(), env: { ...process.env, REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '2000' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  await until(() => /listening (\S+)/.test(out) || proc.exitCode !== null, 30_000, 50);
  const url = /listening (\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`server did not start: ${err}`);
  return { url, stderr: () => err };
}

async function healthz(url: string): Promise<number | string> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) })).status;
  } catch (err) {
    return String((err as Error).cause ?? err);
  }
}

describe('slow unauthenticated clients', () => {
  it('are cut off, and /healthz still answers while 300 of them trickle a body into POST /hooks/* under ulimit -n 256', async () => {
    const server = await startServer();
    const { port } = new URL(server.url);
    let closed = 0;
    for (let i = 0; i < SLOW_CLIENTS; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => (closed += 1));
      socket.write(`POST /hooks/products HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      // One byte every 2 s: each resets an idle timer, none ever completes the body.
      timers.push(setInterval(() => socket.destroyed || socket.write(' '), 2000));
    }
    await sleep(1000);
    expect(await healthz(server.url)).toBe(200);
    // Cut off within the request timeout (3 s here, 30 s by default) and a check interval.
    await until(() => closed === SLOW_CLIENTS, 10_000, 100).catch(() => undefined);
    expect(closed).toBe(SLOW_CLIENTS);
    expect(await healthz(server.url)).toBe(200);
    expect(server.stderr()).not.toMatch(/EMFILE/);
  }, 40_000);
});
