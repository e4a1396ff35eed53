/**
 * A long ERP transaction stamps its row when it begins (PostgreSQL's now(), MariaDB's NOW() at its
 * statement) and commits after a later change was read and the cursor moved past that stamp. The
 * next run must deliver the row: the watermark keeps the cursor before the open transaction, the
 * lookback reads a window before the cursor, and a database that hides its transactions falls back
 * to the lookback and says so. Without either the row is skipped for good: the control shows it.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { WATERMARK_LANE, watermarkView } from '../../src/pipeline/sourceWatermark.js';
import { requireService } from '../support/services.js';
import { silentLogger } from '../../src/log.js';
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

const def = (name: string) => ({ name, direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' });
async function requests(): Promise<number> {
  const res = await fetch(`${f.sandbox.url}/sandbox/traffic`, { headers: { authorization: `Bearer ${f.sandbox.token}` } });
  return ((await res.json()) as { requests: number }).requests;
}
async function inShop(sku: string): Promise<boolean> {
  return (await shopRecords(f.shop, 'products')).some((p) => p.products_model === sku);
}

/** What a database scenario needs: open a clerk session that holds a transaction, and a source as some user. */
interface Erp {
  readonly table: string;
  /** Insert a row stamped by the database's clock, committed at once. */
  insert(sku: string): Promise<void>;
  /** Begin a transaction, write a row stamped by the database's clock, and keep it open until `commit`. */
  begin(sku: string): Promise<{ commit(): Promise<void> }>;
  source(scenario: string, config: { lookback?: number | string }, asUnprivileged?: boolean): () => Promise<Source>;
}

/**
 * One scenario on one database: the clerk's row L-1 is stamped before L-2, which commits first and
 * is read by run 1; then the clerk commits. Returns what run 2 did and whether L-1 reached the shop.
 */
async function lateCommit(erp: Erp, name: string, config: { lookback?: number | string }, unprivileged = false) {
  const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
  const source = erp.source(name, config, unprivileged);
  await erp.insert(`${name}-L-0`);
  const first = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
  expect(first.counts.created).toBe(1);
  const clerk = await erp.begin(`${name}-L-1`);
  // InnoDB lists a new transaction in innodb_trx within 100 ms (a cache); the bound stays 1 s behind the clock for that gap.
  await new Promise((r) => setTimeout(r, 300));
  await erp.insert(`${name}-L-2`);
  const second = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
  expect(second.counts.created).toBe(1);
  const lane = watermarkView(await f.state.cursors.get(name, WATERMARK_LANE));
  const cursorWhileOpen = (await f.state.cursors.get(name))?.value;
  await clerk.commit();
  const before = await requests();
  const third = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
  return { third, requests: (await requests()) - before, delivered: await inShop(`${name}-L-1`), lane, cursorWhileOpen };
}

describe.skipIf(!postgres.available)('late commits on PostgreSQL', () => {
  let admin: pg.Client;
  const table = `late_art_${process.pid}`;
  const role = `shopsync_nostats_${process.pid}`;
  const erp: Erp = {
    table,
    async insert(sku) {
      await admin.query(`INSERT INTO "${table}" (sku, name, price, qty) VALUES ($1, $1, '1.00', 1)`, [sku]);
    },
    async begin(sku) {
      const clerk = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
      await clerk.connect();
      await clerk.query('BEGIN');
      await clerk.query(`INSERT INTO "${table}" (sku, name, price, qty) VALUES ($1, $1, '1.00', 1)`, [sku]);
      return {
        async commit() {
          await clerk.query('COMMIT');
          await clerk.end();
        },
      };
    },
    source(scenario, config, unprivileged) {
      const connection = { kind: 'postgres' as const, host: postgres.host, port: postgres.port, user: unprivileged ? role : postgres.user, database: postgres.database };
      return () => createSource(connection, { query: `SELECT * FROM "${table}" WHERE sku LIKE '${scenario}-%'`, cursor: 'changed', key: 'sku', ...config } as never, { logger: silentLogger, baseDir: '/', env: {} });
    },
  };
  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.query(`CREATE TABLE "${table}" (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INT, changed TIMESTAMPTZ NOT NULL DEFAULT now())`);
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" LOGIN; END IF; END $$`);
    await admin.query(`GRANT SELECT ON "${table}" TO "${role}"`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.query(`DROP OWNED BY "${role}"`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
  });

  it('holds the cursor before a transaction that is still open, and delivers its row once it commits, even with lookback 0', async () => {
    const r = await lateCommit(erp, 'pg-watermark', { lookback: 0 });
    expect(r.lane).toMatchObject({ by: 'transactions' });
    expect(r.lane?.openSince).not.toBeNull();
    // The cursor stayed at or before the clerk's start although L-2, stamped after it, was read.
    expect(Date.parse(String(r.cursorWhileOpen))).toBeLessThanOrEqual(Date.parse(String(r.lane?.openSince)));
    expect(r.delivered).toBe(true);
    expect(r.third.counts.created).toBe(1);
    expect(r.third.status).toBe('succeeded');
  });

  it('with the lookback alone (a user without pg_read_all_stats) delivers the row once, with no request for the unchanged rows around it, and says it falls back', async () => {
    const r = await lateCommit(erp, 'pg-lookback', {}, true);
    expect(r.lane).toMatchObject({ by: 'lookback' });
    expect(r.lane?.reason).toMatch(/pg_read_all_stats/);
    expect(r.delivered).toBe(true);
    // L-0 and L-2 are read again in the window and settle without a request: the create of L-1 is all.
    expect(r.third.counts).toMatchObject({ read: 1, created: 1, unchanged: 0, updated: 0 });
    expect(r.requests).toBeLessThanOrEqual(2);
  });

  it('skips the row for good without watermark and lookback: the loss both prevent', async () => {
    const r = await lateCommit(erp, 'pg-control', { lookback: 0 }, true);
    expect(r.delivered).toBe(false);
    expect(r.third.counts.read).toBe(0);
  });
});

