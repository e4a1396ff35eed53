/**
 * Duplicate keys are an error, not a version (issue 40, item 1). Tryton lets an active product
 * reuse a discontinued one's code; both rows come back from the query, and pushed one after the
 * other they flip the shop product. Two different live rows of one key, or two ERP keys mapping to
 * one shop_key, are refused together with SOURCE_DUPLICATE_KEY naming both, the shop product is
 * left as it was, the rest of the run goes on and the run is partial. A mapping that says its rows
 * are versions (`duplicates: latest`, stock movements) keeps the later one as before. The same
 * scenarios on SQLite, PostgreSQL and MariaDB sources, against the sandbox shop over HTTP.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { previewPipeline, retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { requireService } from '../support/services.js';
import { mappingFile, pushFixture, shopRecords, type PushFixture } from './support.js';

const postgres = await requireService('postgres');
const mariadb = await requireService('mariadb');

/** One ERP database: run statements, and open a source on a query of it. */
interface Backend {
  exec(sql: string): Promise<void>;
  source(query: string, key: string): () => Promise<Source>;
  close(): Promise<void>;
}

const PID = process.pid;
const backends: { name: string; available: boolean; open: (f: PushFixture) => Promise<Backend> }[] = [
  {
    name: 'SQLite',
    available: true,
    open: async (f) => {
      return {
        exec: async (sql) => void f.erp.exec(sql),
        source: (query, key) => () => createSource({ kind: 'sqlite', path: f.erpFile }, { query, cursor: 'updated_at', key, lookback: 0 } as never, { logger: silentLogger, baseDir: '/' }),
        close: async () => undefined,
      };
    },
  },
  {
    name: 'PostgreSQL',
    available: postgres.available,
    open: async () => {
      const schema = `dup_keys_${PID}`;
      const client = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      return {
        exec: async (sql) => void (await client.query(sql)),
        source: (query, key) => () => createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database, schema } as never, { query, cursor: 'updated_at', key, lookback: 0 } as never, { logger: silentLogger, baseDir: '/', env: {} }),
        close: async () => {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        },
      };
    },
  },
  {
    name: 'MariaDB',
    available: mariadb.available,
    open: async () => {
      const database = `dup_keys_${PID}`;
      const admin = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, multipleStatements: true });
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\`; CREATE DATABASE \`${database}\`; USE \`${database}\``);
      return {
        exec: async (sql) => void (await admin.query(sql)),
        source: (query, key) => () => createSource({ kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, database }, { query, cursor: 'updated_at', key, lookback: 0 } as never, { logger: silentLogger, baseDir: '/', env: {} }),
        close: async () => {
          await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
          await admin.end();
        },
      };
    },
  },
];

const BY_CODE = (extra = '') => `
name: articles
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: code
shop_key: products_model
${extra}
fields:
  products_model: code
  languages.de.products_name: name
  products_price: { from: price, type: decimal, locale: point }
  products_status: active
  products_quantity: { value: 1 }
`;
const BY_ID = `
name: templates
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: id
shop_key: products_model
fields:
  products_model: code
  languages.de.products_name: name
  products_price: { from: price, type: decimal, locale: point }
  products_quantity: { value: 1 }
`;
const TABLE = 'CREATE TABLE product (id INTEGER NOT NULL PRIMARY KEY, code VARCHAR(40) NOT NULL, name VARCHAR(80) NOT NULL, price VARCHAR(20) NOT NULL, active INTEGER NOT NULL, updated_at VARCHAR(30) NOT NULL)';
const row = (id: number, code: string, name: string, price: string, active: number, at: string) => `INSERT INTO product (id, code, name, price, active, updated_at) VALUES (${id}, '${code}', '${name}', '${price}', ${active}, '2026-01-0${at}')`;
const def = (name: string) => ({ name, direction: 'push' as const, source: { connection: 'erp' }, mapping: `${name}.yaml`, resource: 'products', batchSize: 10 });

