/**
 * A SQL source keyed by company and article number (`key: [firma, artnr]`) pushed to the shop: the
 * same article number in two companies is two records with a reference each, a refused record is a
 * dead letter under its composite key, and the fixed record resolves it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sqliteSource, type PushFixture } from './support.js';

const def = { name: 'artikel', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 25 };
const SOURCE = {
  query: "SELECT firma, artnr, firma || '-' || artnr AS sku, name, price, qty, updated_at FROM artikel",
  cursor: 'updated_at',
  key: ['firma', 'artnr'],
};

let f: PushFixture;
let erp: Database.Database;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  erp = new Database(join(f.dir, 'artikel.sqlite'));
  erp.exec('CREATE TABLE artikel (firma TEXT NOT NULL, artnr TEXT NOT NULL, name TEXT, price TEXT, qty TEXT, updated_at TEXT, PRIMARY KEY (firma, artnr))');
  mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
});
afterEach(async () => {
  erp.close();
  await f.close();
});

const upsert = (firma: string, artnr: string, qty: string, updatedAt: string) =>
  erp.prepare('INSERT OR REPLACE INTO artikel VALUES (?, ?, ?, ?, ?, ?)').run(firma, artnr, `Artikel ${firma}/${artnr}`, '9.99', qty, updatedAt);
const run = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(join(f.dir, 'artikel.sqlite'), SOURCE) });

describe('a push from a source with a composite key', () => {
  it('keeps a reference per composite key, letters a refused record under its composite key, and resolves it once fixed', async () => {
    upsert('01', 'A-1', '5', '2026-01-01 00:00:00');
    upsert('02', 'A-1', '7', '2026-01-01 00:00:00');
    upsert('01', 'A-2', 'viele', '2026-01-01 00:00:00');
    expect((await run()).counts).toMatchObject({ read: 3, created: 2, deadLettered: 1 });

    const shop = new Map((await shopRecords(f.shop, 'products')).map((p) => [p.products_model, p.products_id]));
    expect(shop.size).toBe(2);
    expect((await f.state.refs.get('products', '["01","A-1"]'))?.shopId).toBe(shop.get('01-A-1'));
    expect((await f.state.refs.get('products', '["02","A-1"]'))?.shopId).toBe(shop.get('02-A-1'));
    expect((await f.state.deadLetters.list({ pipeline: 'artikel' })).map((l) => l.erpKey)).toEqual(['["01","A-2"]']);

    upsert('01', 'A-2', '3', '2026-01-02 00:00:00');
    upsert('02', 'A-1', '7', '2026-01-02 00:00:00');
    const fixed = await run();
    expect(fixed).toMatchObject({ status: 'succeeded', counts: { read: 2, created: 1, unchanged: 1, requests: 1 } });
    expect(await f.state.deadLetters.list({ pipeline: 'artikel' })).toEqual([]);
    expect(await f.state.refs.get('products', '["01","A-2"]')).toBeDefined();
    expect(await shopRecords(f.shop, 'products')).toHaveLength(3);
  });
});
