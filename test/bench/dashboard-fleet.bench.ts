/**
 * The dashboard of an agency's fleet: 50 shops × 4 pipelines = 200 pipelines, each run every 10
 * minutes for 30 days (864,000 runs), 6,000 open dead letters in 40 pipelines, a cursor per
 * pipeline, 12 pipelines whose last run failed and one shop down (the failing count is printed). Measured in a SQLite file and in a PostgreSQL schema (skipped, and
 * said so, without the test server). Each page is fetched over HTTP from a listening server.
 *
 * The runs are written by SQL straight into the state's tables (one statement per few thousand
 * rows): written one by one through `runs.start`/`finish` they would take most of an hour on
 * PostgreSQL, and the overview reads runs, never how they were written. No record events are
 * written: the overview and the shops page read none (test/bench/dashboard.bench.ts measures the
 * pages that do).
 */
import { availableParallelism, loadavg } from 'node:os';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { registerDashboard, type DashboardPipeline } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { benchState, postgresUnavailable, type BenchBackend } from './support/states.js';

const SHOPS = Array.from({ length: 50 }, (_, i) => `shop-${String(i + 1).padStart(2, '0')}`);
const KINDS = ['products', 'stock', 'prices', 'orders'] as const;
const DAYS = 30;
const EVERY_MINUTES = 10;
const LETTERS = 6000;
/** Pipelines whose last run failed (index into the pipeline list), and the shop that is down (all its runs of the last 3 hours failed). */
const FAILING = new Set([3, 17, 42, 58, 77, 91, 104, 120, 133, 150, 171, 188]);
const DOWN_SHOP = 'shop-07';

interface Seeded {
  readonly pipelines: DashboardPipeline[];
  readonly runs: number;
}

const pipelineList = (): { name: string; shop: string; kind: (typeof KINDS)[number] }[] => SHOPS.flatMap((shop) => KINDS.map((kind) => ({ name: `${kind}-${shop}`, shop, kind })));

/** Status and counts of run `r` (0 = oldest) of pipeline `p`. */
function runRow(p: number, r: number, perPipeline: number, shop: string, now: number): { status: string; failed: number; error: string | null; startedAt: number } {
  const startedAt = now - (perPipeline - r) * EVERY_MINUTES * 60_000 + (p % 60) * 1000;
  const recent = perPipeline - r <= 18;
  const failedRun = (FAILING.has(p) && r === perPipeline - 1) || (shop === DOWN_SHOP && recent) || r % 997 === p % 997;
  if (failedRun) return { status: 'failed', failed: 0, error: JSON.stringify({ code: 'NETWORK_ERROR', message: 'the shop is unreachable (connect ECONNREFUSED)' }), startedAt };
  const partial = r % 113 === p % 113;
  return { status: partial ? 'partial' : 'succeeded', failed: partial ? 2 : 0, error: null, startedAt };
}

const COLUMNS = '(pipeline, shop, mode, lane, status, started_at, finished_at, pid, host, read, created, updated, unchanged, failed, dead_lettered, requests, error)';

/** Rows of every run, in batches. */
function* runBatches(now: number, batch: number): Generator<unknown[][]> {
  const list = pipelineList();
  const perPipeline = (DAYS * 24 * 60) / EVERY_MINUTES;
  let rows: unknown[][] = [];
  // Oldest first across all pipelines, as a deployment writes them (ids grow with time).
  for (let r = 0; r < perPipeline; r++) {
    for (let p = 0; p < list.length; p++) {
      const { name, shop } = list[p]!;
      const row = runRow(p, r, perPipeline, shop, now);
      rows.push([name, shop, 'sync', name, row.status, row.startedAt, row.startedAt + 4000, 4242, 'bench', 120, 3, 9, 108, row.failed, row.failed, 14, row.error]);
      if (rows.length >= batch) {
        yield rows;
        rows = [];
      }
    }
  }
  if (rows.length) yield rows;
}

