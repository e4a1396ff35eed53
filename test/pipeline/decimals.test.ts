/**
 * Decimals as the shop stores them (issue 40, item 3), from each SQL source's own column types: a
 * stock summed in a binary float column (`0.1 + 0.2`, Tryton's double precision) reaches the shop
 * as 0.3, not 0.30000000000000004, and the next run is unchanged; a price from a numeric/DECIMAL
 * column with trailing zeros (12.34500) is the shop's 12.345 and reconcile sees no difference; a
 * price with more places than the shop keeps (9.99999 into 4) is sent rounded half-up with a
 * DECIMAL_ROUNDED warning naming the record and the field.
 */
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { requireService } from '../support/services.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, type PushFixture } from './support.js';

const postgres = await requireService('postgres');
const mariadb = await requireService('mariadb');

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

/** One ERP: a table with a float pair (summed by the query) and a fixed-point price, and a source reading it. */
interface Erp {
  /** Rows: sku, price (numeric text), the two float parts of the stock. */
  insert(rows: readonly (readonly [string, string, number, number])[]): Promise<void>;
  source(): () => Promise<Source>;
}

const ROWS = [
  ['D-1', '12.34500', 0.1, 0.2],
  ['D-2', '9.99999', 1, 2.5],
] as const;

async function scenario(erp: Erp, name: string) {
  await erp.insert(ROWS);
  const mapping = await mappingFile(f.dir, 'p', PRODUCT_MAPPING);
  const def = { name, direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };
  const events = new SyncEvents();
  const warned: { erpKey: string; codes: readonly string[] }[] = [];
  events.on('record-settled', (e) => {
    if (e.codes.length > 0) warned.push({ erpKey: e.erpKey, codes: e.codes });
  });
  const deps = { state: f.state, shop: f.shop, mapping, source: erp.source(), events };
  const first = await runPipeline(def, deps);
  const warnedFirst = warned.splice(0);
  const shop = Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [p.products_model, p]));
  // A complete read maps every record again (the one that warned keeps no source hash: its payload hash decides).
  const second = await runPipeline(def, deps, { complete: true });
  const events1 = await f.state.events.list({ runId: first.runId });
  const report = await reconcilePipeline(def, deps, { reports: new ReportStore(join(f.dir, 'reconcile')) });
  return { first, second, shop, warned: warnedFirst, events: events1, report };
}

function expectStoredAsTheShopStoresThem(r: Awaited<ReturnType<typeof scenario>>): void {
  expect(r.first.counts.created).toBe(2);
  // 0.1 + 0.2 in a float column is 0.30000000000000004: the shop keeps 8 places, so 0.3.
  expect(Number(r.shop['D-1']?.products_quantity)).toBe(0.3);
  expect(String(r.shop['D-1']?.products_quantity)).toBe('0.3');
  expect(Number(r.shop['D-1']?.products_price)).toBe(12.345);
  // 9.99999 has five places; the shop keeps four: 10.0000, sent rounded and said so.
  expect(Number(r.shop['D-2']?.products_price)).toBe(10);
  expect(Number(r.shop['D-2']?.products_quantity)).toBe(3.5);
  // Float noise is no warning; a rounding that cuts real digits is, on that record only.
  expect(r.warned).toEqual([{ erpKey: 'D-2', codes: ['DECIMAL_ROUNDED'] }]);
  const event = r.events.find((e) => e.erpKey === 'D-2');
  expect(event?.warnings).toEqual([expect.objectContaining({ code: 'DECIMAL_ROUNDED', field: 'products_price', message: expect.stringContaining('9.99999 rounded half-up to 10') })]);
  expect(r.first.counts.warnings).toBe(1);
  // Read again exactly as before: nothing to send.
  expect(r.second.counts).toMatchObject({ read: 2, created: 0, updated: 0, unchanged: 2 });
  expect(r.second.counts.requests).toBe(0);
  // The ERP's 12.34500 and the shop's 12.345 are one value: no drift.
  expect(r.report.counts.different).toBe(0);
  expect(r.report.drift).toBe(0);
}

describe('decimals from a SQLite source', () => {
  it('sends REAL sums and NUMERIC prices as the shop stores them, and the next run is unchanged', async () => {
    const file = join(f.dir, 'decimals.sqlite');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(file);
    db.exec('CREATE TABLE art (sku TEXT PRIMARY KEY, name TEXT, price NUMERIC, qty_a REAL, qty_b REAL, updated_at TEXT)');
    const erp: Erp = {
      async insert(rows) {
        const stmt = db.prepare("INSERT INTO art VALUES (?, ?, ?, ?, ?, '2026-01-01 00:00:00')");
        for (const [sku, price, a, b] of rows) stmt.run(sku, sku, price, a, b);
      },
      source: () => () => createSource({ kind: 'sqlite', path: file }, { query: 'SELECT sku, name, price, qty_a + qty_b AS qty, updated_at FROM art', cursor: 'updated_at', key: 'sku' } as never, { logger: silentLogger, baseDir: '/' }),
    };
    try {
      expectStoredAsTheShopStoresThem(await scenario(erp, 'dec-sqlite'));
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!postgres.available)('decimals from a PostgreSQL source', () => {
  let admin: pg.Client;
  const table = `dec_art_${process.pid}`;
  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.query(`CREATE TABLE "${table}" (sku TEXT PRIMARY KEY, name TEXT, price NUMERIC(12,5), qty_a DOUBLE PRECISION, qty_b DOUBLE PRECISION, updated_at TIMESTAMPTZ NOT NULL DEFAULT '2026-01-01 00:00:00Z')`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.end();
  });

  it('sends double precision sums and numeric prices as the shop stores them, and the next run is unchanged', async () => {
    const erp: Erp = {
      async insert(rows) {
        for (const [sku, price, a, b] of rows) await admin.query(`INSERT INTO "${table}" (sku, name, price, qty_a, qty_b) VALUES ($1, $1, $2, $3, $4)`, [sku, price, a, b]);
      },
      source: () => () =>
        createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database }, { query: `SELECT sku, name, price, qty_a + qty_b AS qty, updated_at FROM "${table}"`, cursor: 'updated_at', key: 'sku' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
    expectStoredAsTheShopStoresThem(await scenario(erp, 'dec-pg'));
  });
});

describe.skipIf(!mariadb.available)('decimals from a MariaDB source', () => {
  let admin: mysql.Connection;
  const table = `dec_art_${process.pid}`;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database });
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`CREATE TABLE \`${table}\` (sku VARCHAR(20) PRIMARY KEY, name TEXT, price DECIMAL(12,5), qty_a DOUBLE, qty_b DOUBLE, updated_at DATETIME NOT NULL DEFAULT '2026-01-01 00:00:00')`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.end();
  });

  it('sends DOUBLE sums and DECIMAL prices as the shop stores them, and the next run is unchanged', async () => {
    const erp: Erp = {
      async insert(rows) {
        for (const [sku, price, a, b] of rows) await admin.query(`INSERT INTO \`${table}\` (sku, name, price, qty_a, qty_b) VALUES (?, ?, ?, ?, ?)`, [sku, sku, price, a, b]);
      },
      source: () => () =>
        createSource({ kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database }, { query: `SELECT sku, name, price, qty_a + qty_b AS qty, updated_at FROM \`${table}\``, cursor: 'updated_at', key: 'sku' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
    expectStoredAsTheShopStoresThem(await scenario(erp, 'dec-maria'));
  });
});
