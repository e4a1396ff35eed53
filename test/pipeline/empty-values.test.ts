/**
 * Empty means what the mapping says (issue 40, item 2). An EAN removed in the ERP, as NULL and as
 * '', on SQLite, PostgreSQL and MariaDB sources, synced to the sandbox shop over HTTP: with
 * `when_empty: clear` the shop's EAN is emptied, with `keep` it stays, with `refuse` the two
 * records are refused by name and field while the rest of the run goes on; a reconciliation with
 * the `clear` mapping sees an EAN the shop still holds as a difference, and its repair clears it.
 */
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { requireService } from '../support/services.js';
import { mappingFile, pushFixture, shopRecords, type PushFixture } from './support.js';

const postgres = await requireService('postgres');
const mariadb = await requireService('mariadb');

const EAN_A = '4006381333931';
const EAN_B = '4006381333948';
const EAN_C = '4006381333955';

/** The product mapping with the EAN rule of the policy (`undefined`: the rule says nothing). */
function eanMapping(policy: 'keep' | 'clear' | 'refuse' | undefined): string {
  return `name: ean-${policy ?? 'default'}
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: { from: sku, required: true }
  products_price: { from: price, type: decimal, required: true }
  languages.de.products_name: { from: name, trim: true, required: true }
  products_ean: { from: ean, trim: true${policy ? `, when_empty: ${policy}` : ''} }
`;
}

/** One ERP table of articles, in one database. */
interface ArticleTable {
  insert(sku: string, name: string, ean: string | null, version: number): Promise<void>;
  update(sku: string, changes: { name?: string; ean?: string | null }, version: number): Promise<void>;
  source(): () => Promise<Source>;
}

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

const def = (name: string, mapping: string) => ({ name, direction: 'push' as const, source: { connection: 'erp', cursor: 'version' }, mapping: `${mapping}.yaml`, resource: 'products' as const });

async function eans(): Promise<Record<string, unknown>> {
  return Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [String(p.products_model), p.products_ean]));
}

/** Three articles synced with their EANs; then the ERP removes A's (NULL) and B's ('') and renames C. */
async function removeEans(t: ArticleTable, name: string, policy: 'keep' | 'clear' | 'refuse' | undefined) {
  const mapping = await mappingFile(f.dir, `m-${name}`, eanMapping(policy));
  await t.insert('A', 'Article A', EAN_A, 1);
  await t.insert('B', 'Article B', EAN_B, 1);
  await t.insert('C', 'Article C', EAN_C, 1);
  const first = await runPipeline(def(name, `m-${name}`), { state: f.state, shop: f.shop, mapping, source: t.source() });
  expect(first).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
  expect(await eans()).toEqual({ A: EAN_A, B: EAN_B, C: EAN_C });
  await t.update('A', { ean: null }, 2);
  await t.update('B', { ean: '' }, 3);
  await t.update('C', { name: 'Article C renamed' }, 4);
  const second = await runPipeline(def(name, `m-${name}`), { state: f.state, shop: f.shop, mapping, source: t.source() });
  return { second, mapping };
}

/** The scenarios every source kind runs. */
function scenarios(kind: string, table: (name: string) => Promise<ArticleTable>): void {
  it(`${kind}: with when_empty: clear, an EAN removed in the ERP as NULL and as '' is cleared in the shop`, async () => {
    const { second } = await removeEans(await table('clear'), `${kind}-clear`, 'clear');
    expect(second).toMatchObject({ status: 'succeeded', counts: { updated: 3, failed: 0 } });
    expect(await eans()).toEqual({ A: '', B: '', C: EAN_C });
  });

  it(`${kind}: with when_empty: keep, the shop keeps both EANs (NULL and '' alike)`, async () => {
    const { second } = await removeEans(await table('keep'), `${kind}-keep`, 'keep');
    expect(second.status).toBe('succeeded');
    expect(await eans()).toEqual({ A: EAN_A, B: EAN_B, C: EAN_C });
  });

  it(`${kind}: with when_empty: refuse, both records are refused naming the record and the field, and the rename of C goes through`, async () => {
    const name = `${kind}-refuse`;
    const { second } = await removeEans(await table('refuse'), name, 'refuse');
    expect(second).toMatchObject({ status: 'partial', counts: { updated: 1, failed: 2 } });
    const letters = await f.state.deadLetters.list({ pipeline: name });
    expect(letters.map((l) => [l.erpKey, l.code]).sort()).toEqual([
      ['A', 'MAPPING_EMPTY'],
      ['B', 'MAPPING_EMPTY'],
    ]);
    for (const l of letters) expect(l.reason).toMatch(/field `products_ean`: the source has no value .* `when_empty: refuse`/);
    expect(await eans()).toEqual({ A: EAN_A, B: EAN_B, C: EAN_C });
    const c = (await shopRecords(f.shop, 'products')).find((p) => p.products_model === 'C') as { languages: Record<string, { products_name: string }> };
    expect(c.languages.de!.products_name).toBe('Article C renamed');
  });

  it(`${kind}: a reconciliation with when_empty: clear reports an EAN the shop still holds as a difference, and its repair clears it`, async () => {
    const t = await table('reconcile');
    // Synced under `keep`: the shop still holds both EANs the ERP removed.
    await removeEans(t, `${kind}-kept`, 'keep');
    const mapping = await mappingFile(f.dir, `m-${kind}-rc`, eanMapping('clear'));
    const reports = new ReportStore(join(f.dir, 'reconcile'));
    const rdef = def(`${kind}-rc`, `m-${kind}-rc`);
    const report = await reconcilePipeline(rdef, { state: f.state, shop: f.shop, mapping, source: t.source() }, { reports });
    expect(report.counts).toMatchObject({ matched: 3, different: 2 });
    expect(report.different.map((d) => [d.erpKey, d.fields])).toEqual([
      ['A', [{ field: 'products_ean', shop: EAN_A, erp: '' }]],
      ['B', [{ field: 'products_ean', shop: EAN_B, erp: '' }]],
    ]);
    const repaired = await reconcilePipeline(rdef, { state: f.state, shop: f.shop, mapping, source: t.source() }, { reports, repair: true });
    expect(repaired.repair).toMatchObject({ status: 'succeeded', updated: 2 });
    expect(await eans()).toEqual({ A: '', B: '', C: EAN_C });
    const again = await reconcilePipeline(rdef, { state: f.state, shop: f.shop, mapping, source: t.source() }, { reports });
    expect(again.counts).toMatchObject({ matched: 3, different: 0 });
    // With `keep` the mapping says the shop's value stays, so a shop EAN is no drift.
    const keep = await mappingFile(f.dir, `m-${kind}-rk`, eanMapping('keep'));
    await f.shop.update('products', [{ products_model: 'A', products_ean: EAN_A }]);
    expect((await reconcilePipeline(def(`${kind}-rk`, `m-${kind}-rk`), { state: f.state, shop: f.shop, mapping: keep, source: t.source() }, { reports })).counts).toMatchObject({ different: 0 });
  });

  it(`${kind}: without when_empty (the default), a NULL EAN is kept and '' is sent as the text it is`, async () => {
    const { second } = await removeEans(await table('default'), `${kind}-default`, undefined);
    expect(second.status).toBe('succeeded');
    expect(await eans()).toEqual({ A: EAN_A, B: '', C: EAN_C });
  });
}