async function seed(backend: BenchBackend, location: Parameters<typeof openState>[0], state: StateStore): Promise<Seeded> {
  const now = Date.now();
  const list = pipelineList();
  let runs = 0;
  if (backend === 'sqlite') {
    const path = (location as { path: string }).path;
    const db = new Database(path);
    const insert = db.prepare(`INSERT INTO runs ${COLUMNS} VALUES (${Array(17).fill('?').join(', ')})`);
    const many = db.transaction((rows: unknown[][]) => {
      for (const row of rows) insert.run(...row);
    });
    for (const rows of runBatches(now, 20_000)) {
      many(rows);
      runs += rows.length;
    }
    db.close();
  } else {
    const loc = location as { url: string; schema: string };
    const client = new pg.Client({ connectionString: loc.url });
    await client.connect();
    try {
      await client.query(`SET search_path TO ${pg.escapeIdentifier(loc.schema)}`);
      for (const rows of runBatches(now, 4000)) {
        // One array per column, unnested: one statement per batch.
        const cols = rows[0]!.map((_, c) => rows.map((row) => row[c]));
        await client.query(
          `INSERT INTO runs ${COLUMNS} SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[], $17::text[])`,
          cols,
        );
        runs += rows.length;
      }
      await client.query('ANALYZE runs');
    } finally {
      await client.end();
    }
  }
  // Dead letters and cursors go through the store, as the pipelines write them.
  for (const shop of SHOPS) {
    const scoped = state.forShop(shop);
    const mine = list.filter((p) => p.shop === shop);
    // The letters wait in every fifth pipeline (40 of them, 150 each).
    const lettered = mine.filter((_, i) => (SHOPS.indexOf(shop) * 4 + i) % 5 === 0);
    await scoped.write((tx) => {
      for (let i = 0; lettered.length > 0 && i < (LETTERS / 40) * lettered.length; i++) {
        const p = lettered[i % lettered.length]!;
        tx.deadLetters.add({ pipeline: p.name, resource: p.kind, erpKey: `SKU-${i}`, record: { sku: `SKU-${i}` }, code: 'INVALID_PAYLOAD', reason: 'products_price must be a decimal' });
      }
      for (const p of mine) tx.cursors.set(p.name, 'incremental', { value: new Date(now - 60_000).toISOString(), key: 'SKU-9' });
    });
  }
  const pipelines: DashboardPipeline[] = list.map((p) => ({ name: p.name, shop: p.shop, resource: p.kind === 'stock' || p.kind === 'prices' ? 'products' : p.kind, direction: p.kind === 'orders' ? 'pull' : 'push', schedule: '*/10 * * * *', nextRun: () => new Date(now + 60_000) }));
  return { pipelines, runs };
}

/** Median and p95 of 12 fetches (the first two are warm-up). */
async function measure(url: string): Promise<{ median: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 200)}`);
    times.push(performance.now() - t0);
    bytes = body.length;
  }
  const warm = times.slice(2).sort((a, b) => a - b);
  return { median: warm[Math.floor(warm.length / 2)]!, p95: warm[Math.min(warm.length - 1, Math.ceil(warm.length * 0.95) - 1)]!, bytes };
}

async function measureBackend(backend: BenchBackend): Promise<string[]> {
  if (backend === 'postgres') {
    const why = await postgresUnavailable();
    if (why) return [`postgres: not measured: ${why}`];
  }
  const where = await benchState(backend);
  const lines: string[] = [];
  let state = await openState(where.location);
  const app = Fastify();
  try {
    const t0 = performance.now();
    if (backend === 'sqlite') await state.close();
    if (backend === 'sqlite') state = await openState(where.location);
    const seeded = await seed(backend, where.location, state);
    lines.push(`${backend}: seeded ${seeded.pipelines.length} pipelines in ${SHOPS.length} shops, ${seeded.runs.toLocaleString('en-US')} runs (${DAYS} days, one per ${EVERY_MINUTES} min each), ${LETTERS.toLocaleString('en-US')} dead letters in ${Math.round((performance.now() - t0) / 1000)} s`);
    await registerDashboard(app, {
      state,
      events: new SyncEvents(),
      pipelines: seeded.pipelines,
      runNow: async () => undefined,
      retryDeadLetters: async () => undefined,
      dropDeadLetters: async () => undefined,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const pages: [string, string][] = [
      ['overview, all 200 pipelines', '/'],
      ['overview ?status=failing', '/?status=failing'],
      ['overview ?shop=shop-07', `/?shop=${DOWN_SHOP}`],
      ['shops page (50 rows)', '/shop-health'],
      ['/api/overview', '/api/overview'],
      ['/api/overview?status=failing', '/api/overview?status=failing'],
    ];
    const overview = (await (await fetch(`${base}/api/overview`)).json()) as { pipelines: { failing: boolean }[] };
    lines.push(`${backend}: ${overview.pipelines.filter((p) => p.failing).length} of ${overview.pipelines.length} pipelines failing; machine load ${loadavg()[0]!.toFixed(1)} (1 min) on ${availableParallelism()} CPUs`);
    for (const [label, path] of pages) {
      if ((await fetch(base + path)).status === 404) {
        lines.push(`${backend}: ${label.padEnd(30)} not served by this build (404)`);
        continue;
      }
      const m = await measure(base + path);
      lines.push(`${backend}: ${label.padEnd(30)} median ${m.median.toFixed(0).padStart(5)} ms   p95 ${m.p95.toFixed(0).padStart(5)} ms   ${(m.bytes / 1024).toFixed(0)} KiB`);
    }
  } finally {
    await app.close();
    await state.close();
    await where.dispose();
  }
  return lines;
}

/** Overview, filtered overviews, the shops page and the JSON overview at fleet size, in both state backends. */
export async function bench(): Promise<string[]> {
  return [...(await measureBackend('sqlite')), ...(await measureBackend('postgres'))];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
