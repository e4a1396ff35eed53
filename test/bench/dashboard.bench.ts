/**
 * Dashboard page latency on a busy state file: 400 runs, 200,000 record events over the last
 * 24 hours, 2,000 dead letters, 4 pipelines. Each page is fetched over HTTP from a listening server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { registerDashboard } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { emptyCounts, openState, type EventOutcome } from '../../src/state/index.js';

const PIPELINES = ['products-push', 'stock-push', 'prices-push', 'customers-push'];
const RUNS = 400;
const EVENTS_PER_RUN = 500;
const LETTERS = 2000;

/** Measure median and p95 latency of each dashboard page. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-dashboard-bench-'));
  const state = await openState(join(dir, 'state.sqlite'));
  const lines: string[] = [];
  const seedStart = performance.now();
  const now = Date.now();
  const outcomes: EventOutcome[] = ['created', 'updated', 'unchanged', 'unchanged', 'unchanged', 'dead-lettered'];
  for (let r = 0; r < RUNS; r++) {
    const pipeline = PIPELINES[r % PIPELINES.length]!;
    const runId = await state.runs.start({ pipeline, mode: 'sync', lane: pipeline });
    const base = now - 24 * 3_600_000 + (r / RUNS) * 24 * 3_600_000;
    await state.write((tx) => {
      for (let i = 0; i < EVENTS_PER_RUN; i++) {
        const outcome = outcomes[i % outcomes.length]!;
        tx.events.add({
          runId,
          pipeline,
          resource: 'products',
          erpKey: `SKU-${i}`,
          shopId: i + 1,
          outcome,
          ...(outcome === 'dead-lettered' ? { error: { code: 'INVALID_PAYLOAD', message: 'products_price must be a decimal' } } : { payload: { products_model: `SKU-${i}`, products_price: `${(i % 100) + r / 100}`, languages: { de: { products_name: `Artikel ${i}` } } } }),
          atMs: base + i * 100,
        });
      }
    });
    await state.runs.finish(runId, 'partial', { ...emptyCounts(), read: EVENTS_PER_RUN, created: 84, updated: 83, unchanged: 250, failed: 83, deadLettered: 83 });
  }
  await state.write((tx) => {
    for (let i = 0; i < LETTERS; i++) tx.deadLetters.add({ pipeline: PIPELINES[i % PIPELINES.length]!, resource: 'products', erpKey: `SKU-${i}`, record: { sku: `SKU-${i}`, name: `Artikel ${i}` }, code: 'INVALID_PAYLOAD', reason: 'products_price must be a decimal' });
  });
  lines.push(`seeded ${RUNS} runs, ${RUNS * EVENTS_PER_RUN} events, ${LETTERS} dead letters in ${Math.round(performance.now() - seedStart)} ms`);

  const app = Fastify();
  await registerDashboard(app, {
    state,
    events: new SyncEvents(),
    pipelines: PIPELINES.map((name) => ({ name, resource: 'products', direction: 'push', schedule: '*/5 * * * *', nextRun: () => new Date(now + 60_000) })),
    runNow: async () => undefined,
    retryDeadLetters: async () => undefined,
    dropDeadLetters: async () => undefined,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const lastRun = (await state.runs.list({ limit: 1 }))[0]!.id;
  const pages: [string, string][] = [
    ['overview', '/'],
    ['runs (50)', '/runs'],
    ['runs filtered', '/runs?pipeline=stock-push&outcome=with-failures'],
    ['run detail (200 of 500 events)', `/runs/${lastRun}`],
    ['dead letters (500 shown)', '/dead-letters'],
    ['record lookup (400 runs of history)', '/records?q=SKU-7'],
    ['charts (4 x 24 h)', '/charts'],
  ];
  try {
    for (const [label, path] of pages) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 12; i++) {
        const t0 = performance.now();
        const res = await fetch(base + path);
        const body = await res.text();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        times.push(performance.now() - t0);
        bytes = body.length;
      }
      times.sort((a, b) => a - b);
      const warm = times.slice(2);
      const median = warm[Math.floor(warm.length / 2)]!;
      const p95 = warm[Math.min(warm.length - 1, Math.ceil(warm.length * 0.95) - 1)]!;
      lines.push(`${label.padEnd(38)} median ${median.toFixed(1).padStart(7)} ms   p95 ${p95.toFixed(1).padStart(7)} ms   ${(bytes / 1024).toFixed(0)} KiB`);
    }
  } finally {
    await app.close();
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
