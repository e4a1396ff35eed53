/**
 * The cost of the lookback (issue 28): a no-change incremental sync of the benchmark catalog
 * (100,000 products, group prices from a child table) whose `updated_at` values lie 0.3 s apart,
 * so that the 5 minutes before the last cursor value hold exactly 1,000 rows. A first sync
 * delivers everything (timed apart); then no-change sync runs from the stored cursor, (a) with the
 * default lookback (5 minutes: the window's 1,000 rows are read again, each settled by its source
 * hash) and (b) with `lookback: 0` (nothing after the cursor: nothing read), one untimed warm-up
 * each, then alternating a-b, b-a, … so neither gets the warmer process. Printed: rows read again
 * (the engine's count, and the ERP's count of rows in the window), the shop's requests during the
 * no-change runs (counted by the sandbox), the median time of each, their ratio and the extra
 * milliseconds (difference of the medians, and the median of the differences within each a/b pair). Nothing is asserted but that every run succeeded.
 * The ERP is a SQLite file (its watermark is `single-writer`: no cap) and, when the test server
 * answers (127.0.0.1:5432, database `test`, user `postgres`; `SHOPSYNC_BENCH_POSTGRES_URL` points
 * elsewhere), the same catalog in a PostgreSQL schema of its own (dropped afterwards), where every
 * run also asks pg_stat_activity for open transactions. shopsync's state is a SQLite file in both.
 * BENCH_QUICK=1: 10,000 products (the window still holds 1,000 rows) and 3 runs of each (9 otherwise).
 * `BENCH_LOOKBACK_RUNS=15` runs of each; `BENCH_LOOKBACK_ERP=sqlite` (or `postgres`) one ERP only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { shopClientOptions, shopConfigSchema } from '../../src/config/shop.js';
import { createSource } from '../../src/erp/index.js';
import { DEFAULT_LOOKBACK_MS } from '../../src/erp/sql/lookback.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pipelineSchema } from '../../src/pipeline/schema.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState } from '../../src/state/index.js';
import { catalogSource, writeCatalog, writeCatalogMapping } from './support/catalog.js';
import { count, median, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';
import { postgresUnavailable, POSTGRES_URL } from './support/states.js';

const N = QUICK ? 10_000 : 100_000;
/** Rows inside the lookback window before the last cursor value. */
const WINDOW_ROWS = 1_000;
/** Spacing of the cursor values: 5 minutes / 1,000 rows. */
const STEP_MS = DEFAULT_LOOKBACK_MS / WINDOW_ROWS;
/** The newest row's `updated_at` (a fixed past time, so no open transaction of the test server caps it). */
const END_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
const RUNS = envRuns() ?? (QUICK ? 3 : 9);
const ONLY_ERP = process.env.BENCH_LOOKBACK_ERP;

function envRuns(): number | undefined {
  const raw = process.env.BENCH_LOOKBACK_RUNS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`Expected \`BENCH_LOOKBACK_RUNS\` to be a whole number from 1 and up, got \`${raw}\``);
  return n;
}

/**
 * How far before the newest row the k-th newest is stamped (k = 0 for the newest): 0.3 s apart,
 * and one step more below the window, so that exactly WINDOW_ROWS rows lie within 5 minutes of the
 * newest (a window's lower bound is inclusive).
 */
function behindMs(k: number): number {
  return k * STEP_MS + (k >= WINDOW_ROWS ? STEP_MS : 0);
}

