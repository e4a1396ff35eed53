/**
 * A product the shop would put on sale for nothing is never created: an empty or NULL price, or a
 * price of 0 on an active product, refuses that record with its reason; the rest of the run goes on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, sqliteSource, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  // An ERP table whose price column may be NULL.
  f.erp.exec('CREATE TABLE artikel (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INTEGER, updated_at TEXT)');
});
afterEach(async () => {
  await f.close();
});

const source = () => sqliteSource(f.erpFile, { query: 'SELECT * FROM artikel', cursor: 'updated_at', key: 'sku' });
const rows = (values: [string, string | null, string][]) => {
  const insert = f.erp.prepare('INSERT OR REPLACE INTO artikel VALUES (?, ?, ?, 1, ?)');
  for (const [sku, price, at] of values) insert.run(sku, `Artikel ${sku}`, price, at);
};
async function models(): Promise<Record<string, number>> {
  return Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [String(p.products_model), Number(p.products_price)]));
}

describe('a product without a price', () => {
  it('is refused on create with its reason (NULL, empty or 0 while active), the priced ones are created, and an update without a price keeps the shop price', async () => {
    rows([['P-1', '9.90', '2026-01-01'], ['P-2', null, '2026-01-01'], ['P-3', '', '2026-01-01'], ['P-4', '0.00', '2026-01-01']]);
    const mapping = await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: source() });
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 3 } });
    expect(await models()).toEqual({ 'P-1': 9.9 });
    const letters = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letters.map((l) => [l.erpKey, l.code]).sort()).toEqual([['P-2', 'GUARD_UNPRICED_CREATE'], ['P-3', 'GUARD_UNPRICED_CREATE'], ['P-4', 'GUARD_UNPRICED_CREATE']]);
    expect(letters.find((l) => l.erpKey === 'P-4')?.reason).toMatch(/products are never created without `products_price` above 0 \(got "0\.00"\): the shop would create it active at price 0/);
    expect(letters.find((l) => l.erpKey === 'P-2')?.reason).toMatch(/\(got none\).*add `allow: \[zero_price\]` to the mapping file/);

    // P-1 loses its price in the ERP: an update leaves the shop's price alone, it is not refused.
    rows([['P-1', null, '2026-01-02']]);
    const update = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: source() });
    expect(update.counts).toMatchObject({ deadLettered: 0 });
    expect((await models())['P-1']).toBe(9.9);
  });

  it('is created when the mapping says free articles are intended (allow: [zero_price]) or creates it inactive', async () => {
    rows([['F-1', null, '2026-01-01']]);
    const allow = await mappingFile(f.dir, 'free.yaml', PRODUCT_MAPPING.replace('key: sku', 'key: sku\nallow: [zero_price]'));
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping: allow, source: source() })).counts).toMatchObject({ created: 1, deadLettered: 0 });
    rows([['I-1', null, '2026-01-02']]);
    const inactive = await mappingFile(f.dir, 'inactive.yaml', PRODUCT_MAPPING.replace('products_status: { value: 1 }', 'products_status: { value: 0 }'));
    expect((await runPipeline({ ...def, name: 'inactive' }, { state: f.state, shop: f.shop, mapping: inactive, source: source() })).counts).toMatchObject({ deadLettered: 0 });
    expect(Object.keys(await models()).sort()).toEqual(['F-1', 'I-1']);
  });

  it('names an unknown allow: word with the nearest known one', async () => {
    await expect(mappingFile(f.dir, 'typo.yaml', PRODUCT_MAPPING.replace('key: sku', 'key: sku\nallow: [zero_prices]'))).rejects.toThrow(/`allow: zero_prices` means nothing for products; did you mean `zero_price`\?/);
  });
});
