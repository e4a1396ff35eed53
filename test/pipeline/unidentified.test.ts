/**
 * A product without its article number or without a name is never created, active or not: the
 * record is refused with GUARD_CREATE_WITHOUT_MODEL / GUARD_CREATE_WITHOUT_NAME and says how to
 * fix it; the rest of the run goes on, and an update that carries neither passes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, sqliteSource, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec('CREATE TABLE artikel (sku TEXT PRIMARY KEY, model TEXT, name TEXT, price TEXT, qty INTEGER, active INTEGER, updated_at TEXT)');
});
afterEach(async () => {
  await f.close();
});

const source = () => sqliteSource(f.erpFile, { query: 'SELECT * FROM artikel', cursor: 'updated_at', key: 'sku' });
const rows = (values: [sku: string, model: string | null, name: string | null, active: number][], at = '2026-01-01') => {
  const insert = f.erp.prepare('INSERT OR REPLACE INTO artikel VALUES (?, ?, ?, ?, 1, ?, ?)');
  for (const [sku, model, name, active] of values) insert.run(sku, model, name, '9.90', active, at);
};
const MAPPING = PRODUCT_MAPPING.replace('products_model: sku', 'products_model: { from: model, trim: true }').replace('languages.de.products_name: name', 'languages.de.products_name: { from: name, trim: true }').replace('products_status: { value: 1 }', 'products_status: active');

describe('a product without model or name', () => {
  it('is refused on create, active or inactive, with the code and the fix; the others are created', async () => {
    rows([['P-1', 'M-1', 'Tisch', 1], ['P-2', null, 'Stuhl', 1], ['P-3', 'M-3', null, 0], ['P-4', null, 'Bank', 0], ['P-5', 'M-5', '  ', 1]]);
    const mapping = await mappingFile(f.dir, 'products.yaml', MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: source() });
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 4 } });
    expect((await shopRecords(f.shop, 'products')).map((p) => p.products_model)).toEqual(['M-1']);
    const letters = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letters.map((l) => [l.erpKey, l.code]).sort()).toEqual([['P-2', 'GUARD_CREATE_WITHOUT_MODEL'], ['P-3', 'GUARD_CREATE_WITHOUT_NAME'], ['P-4', 'GUARD_CREATE_WITHOUT_MODEL'], ['P-5', 'GUARD_CREATE_WITHOUT_NAME']]);
    expect(letters.find((l) => l.erpKey === 'P-2')?.reason).toMatch(/^products are never created without `products_model` \(got none\): .*map the column that holds it \(`products_model: \{ from: <column>, required: true \}`/);
    expect(letters.find((l) => l.erpKey === 'P-3')?.reason).toMatch(/^products are never created without `languages.<language>.products_name` \(got none\): the shop would create a product without a name in every language, a blank line in its lists and search, active or not/);
  });

  it('refuses every create of a mapping that writes no name at all, and lets its updates of known products through', async () => {
    rows([['P-1', 'M-1', 'Tisch', 1]]);
    const full = await mappingFile(f.dir, 'products.yaml', MAPPING);
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping: full, source: source() })).counts).toMatchObject({ created: 1 });
    rows([['P-1', 'M-1', 'Tisch', 0], ['P-9', 'M-9', 'Neu', 1]], '2026-01-02');
    const nameless = await mappingFile(f.dir, 'nameless.yaml', MAPPING.replace(/ {2}languages\.de\.products_name: .*\n/, ''));
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping: nameless, source: source() });
    expect(summary.counts).toMatchObject({ updated: 1, created: 0, deadLettered: 1 });
    expect((await shopRecords(f.shop, 'products')).map((p) => [p.products_model, Number(p.products_status)])).toEqual([['M-1', 0]]);
  });

  it('is created when the mapping says the names or models come otherwise (allow: [no_name, no_model])', async () => {
    rows([['A-1', null, null, 1]]);
    const allowed = await mappingFile(f.dir, 'allowed.yaml', MAPPING.replace('key: sku', 'key: sku\nallow: [no_name, no_model]'));
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping: allowed, source: source() })).counts).toMatchObject({ created: 1, deadLettered: 0 });
  });
});
