/**
 * Read once, fan out: the pipelines of three shops read the same ERP query (same connection, same
 * SQL, same cursor) in the same tick, and the database answers each page once instead of three
 * times; every shop still receives every row, as records of its own. A run that begins after a
 * query started asks the database again (it never gets a view older than its own start), reads with
 * other parameters are not shared, and `shareReads: false` turns it off.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSource, type Source } from '../../src/erp/index.js';
import { erpQueryCounts, KEPT_ROWS, sharedReader } from '../../src/erp/sql/sharedReads.js';
import { silentLogger } from '../../src/log.js';
import { createErp, sku, upsertProducts } from '../pipeline/support.js';
import { removeDir, tempDir } from '../support/tmp.js';

const PRODUCTS = 1000;
const PAGE = 100;
/** Ten full pages and the short (empty) one that ends the read; fewer when a slow machine makes pages grow (up to 4×). */
const PAGES = PRODUCTS / PAGE + 1;
const FEWEST_PAGES = Math.ceil(PRODUCTS / (PAGE * 4));

const dir = tempDir('shopsync-shared-reads-');
const erp = createErp(join(dir, 'erp.sqlite'));
upsertProducts(erp, 1, PRODUCTS);
afterAll(() => {
  erp.close();
  removeDir(dir);
});

/** A connection name of its own per test, so its counts are its own. */
const fresh = () => `erp_${randomBytes(3).toString('hex')}`;

async function open(name: string, options: { shareReads?: boolean } = {}): Promise<Source> {
  return createSource({ kind: 'sqlite', path: 'erp.sqlite', ...options }, { connection: name, query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }, { logger: silentLogger, baseDir: dir, origin: { name } });
}

async function readAll(source: Source): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const item of source.read({ pageSize: PAGE })) out.push(item.record);
  await source.close();
  return out;
}

const counts = (name: string) => erpQueryCounts().get(name) ?? { own: 0, shared: 0 };

describe('shared reads of SQL sources (read once, fan out)', () => {
  it('answers each page once for three shops reading the same query in the same tick, and each shop gets every row', async () => {
    const name = fresh();
    const shops = await Promise.all(['de', 'at', 'ch'].map(() => open(name)));
    const [de, at, ch] = await Promise.all(shops.map(readAll));
    // One database query per page, whichever shop asked first; the other two were served its rows.
    const { own, shared } = counts(name);
    expect(own).toBeLessThanOrEqual(PAGES);
    expect(own).toBeGreaterThanOrEqual(FEWEST_PAGES);
    expect(shared).toBe(2 * own);
    for (const rows of [de!, at!, ch!]) {
      expect(rows).toHaveLength(PRODUCTS);
      expect(new Set(rows.map((r) => r.sku)).size).toBe(PRODUCTS);
    }
    // Each shop's records are its own: one shop's mapping changing a record touches no other shop's.
    de![0]!.name = 'changed by de';
    expect(at![0]!.name).not.toBe('changed by de');
    expect(ch![0]!.name).toBe(at![0]!.name);
  });

  it('keeps the last 10,000 answered rows of a query for a reader behind: two pages behind it shares them all, five behind none', async () => {
    // The readers' own executor over SQLite: it counts what reached the database. Pages of a quarter of what a query keeps.
    const db = new Database(':memory:');
    const driver = { query: async (sql: string, params: readonly unknown[]) => db.prepare(sql).all(...params) as Record<string, unknown>[] };
    const size = KEPT_ROWS / 4;
    const page = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${size * 12}) SELECT i FROM n WHERE i > ? ORDER BY i LIMIT ${size}`;
    const after = Array.from({ length: 12 }, (_, i) => i * size);
    /** Two readers of one query, the second `lag` pages behind the first; the counts of what the second got. */
    const lagging = async (lag: number) => {
      const name = fresh();
      const settings = { enabled: true, windowMs: 60_000 };
      const [ahead, behind] = [sharedReader(driver, name, name, settings), sharedReader(driver, name, name, settings)];
      const rows: number[] = [];
      for (let i = 0; i < after.length + lag; i++) {
        if (i < after.length) await ahead.read(page, [after[i]]);
        if (i >= lag) rows.push((await behind.read(page, [after[i - lag]])).rows.length);
      }
      expect(rows).toEqual(after.map(() => size));
      return counts(name);
    };
    try {
      // Within the window both times: what decides is how far behind the reader is (four pages hold the 10,000 rows kept beyond the newest).
      expect(await lagging(2)).toEqual({ own: 12, shared: 12 });
      expect(await lagging(4)).toEqual({ own: 12, shared: 12 });
      expect(await lagging(6)).toEqual({ own: 24, shared: 0 });
    } finally {
      db.close();
    }
  });

  it('asks the database again for a run that began after the query started: a change committed before it is seen', async () => {
    const name = fresh();
    await readAll(await open(name));
    upsertProducts(erp, 1, 1, 2);
    const later = await readAll(await open(name));
    expect(counts(name).shared).toBe(0);
    expect(counts(name).own).toBeGreaterThanOrEqual(2 * FEWEST_PAGES);
    expect(later.find((r) => r.sku === sku(1))?.name).toBe('Product 1 v2');
    upsertProducts(erp, 1, 1, 1);
  });

  it('shares nothing between reads with different cursors, or when `shareReads: false`', async () => {
    const name = fresh();
    const [a, b] = await Promise.all([open(name), open(name)]);
    const fromStart: Record<string, unknown>[] = [];
    const afterSome: Record<string, unknown>[] = [];
    await Promise.all([
      (async () => {
        for await (const item of a.read({ pageSize: PAGE })) fromStart.push(item.record);
      })(),
      (async () => {
        for await (const item of b.read({ pageSize: PAGE, after: { value: '2026-01-01 00:00:00', key: 'SKU-00050' } })) afterSome.push(item.record);
      })(),
    ]);
    await Promise.all([a.close(), b.close()]);
    expect(fromStart).toHaveLength(PRODUCTS);
    expect(afterSome.length).toBeLessThan(PRODUCTS);
    expect(counts(name).shared).toBe(0);

    const off = fresh();
    await Promise.all((await Promise.all([0, 1, 2].map(() => open(off, { shareReads: false })))).map(readAll));
    expect(counts(off).shared).toBe(0);
    expect(counts(off).own).toBeGreaterThanOrEqual(3 * FEWEST_PAGES);
  });
});