describe('a SQLite source', () => {
  let n = 0;
  scenarios('sqlite', async (name) => {
    const qualified = `art_${name}_${n++}`;
    f.erp.exec(`CREATE TABLE ${qualified} (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, ean TEXT, version INTEGER NOT NULL)`);
    return {
      insert: async (sku, nm, ean, version) => void f.erp.prepare(`INSERT INTO ${qualified} VALUES (?, ?, '9.90', ?, ?)`).run(sku, nm, ean, version),
      update: async (sku, c, version) => void f.erp.prepare(`UPDATE ${qualified} SET name = COALESCE(?, name), ean = CASE WHEN ? THEN ? ELSE ean END, version = ? WHERE sku = ?`).run(c.name ?? null, 'ean' in c ? 1 : 0, c.ean ?? null, version, sku),
      source: () => () => createSource({ kind: 'sqlite', path: f.erpFile }, { query: `SELECT * FROM ${qualified}`, cursor: 'version', key: 'sku' } as never, { logger: silentLogger, baseDir: '/' }),
    };
  });
});

describe.skipIf(!postgres.available)('a PostgreSQL source', () => {
  const schema = `empty_values_${process.pid}`;
  let admin: pg.Client;
  let n = 0;
  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`CREATE SCHEMA "${schema}"`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  scenarios('postgres', async (name) => {
    const qualified = `"${schema}"."art_${name}_${n++}"`;
    await admin.query(`CREATE TABLE ${qualified} (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(10,2) NOT NULL, ean VARCHAR(14), version INT NOT NULL)`);
    return {
      insert: async (sku, nm, ean, version) => void (await admin.query(`INSERT INTO ${qualified} VALUES ($1, $2, 9.90, $3, $4)`, [sku, nm, ean, version])),
      update: async (sku, c, version) =>
        void (await admin.query(`UPDATE ${qualified} SET name = COALESCE($1, name), ean = CASE WHEN $2 THEN $3 ELSE ean END, version = $4 WHERE sku = $5`, [c.name ?? null, 'ean' in c, c.ean ?? null, version, sku])),
      source: () => () => createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database }, { query: `SELECT * FROM ${qualified}`, cursor: 'version', key: 'sku' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
  });
});

describe.skipIf(!mariadb.available)('a MariaDB source', () => {
  const database = `empty_values_${process.pid}`;
  let admin: mysql.Connection;
  let n = 0;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\``);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  });
  scenarios('mariadb', async (name) => {
    const qualified = `\`${database}\`.\`art_${name}_${n++}\``;
    await admin.query(`CREATE TABLE ${qualified} (sku VARCHAR(32) PRIMARY KEY, name VARCHAR(64) NOT NULL, price DECIMAL(10,2) NOT NULL, ean VARCHAR(14), version INT NOT NULL)`);
    return {
      insert: async (sku, nm, ean, version) => void (await admin.query(`INSERT INTO ${qualified} VALUES (?, ?, 9.90, ?, ?)`, [sku, nm, ean, version])),
      update: async (sku, c, version) =>
        void (await admin.query(`UPDATE ${qualified} SET name = COALESCE(?, name), ean = CASE WHEN ? THEN ? ELSE ean END, version = ? WHERE sku = ?`, [c.name ?? null, 'ean' in c ? 1 : 0, c.ean ?? null, version, sku])),
      source: () => () => createSource({ kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database }, { query: `SELECT * FROM ${qualified}`, cursor: 'version', key: 'sku' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
  });
});
