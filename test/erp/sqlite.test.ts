import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSink, createSource, sqlSourceSchema } from '../../src/erp/index.js';
import { keysetSource } from '../../src/erp/sql/keyset.js';
import { openSqlite } from '../../src/erp/sql/sqlite.js';
import { silentLogger } from '../../src/log.js';
import { collect, sqlSuite } from './sql-suite.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erp-sqlite-'));
const file = path.join(dir, 'erp.db');
const admin = new Database(file);
const ctx = { logger: silentLogger, baseDir: dir };

afterAll(() => {
  admin.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite source and sink', () => {
  sqlSuite(() => ({
    connection: { kind: 'sqlite', path: 'erp.db' },
    ctx: { baseDir: dir },
    exec: async (sql) => { admin.exec(sql); },
    types: { int: 'INTEGER', text: 'TEXT', decimal: 'TEXT' },
    q: (id) => `"${id}"`,
  }));

  it('reads rows that share one timestamp page by page as a range of the (cursor, key) index, never from the start of the tie', async () => {
    admin.exec(`CREATE TABLE bulk (sku TEXT PRIMARY KEY, updated_at TEXT NOT NULL); CREATE INDEX bulk_cursor ON bulk (updated_at, sku);`);
    const insert = admin.prepare('INSERT INTO bulk VALUES (?, ?)');
    admin.transaction(() => {
      for (let i = 0; i < 2500; i++) insert.run(`S-${String(i).padStart(5, '0')}`, '2026-01-01 00:00:00');
    })();
    const driver = await openSqlite({ kind: 'sqlite', path: 'erp.db', busyTimeoutMs: 5000, shareReads: false, shareReadsWindowMs: 0 }, dir, true);
    const pages: { sql: string; params: readonly unknown[] }[] = [];
    const recording = { ...driver, query: async (sql: string, params: readonly unknown[]) => (pages.push({ sql, params }), driver.query(sql, params)) };
    const source = keysetSource(recording, sqlSourceSchema.parse({ query: 'SELECT * FROM bulk', cursor: 'updated_at', key: 'sku', pageSize: 1000 }), silentLogger);
    const items = await collect(source, {});
    await source.close();
    expect(items).toHaveLength(2500);
    const later = pages.filter((p) => p.sql.includes('ORDER BY') && p.params.length > 1);
    expect(later.length).toBeGreaterThanOrEqual(2);
    for (const page of later) {
      const plan = admin.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...(page.params as unknown[])) as { detail: string }[];
      // A range on updated_at alone would start at the tie's first row on every page (quadratic for a bulk import).
      expect(plan.map((p) => p.detail).join('; ')).toContain('(updated_at,sku)>(?,?)');
    }
  });

  it('converts values to JSON-safe ones: big integers to strings, blobs to base64', async () => {
    admin.exec(`CREATE TABLE vals (id INTEGER PRIMARY KEY, big INTEGER, small INTEGER, data BLOB, price REAL)`);
    admin.prepare('INSERT INTO vals VALUES (?, ?, ?, ?, ?)').run(1, 9007199254740993n, 42, Buffer.from('hi'), 1.5);
    const source = await createSource({ kind: 'sqlite', path: 'erp.db' }, { query: 'SELECT * FROM vals', cursor: 'id', key: 'id' }, ctx);
    const [item] = await collect(source, {});
    await source.close();
    expect(item?.record).toEqual({ id: 1, big: '9007199254740993', small: 42, data: 'aGk=', price: 1.5 });
  });

  it('refuses to open a database file that does not exist, with CONNECTOR_UNREACHABLE', async () => {
    await expect(createSource({ kind: 'sqlite', path: 'missing.db' }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' }, ctx))
      .rejects.toMatchObject({ code: 'CONNECTOR_UNREACHABLE' });
  });

  it('rejects a record field that is not a safe column name without writing anything', async () => {
    admin.exec(`CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT)`);
    const sink = await createSink({ kind: 'sqlite', path: 'erp.db' }, { table: 'customers', key: 'id' }, ctx);
    await expect(sink.write({ id: 'x', records: [{ id: 'c1', name: 'ok' }, { id: 'c2', 'name; DROP TABLE customers': 'x' }] }))
      .rejects.toMatchObject({ code: 'CONNECTOR_INVALID_RECORD' });
    await sink.close();
    expect(admin.prepare('SELECT COUNT(*) AS n FROM customers').get()).toEqual({ n: 0 });
  });

  it('replaces children of parents with a composite key', async () => {
    admin.exec(`CREATE TABLE prices (shop TEXT, sku TEXT, price TEXT, PRIMARY KEY (shop, sku))`);
    admin.exec(`CREATE TABLE tiers (shop TEXT, sku TEXT, min_qty INTEGER, price TEXT, PRIMARY KEY (shop, sku, min_qty))`);
    const sink = await createSink({ kind: 'sqlite', path: 'erp.db' }, {
      table: 'prices', key: ['shop', 'sku'],
      children: [{ field: 'tiers', table: 'tiers', key: ['shop', 'sku', 'min_qty'], parentKey: ['shop', 'sku'] }],
    }, ctx);
    await sink.write({ id: '1', records: [
      { shop: 'de', sku: 'A', price: '9,99', tiers: [{ min_qty: 10, price: '8,99' }, { min_qty: 50, price: '7,99' }] },
      { shop: 'at', sku: 'A', price: '10,49', tiers: [{ min_qty: 10, price: '9,49' }] },
    ] });
    // The pipeline proves the row its own (its state delivered the key): without that the sink leaves it alone.
    await sink.write({ id: '2', records: [{ shop: 'de', sku: 'A', price: '9,49', tiers: [{ min_qty: 20, price: '8,49' }] }], owned: [true] });
    await sink.close();
    expect(admin.prepare('SELECT * FROM tiers ORDER BY shop, sku, min_qty').all()).toEqual([
      { shop: 'at', sku: 'A', min_qty: 10, price: '9,49' },
      { shop: 'de', sku: 'A', min_qty: 20, price: '8,49' },
    ]);
    expect(admin.prepare(`SELECT price FROM prices WHERE shop = 'de'`).get()).toEqual({ price: '9,49' });
  });

  it('refuses at start-up a sink whose table does not exist', async () => {
    const err = await createSink({ kind: 'sqlite', path: 'erp.db' }, { table: 'no_such_staging', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
    expect((err as Error).message).toMatch(/sink table no_such_staging does not exist in schema main.*create the \(staging\) table/);
  });

  it('refuses at start-up a sink whose key has no unique index, advising a staging table before any change to the ERP\'s tables', async () => {
    admin.exec(`CREATE TABLE nokey (id TEXT, name TEXT)`);
    const err = await createSink({ kind: 'sqlite', path: 'erp.db' }, { table: 'nokey', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_KEY_NOT_UNIQUE', details: { table: 'nokey', key: ['id'] } });
    expect((err as Error).message).toMatch(/nokey has no primary key or unique index on exactly the sink's key \(id\).*staging table of shopsync's own.*Do not alter the ERP's own tables/);
  });
});
