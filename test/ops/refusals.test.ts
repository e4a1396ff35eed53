/**
 * Issue 42 finding 7: refused requests cannot be turned into log volume. A flood of refusals with
 * huge URLs and Host values writes a few short lines (the first of each source and reason, then
 * one count per interval), and the counts add up to what was refused.
 */
import { request as httpRequest, Agent } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { readiness } from '../../src/ops/readiness.js';
import { startOpsServer, type OpsServer } from '../../src/ops/server.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';

const TOKEN = 'refusals-test-token-0123456789abcdef';
let server: OpsServer | undefined;
let state: StateStore | undefined;
afterEach(async () => {
  await server?.close();
  await state?.close();
  server = undefined;
  state = undefined;
});

function get(url: string, path: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the log of refused requests', () => {
  it('stays bounded for 1000 refused requests with huge URLs: short lines, one count per source and reason', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter((l) => l.length > 0));
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    state = await openState(':memory:');
    const dashboardState = state;
    server = await startOpsServer({
      port: 0,
      token: TOKEN,
      metrics: createMetrics(),
      readiness: () => readiness({}),
      logger,
      register: (app) => registerDashboard(app, { state: dashboardState, events: new SyncEvents(), pipelines: [], runNow: async () => undefined, retryDeadLetters: async () => undefined, dropDeadLetters: async () => undefined, token: TOKEN, logger }),
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const huge = `/api/overview?q=${'A'.repeat(8000)}`;
    const { port } = new URL(server.url);
    const statuses: number[] = [];
    for (let batch = 0; batch < 100; batch++) {
      statuses.push(
        ...(await Promise.all([
          ...Array.from({ length: 5 }, () => get(server!.url, huge, { host: `${'evil'.repeat(500)}.example:${port}` }, agent)),
          ...Array.from({ length: 5 }, () => get(server!.url, huge, { host: `127.0.0.1:${port}`, authorization: 'Bearer not-the-token' }, agent)),
        ])),
      );
    }
    agent.destroy();
    expect(statuses.filter((s) => s === 403)).toHaveLength(500);
    expect(statuses.filter((s) => s === 401 || s === 429)).toHaveLength(500);
    await server.close();
    server = undefined;
    await new Promise((r) => setImmediate(r));

    const refusals = lines.map((l) => JSON.parse(l) as { reason?: string; refused?: number; url?: string; msg: string }).filter((l) => l.reason !== undefined);
    const bytes = lines.reduce((n, l) => n + l.length + 1, 0);
    expect(bytes).toBeLessThan(16_000);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(2000);
    // Each line is a first refusal (no `refused`) or the count of those held back after it: together, every refusal.
    expect(refusals.reduce((n, l) => n + (l.refused ?? 1), 0)).toBe(1000);
    const foreign = refusals.find((l) => l.reason === 'foreign-host' && l.refused !== undefined);
    expect(foreign?.refused).toBe(499);
    expect(foreign?.msg).toMatch(/^499 more request\(s\) refused from 127\.0\.0\.1 \(foreign-host\)/);
    expect(refusals.find((l) => l.reason === 'foreign-host' && l.refused === undefined)?.url).toMatch(/\(8016 characters\)$/);
  });
});