describe.skipIf(!mariadb.available)('late commits on MariaDB', () => {
  let admin: mysql.Connection;
  const table = `late_art_${process.pid}`;
  const user = `nostats_${process.pid}`;
  const erp: Erp = {
    table,
    async insert(sku) {
      await admin.query(`INSERT INTO \`${table}\` (sku, name, price, qty, changed) VALUES (?, ?, '1.00', 1, NOW(6))`, [sku, sku]);
    },
    async begin(sku) {
      const clerk = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database });
      await clerk.query('START TRANSACTION');
      await clerk.query(`INSERT INTO \`${table}\` (sku, name, price, qty, changed) VALUES (?, ?, '1.00', 1, NOW(6))`, [sku, sku]);
      return {
        async commit() {
          await clerk.query('COMMIT');
          await clerk.end();
        },
      };
    },
    source(scenario, config, unprivileged) {
      const connection = { kind: 'mysql' as const, host: mariadb.host, port: mariadb.port, user: unprivileged ? user : mariadb.user, database: mariadb.database };
      return () => createSource(connection, { query: `SELECT * FROM \`${table}\` WHERE sku LIKE '${scenario}-%'`, cursor: 'changed', key: 'sku', ...config } as never, { logger: silentLogger, baseDir: '/', env: {} });
    },
  };
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database });
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`CREATE TABLE \`${table}\` (sku VARCHAR(64) PRIMARY KEY, name VARCHAR(64), price VARCHAR(16), qty INT, changed DATETIME(6) NOT NULL)`);
    await admin.query(`CREATE USER IF NOT EXISTS '${user}'@'%'`);
    await admin.query(`GRANT SELECT ON \`${mariadb.database}\`.\`${table}\` TO '${user}'@'%'`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
    await admin.end();
  });

  it('holds the cursor before a transaction that is still open (innodb_trx), and delivers its row once it commits, even with lookback 0', async () => {
    const r = await lateCommit(erp, 'my-watermark', { lookback: 0 });
    expect(r.lane).toMatchObject({ by: 'transactions' });
    expect(r.lane?.openSince).not.toBeNull();
    expect(r.delivered).toBe(true);
    expect(r.third.counts.created).toBe(1);
  });

  it('with the lookback alone (a user without PROCESS) delivers the row once, with no request for the unchanged rows around it, and says it falls back', async () => {
    const r = await lateCommit(erp, 'my-lookback', {}, true);
    expect(r.lane).toMatchObject({ by: 'lookback' });
    expect(r.lane?.reason).toMatch(/PROCESS/);
    expect(r.delivered).toBe(true);
    expect(r.third.counts).toMatchObject({ read: 1, created: 1, unchanged: 0, updated: 0 });
    expect(r.requests).toBeLessThanOrEqual(2);
  });

  it('skips the row for good without watermark and lookback: the loss both prevent', async () => {
    const r = await lateCommit(erp, 'my-control', { lookback: 0 }, true);
    expect(r.delivered).toBe(false);
  });
});