describe.each(backends)('duplicate keys in a $name source', ({ available, open }) => {
  let f: PushFixture;
  let erp: Backend;
  beforeEach(async () => {
    f = await pushFixture();
    if (!available) return;
    erp = await open(f);
    await erp.exec(TABLE);
  });
  afterEach(async () => {
    if (available) await erp.close();
    await f.close();
  });

  const product = async (model: string) => (await shopRecords(f.shop, 'products')).find((p) => p.products_model === model);
  const nameOf = (p: Record<string, unknown> | undefined) => (p?.languages as Record<string, { products_name?: unknown }> | undefined)?.de?.products_name;

  it.skipIf(!available)('refuses a successor that reuses a live article number, naming both rows, and leaves the shop product as it was', async () => {
    const mapping = await mappingFile(f.dir, 'articles', BY_CODE());
    const source = erp.source('SELECT * FROM product', 'code');
    const run = (options = {}) => runPipeline(def('articles'), { state: f.state, shop: f.shop, mapping, source }, options);
    await erp.exec(row(1, 'ART-1', 'Old kettle', '9.00', 0, '1 00:00:00'));
    expect((await run()).status).toBe('succeeded');
    // A successor takes the discontinued article's code (the old row stays, unchanged, behind the cursor); another article comes in the same run.
    await erp.exec(row(2, 'ART-1', 'New kettle', '12.00', 1, '3 00:00:00'));
    await erp.exec(row(3, 'ART-2', 'Teapot', '5.00', 1, '3 00:00:00'));
    const second = await run();
    expect(second.status).toBe('partial');
    expect(second.counts).toMatchObject({ read: 2, created: 1, deadLettered: 1 });
    const shop = await product('ART-1');
    expect({ name: nameOf(shop), price: Number(shop?.products_price), status: Number(shop?.products_status) }).toEqual({ name: 'Old kettle', price: 9, status: 0 });
    expect(nameOf(await product('ART-2'))).toBe('Teapot');
    const [letter, ...others] = await f.state.deadLetters.list({ pipeline: 'articles' });
    expect(others).toEqual([]);
    expect(letter?.code).toBe('SOURCE_DUPLICATE_KEY');
    expect(letter?.reason).toContain('ERP key ART-1: the source holds 2 different rows (row 1: id 1, name "Old kettle", price "9.00", active 0');
    expect(letter?.reason).toContain('row 2: id 2, name "New kettle", price "12.00", active 1');
    expect(letter?.reason).toContain('duplicates: latest');
    const events = (await f.state.events.list({ runId: second.runId })).filter((e) => e.erpKey === 'ART-1');
    expect(events.map((e) => [e.outcome, e.error?.code])).toEqual([['dead-lettered', 'SOURCE_DUPLICATE_KEY']]);
    // The dry run (preview) says the same of both rows, and a complete read refuses both.
    const dry = await run({ mode: 'dry-run', complete: true });
    expect(dry.status).toBe('partial');
    expect(dry.plan?.filter((p) => p.erpKey === 'ART-1').map((p) => [p.action, p.errors?.[0]?.code])).toEqual([['fail', 'SOURCE_DUPLICATE_KEY'], ['fail', 'SOURCE_DUPLICATE_KEY']]);
    const complete = await run({ complete: true });
    expect(complete).toMatchObject({ status: 'partial', counts: { deadLettered: 2 } });
    expect(nameOf(await product('ART-1'))).toBe('Old kettle');
    // Once the ERP holds one row of the code, a complete read delivers it and the letter closes.
    await erp.exec(`DELETE FROM product WHERE id = 1`);
    expect((await run({ complete: true })).status).toBe('succeeded');
    expect(nameOf(await product('ART-1'))).toBe('New kettle');
    expect(await f.state.deadLetters.list({ pipeline: 'articles' })).toEqual([]);
  });

  it.skipIf(!available)('previews both rows of a duplicate key as refused, and retries its letter with the row the source holds now, not the row the letter kept', async () => {
    const mapping = await mappingFile(f.dir, 'articles', BY_CODE());
    const deps = { state: f.state, shop: f.shop, mapping, source: erp.source('SELECT * FROM product', 'code') };
    await erp.exec(row(1, 'ART-1', 'Old kettle', '9.00', 0, '1 00:00:00'));
    await erp.exec(row(2, 'ART-1', 'New kettle', '12.00', 1, '2 00:00:00'));
    // The preview (the dashboard's, cut to the first records) shows both as refused before anything is written.
    const preview = await previewPipeline(def('articles'), deps);
    expect(preview.records.map((r) => [r.erpKey, r.action, r.errors?.[0]?.code])).toEqual([['ART-1', 'fail', 'SOURCE_DUPLICATE_KEY'], ['ART-1', 'fail', 'SOURCE_DUPLICATE_KEY']]);
    expect((await runPipeline(def('articles'), deps)).status).toBe('partial');
    const [letter] = await f.state.deadLetters.list({ pipeline: 'articles' });
    // The row the letter kept leaves the ERP; the other one stays.
    const kept = Number(letter?.record.id);
    await erp.exec(`DELETE FROM product WHERE id = ${kept}`);
    expect((await retryDeadLetters(def('articles'), deps)).status).toBe('succeeded');
    expect(nameOf(await product('ART-1'))).toBe(kept === 1 ? 'New kettle' : 'Old kettle');
    expect(await f.state.deadLetters.list({ pipeline: 'articles' })).toEqual([]);
  });

  it.skipIf(!available)('refuses two ERP keys that map to one shop_key together and creates neither, while the rest of the run goes on', async () => {
    const mapping = await mappingFile(f.dir, 'templates', BY_ID);
    const source = erp.source('SELECT * FROM product', 'id');
    await erp.exec(row(1, 'ART-7', 'Kettle', '9.00', 1, '1 00:00:00'));
    await erp.exec(row(2, 'ART-7', 'Kettle (copy)', '9.50', 1, '1 00:00:01'));
    await erp.exec(row(3, 'ART-8', 'Teapot', '5.00', 1, '1 00:00:02'));
    const summary = await runPipeline(def('templates'), { state: f.state, shop: f.shop, mapping, source });
    expect(summary.status).toBe('partial');
    expect(summary.counts).toMatchObject({ created: 1, deadLettered: 2 });
    expect(await product('ART-7')).toBeUndefined();
    expect(nameOf(await product('ART-8'))).toBe('Teapot');
    const letters = await f.state.deadLetters.list({ pipeline: 'templates' });
    expect(letters.map((l) => [l.erpKey, l.code]).sort()).toEqual([['1', 'SOURCE_DUPLICATE_KEY'], ['2', 'SOURCE_DUPLICATE_KEY']]);
    for (const l of letters) expect(l.reason).toContain('ERP keys 1 and 2 both map to products_model ART-7 (row 1: id 1, name "Kettle", price "9.00"');
  });

  it.skipIf(!available)('keeps the later version when the mapping says the rows are versions (duplicates: latest)', async () => {
    const mapping = await mappingFile(f.dir, 'articles', BY_CODE('duplicates: latest'));
    await erp.exec(row(1, 'ART-1', 'Kettle', '9.00', 1, '1 00:00:00'));
    await erp.exec(row(2, 'ART-1', 'Kettle', '11.00', 1, '2 00:00:00'));
    const summary = await runPipeline(def('articles'), { state: f.state, shop: f.shop, mapping, source: erp.source('SELECT * FROM product', 'code') });
    expect(summary).toMatchObject({ status: 'succeeded', counts: { deadLettered: 0 } });
    expect(Number((await product('ART-1'))?.products_price)).toBe(11);
  });
});
