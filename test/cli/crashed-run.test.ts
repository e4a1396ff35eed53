/**
 * A run whose process is killed mid-run never stays silent: `status` shows it crashed with how far
 * it got, and the next one-off `sync` marks it so and sends the run-failed alert for it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, startCli, tempDir, writeConfig } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { setFaults } from '../pipeline/support.js';
import { until } from '../support/wait.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
let receiver: Server;
let hookUrl: string;
const hooks: { subject?: string; text?: string; kind?: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hooks.push(JSON.parse(body) as { subject?: string; text?: string });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('a one-off sync killed in the middle of its run', { timeout: 120_000 }, () => {
  it('shows as crashed in status with how far it got, and the next sync alerts about it', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 200);
    const config = writeConfig(dir, { batchSize: 10 });
    writeFileSync(config, `${readFileSync(config, 'utf8')}alerts:\n  webhook: { url: ${hookUrl}, retries: 0 }\n`);
    await setFaults(sandbox, { latency_ms: 150 });

    const sync = startCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
    const stateFile = join(dir, 'state', 'shopsync.db');
    // Killed once some batches settled: the run row holds its counts so far.
    await until(() => {
      try {
        const db = new Database(stateFile, { readonly: true });
        try {
          const row = db.prepare('SELECT created FROM runs ORDER BY id DESC LIMIT 1').get() as { created: number } | undefined;
          return (row?.created ?? 0) >= 20;
        } finally {
          db.close();
        }
      } catch {
        return false;
      }
    }, 60_000);
    sync.child.kill('SIGKILL');
    await sync.exited;
    await setFaults(sandbox, { latency_ms: 0 });

    const status = await runCli(['status', '--json', '--config', config], { env: shopEnv(sandbox) });
    const last = (JSON.parse(status.stdout) as { pipelines: { lastRun: { id: number; status: string; counts: { created: number }; error: { code: string; message: string } } }[] }).pipelines[0]?.lastRun;
    expect(last).toMatchObject({ status: 'crashed', error: { code: 'RUN_CRASHED' } });
    expect(last?.counts.created).toBeGreaterThanOrEqual(20);
    expect(last?.error.message).toMatch(/ended without finishing it after read \d+, created \d+/);

    const again = await runCli(['sync', 'products', '--config', config, '--json'], { env: shopEnv(sandbox) });
    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'succeeded' });
    const texts = hooks.map((h) => JSON.stringify(h));
    expect(texts.find((t) => t.includes('stopped without finishing'))).toMatch(new RegExp(`products \\(run ${last?.id ?? 0}, sync, started .*\\) stopped without finishing: .* after read \\d+, created \\d+`));
    // The run after it succeeded: the incident is resolved in the same command.
    expect(texts.some((t) => t.includes('products runs again'))).toBe(true);
  });
});
