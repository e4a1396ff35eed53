/**
 * Read once, fan out (issue 34 item 4): N shops' pipelines read the same ERP query (one PostgreSQL
 * table of 20,000 products, the same SQL and cursor) in the same tick, with shared reads on
 * (`shareReads: true`, the default) and off. Each shop's source is opened and read to the end in
 * pages of 500, all N at once, as the daemon's clock starts them (each read says its run began at
 * the tick, as runPipeline does). Printed per N: the page queries
 * that reached the database (shopsync_erp_queries_total{shared="false"}) and those served from
 * another shop's read, the rows every shop received, and the median wall time of the whole tick over
 * the rounds (on and off alternate, so neither gets the warmer database). Nothing is asserted but
 * that every shop received every row. Needs the PostgreSQL test server (127.0.0.1:5432, database
 * `test`; `SHOPSYNC_BENCH_POSTGRES_URL` points elsewhere); the table lives in a schema of its own,
 * dropped afterwards. BENCH_QUICK=1: N = 3 and 10, 3 rounds (else 3, 10 and 50, 5 rounds).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createSource, type Source } from '../../src/erp/index.js';
import { erpQueryCounts } from '../../src/erp/sql/sharedReads.js';
import { silentLogger } from '../../src/log.js';
import { count, median, QUICK, table } from './support/report.js';
import { postgresUnavailable, POSTGRES_URL } from './support/states.js';

const PRODUCTS = 20_000;
const PAGE = 500;
const SHOPS = QUICK ? [3, 10] : [3, 10, 50];
const ROUNDS = QUICK ? 3 : 5;

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** One tick: `shops` sources opened and read at once; returns the wall time and the rows of each shop. */
async function tick(schema: string, shops: number, share: boolean, label: string): Promise<{ ms: number; rows: number[] }> {
  const open = (): Promise<Source> =>
    createSource(
      { kind: 'postgres', url: POSTGRES_URL, schema, poolSize: 1, shareReads: share },
      { connection: label, query: 'SELECT sku, name, price, updated_at FROM products', cursor: 'updated_at', key: 'sku' },
      { logger: silentLogger, baseDir: process.cwd(), origin: { name: label } },
    );
  const started = performance.now();
  // Every shop's run began at the tick (runPipeline passes its start as `since`).
  const since = performance.timeOrigin + started;
  const rows = await Promise.all(
    Array.from({ length: shops }, async () => {
      const source = await open();
      let n = 0;
      try {
        for await (const item of source.read({ pageSize: PAGE, since })) if (item.record.sku !== undefined) n++;
      } finally {
        await source.close();
      }
      return n;
    }),
  );
  return { ms: performance.now() - started, rows };
}

/** Run the benchmark; returns the lines to print. */
export async function bench(): Promise<string[]> {
  const why = await postgresUnavailable();
  if (why) return [`skipped: PostgreSQL is not reachable (${why})`];
  const schema = `shopsync_bench_share_${randomBytes(3).toString('hex')}`;
  await sql(`CREATE SCHEMA ${schema}`);
  try {
    await sql(`CREATE TABLE ${schema}.products (sku text PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, updated_at timestamptz NOT NULL)`);
    await sql(
      `INSERT INTO ${schema}.products SELECT 'SKU-' || lpad(i::text, 6, '0'), 'Product ' || i, 10 + i % 90, timestamptz '2026-01-01' + (i || ' seconds')::interval FROM generate_series(1, ${PRODUCTS}) i`,
    );
    await sql(`CREATE INDEX ON ${schema}.products (updated_at, sku)`);
    await sql(`ANALYZE ${schema}.products`);
    const rows: string[][] = [];
    for (const shops of SHOPS) {
      const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
      const queries: Record<'on' | 'off', { own: number; shared: number }> = { on: { own: 0, shared: 0 }, off: { own: 0, shared: 0 } };
      for (let r = 0; r < ROUNDS + 1; r++) {
        for (const mode of r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
          const label = `bench_${mode}_${shops}_${r}`;
          // Past the window: nothing of the previous tick (answers, the page size its readers agreed on) carries over.
          await new Promise((r) => setTimeout(r, 2100));
          const result = await tick(schema, shops, mode === 'on', label);
          const bad = result.rows.filter((n) => n !== PRODUCTS);
          if (bad.length > 0) throw new Error(`${bad.length} of ${shops} shops did not receive all ${PRODUCTS} rows (${bad.join(', ')})`);
          // Round 0 warms the database and the process up; it is not counted.
          if (r === 0) continue;
          times[mode].push(result.ms);
          const c = erpQueryCounts().get(label) ?? { own: 0, shared: 0 };
          queries[mode] = { own: queries[mode].own + c.own / ROUNDS, shared: queries[mode].shared + c.shared / ROUNDS };
        }
      }
      const on = median(times.on);
      const off = median(times.off);
      rows.push([
        String(shops),
        count(queries.off.own),
        `${count(queries.on.own)} (+ ${count(queries.on.shared)} shared)`,
        `${(queries.off.own / Math.max(1, queries.on.own)).toFixed(1)}×`,
        `${count(off)} ms`,
        `${count(on)} ms`,
        `${(off / on).toFixed(2)}×`,
      ]);
    }
    return [
      `${PRODUCTS} products in PostgreSQL, pages of ${PAGE} (${Math.ceil(PRODUCTS / PAGE) + 1} page queries per shop), all shops reading at once; median of ${ROUNDS} rounds${QUICK ? ' (BENCH_QUICK)' : ''}; every shop received every row`,
      ...table(['shops', 'ERP queries per tick, not shared', 'shared', 'fewer queries', 'tick, not shared', 'tick, shared', 'faster'], rows),
    ];
  } finally {
    await sql(`DROP SCHEMA ${schema} CASCADE`);
  }
}