/** `2026-01-01 11:59:59.700`: a naive timestamp with milliseconds, as an ERP column of text holds it. */
function naive(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** One ERP the benchmark reads: its connection, the rows in the window by its own count, and how to remove it. */
interface Erp {
  readonly name: string;
  readonly connection: Record<string, unknown>;
  /** Rows at or after (newest − 5 minutes), counted by the database. */
  readonly inWindow: number;
  dispose(): Promise<void>;
}

/** The catalog in an ERP SQLite file, `updated_at` spread as `behindMs` says. */
function sqliteErp(dir: string): Erp {
  const path = writeCatalog(dir, N);
  const db = new Database(path);
  try {
    const stamp = db.prepare('UPDATE products SET updated_at = ? WHERE rowid = ?');
    db.transaction(() => {
      for (let i = 1; i <= N; i++) stamp.run(naive(END_MS - behindMs(N - i)), i);
    })();
    const inWindow = (db.prepare('SELECT count(*) AS n FROM products WHERE updated_at >= ?').get(naive(END_MS - DEFAULT_LOOKBACK_MS)) as { n: number }).n;
    return { name: 'SQLite', connection: { kind: 'sqlite', path }, inWindow, dispose: async () => undefined };
  } finally {
    db.close();
  }
}

/** The same catalog in a PostgreSQL schema of its own (`updated_at timestamptz`); the reason instead when the server does not answer. */
async function postgresErp(): Promise<Erp | string> {
  const unavailable = await postgresUnavailable();
  if (unavailable) return unavailable;
  const schema = `shopsync_bench_lookback_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  const drop = async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await admin.end();
  };
  try {
    const s = pg.escapeIdentifier(schema);
    await admin.query(`CREATE SCHEMA ${s}`);
    await admin.query(`CREATE TABLE ${s}.products (sku TEXT PRIMARY KEY, name_de TEXT NOT NULL, name_en TEXT NOT NULL, price TEXT NOT NULL, qty INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL)`);
    await admin.query(`CREATE TABLE ${s}.group_prices (sku TEXT NOT NULL, group_id INTEGER NOT NULL, price TEXT NOT NULL, PRIMARY KEY (sku, group_id))`);
    // Same rows as writeCatalog, stamped as behindMs says (k = N − i).
    await admin.query(
      `INSERT INTO ${s}.products
       SELECT 'B-' || lpad(i::text, 7, '0'), 'Artikel ' || i || ' Edelstahl', 'Item ' || i || ' stainless steel', to_char(5 + (i % 200) / 4.0, 'FM9990.00'), i % 100,
              to_timestamp($2::double precision / 1000) - make_interval(secs => (($1::int - i) * $3::double precision + CASE WHEN $1::int - i >= $4::int THEN $3::double precision ELSE 0 END) / 1000)
       FROM generate_series(1, $1::int) AS i`,
      [N, END_MS, STEP_MS, WINDOW_ROWS],
    );
    await admin.query(
      `INSERT INTO ${s}.group_prices
       SELECT 'B-' || lpad(i::text, 7, '0'), g, to_char(round((5 + (i % 200) / 4.0) * CASE g WHEN 3 THEN 0.9 ELSE 0.85 END, 2), 'FM9990.00')
       FROM generate_series(1, $1::int) AS i, (VALUES (3), (4)) AS groups (g)`,
      [N],
    );
    await admin.query(`CREATE INDEX products_cursor ON ${s}.products (updated_at, sku)`);
    await admin.query(`ANALYZE ${s}.products; ANALYZE ${s}.group_prices`);
    const inWindow = Number(
      ((await admin.query(`SELECT count(*) AS n FROM ${s}.products WHERE updated_at >= to_timestamp($1::double precision / 1000)`, [END_MS - DEFAULT_LOOKBACK_MS])).rows[0] as { n: string }).n,
    );
    return { name: 'PostgreSQL', connection: { kind: 'postgres', url: POSTGRES_URL, schema }, inWindow, dispose: drop };
  } catch (err) {
    await drop();
    throw err;
  }
}

/** What one ERP measured. */
interface Measured {
  readonly firstMs: number;
  readonly firstCreated: number;
  readonly firstRequests: number;
  readonly watermark: string;
  readonly withLookback: Side;
  readonly without: Side;
}

/** The no-change runs of one configuration. */
interface Side {
  readonly ms: number[];
  /** CPU time of this process (user + system) per run: steadier than wall time on a busy machine; a PostgreSQL server's own work is not in it. */
  readonly cpuMs: number[];
  /** Rows the engine settled as read again (its `rechecked`), per run. */
  readonly rechecked: number[];
  /** Records the runs counted as read and as unchanged (rows read again unchanged count as neither). */
  readonly counted: { read: number; unchanged: number };
  /** Requests the sandbox received during these runs. */
  sandboxRequests: number;
}

async function measure(erp: Erp, dir: string): Promise<Measured> {
  const shop = await startShopProcess();
  const client = createShopClient(shopClientOptions(shopConfigSchema.parse({ baseUrl: shop.url, token: shop.token })));
  const stateDir = mkdtempSync(join(dir, 'state-'));
  const state = await openState({ kind: 'sqlite', path: join(stateDir, 'state.db') });
  // At debug level only to hear the engine's `rechecked` (one line per run); everything else the runs log is dropped on arrival.
  let rechecked: number | undefined;
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        if (!line.includes('"rechecked"')) return;
        const parsed = JSON.parse(line) as { rechecked?: number };
        if (typeof parsed.rechecked === 'number') rechecked = parsed.rechecked;
      },
    },
  );
  try {
    const def = pipelineSchema.parse({ name: 'bench-lookback', direction: 'push', source: { connection: 'erp' }, mapping: 'bench-products.yaml', resource: 'products' });
    const mapping = await loadMapping(writeCatalogMapping(stateDir));
    const source = (lookback: number | undefined) => () =>
      createSource(erp.connection as never, { ...catalogSource(), ...(lookback === undefined ? {} : { lookback }) }, { logger: silentLogger, baseDir: dir, env: {} });
    const defaults = source(undefined);
    const off = source(0);

    let t = performance.now();
    const first = await runPipeline(def, { state, shop: client, mapping, source: defaults, logger });
    const firstMs = performance.now() - t;
    if (first.status !== 'succeeded') throw new Error(`first sync ended ${first.status}: ${JSON.stringify(first.error ?? first.counts)}`);

    const sides = {
      a: { ms: [], cpuMs: [], rechecked: [], counted: { read: 0, unchanged: 0 }, sandboxRequests: 0 } as Side,
      b: { ms: [], cpuMs: [], rechecked: [], counted: { read: 0, unchanged: 0 }, sandboxRequests: 0 } as Side,
    };
    let watermark = 'none';
    const once = async (which: 'a' | 'b', timed: boolean) => {
      const side = sides[which];
      const before = (await shop.traffic()).requests;
      (globalThis as { gc?: () => void }).gc?.();
      rechecked = undefined;
      const cpu = process.cpuUsage();
      t = performance.now();
      const run = await runPipeline(def, { state, shop: client, mapping, source: which === 'a' ? defaults : off, logger });
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      if (run.status !== 'succeeded') throw new Error(`no-change run (${which}) ended ${run.status}: ${JSON.stringify(run.error ?? run.counts)}`);
      side.sandboxRequests += (await shop.traffic()).requests - before;
      if (run.watermark) watermark = run.watermark.by;
      if (!timed) return;
      side.ms.push(ms);
      side.cpuMs.push((used.user + used.system) / 1000);
      side.rechecked.push(rechecked ?? 0);
      side.counted.read += run.counts.read;
      side.counted.unchanged += run.counts.unchanged;
    };
    // Warm-up, untimed (its requests are still counted: every no-change run must send none).
    await once('a', false);
    await once('b', false);
    for (let r = 0; r < RUNS; r++) {
      const order: ('a' | 'b')[] = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      for (const which of order) await once(which, true);
    }
    return { firstMs, firstCreated: first.counts.created, firstRequests: first.counts.requests, watermark, withLookback: sides.a, without: sides.b };
  } finally {
    await client.close();
    await state.close();
    await shop.close();
  }
}

function same(values: readonly number[]): string {
  return values.every((v) => v === values[0]) ? count(values[0] ?? 0) : values.map(count).join(', ');
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-lookback-'));
  const lines: string[] = [
    `no-change incremental sync of ${count(N)} catalog products (group prices from a child table) into a loopback sandbox (own process), cursor updated_at 0.3 s apart: ${count(WINDOW_ROWS)} rows within 5 minutes of the stored cursor; (a) default lookback 5m, (b) lookback 0; ${RUNS} timed runs of each after one warm-up, order alternating (a-b, b-a, …); shopsync state in SQLite${QUICK ? ' [BENCH_QUICK sizes]' : ''}`,
  ];
  const rows: string[][] = [];
  const summary: string[] = [];
  try {
    const erps: (() => Promise<Erp | string>)[] = [];
    if (!ONLY_ERP || ONLY_ERP === 'sqlite') erps.push(async () => sqliteErp(dir));
    if (!ONLY_ERP || ONLY_ERP === 'postgres') erps.push(postgresErp);
    for (const open of erps) {
      const erp = await open();
      if (typeof erp === 'string') {
        summary.push(`PostgreSQL ERP: SKIPPED, not measured: ${erp}`);
        continue;
      }
      try {
        const m = await measure(erp, dir);
        const a = median(m.withLookback.ms);
        const b = median(m.without.ms);
        // Within a pair both runs met the same load on the machine; the median of their differences is the steadier figure.
        const paired = median(m.withLookback.ms.map((x, i) => x - m.without.ms[i]!));
        summary.push(
          `${erp.name} ERP (watermark: ${m.watermark}): first sync ${(m.firstMs / 1000).toFixed(1)} s (${count(m.firstCreated)} created, ${count(m.firstRequests)} requests); rows in the window by the ERP's count: ${count(erp.inWindow)}; lookback 5m / lookback 0: ${(a / b).toFixed(2)}× (+${(a - b).toFixed(1)} ms per run; within pairs +${paired.toFixed(1)} ms = ${((paired / Math.max(1, median(m.withLookback.rechecked))) * 1000).toFixed(0)} µs per row read again; CPU +${(median(m.withLookback.cpuMs) - median(m.without.cpuMs)).toFixed(1)} ms)`,
        );
        for (const [label, side] of [
          ['5m (default)', m.withLookback],
          ['0', m.without],
        ] as const) {
          rows.push([
            erp.name,
            label,
            same(side.rechecked),
            `${count(side.counted.read)} / ${count(side.counted.unchanged)}`,
            count(side.sandboxRequests),
            `${median(side.ms).toFixed(1)} ms`,
            `${median(side.cpuMs).toFixed(1)} ms`,
            side.ms.map((x) => x.toFixed(0)).join(', '),
          ]);
        }
      } finally {
        await erp.dispose();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  lines.push(...table(['ERP', 'lookback', 'rows read again per run', 'counted read / unchanged (all runs)', 'shop requests during the no-change runs (sandbox, warm-up included)', 'median no-change run', 'median CPU of the shopsync process', 'runs (ms, in order)'], rows));
  lines.push(...summary);
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
