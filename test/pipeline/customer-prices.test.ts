import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, sqliteSource, type PushFixture } from './support.js';

// Customer-specific prices maintained as a complete list per article in the ERP.
const MAPPING = `
name: customer-prices
direction: erp-to-shop
target: { resource: products, operation: update }
key: ARTNR
shop_key: products_model
locale: de
fields:
  products_model: ARTNR
  customers_prices_replace: { value: true }
  customers_prices:
    each: Preise
    fields:
      customers_id_extern: KDNR
      customers_price: { from: Preis, type: decimal }
`;
const SOURCE = {
  query: 'SELECT * FROM artikel',
  cursor: 'Geaendert',
  key: 'ARTNR',
  children: [{ field: 'Preise', query: 'SELECT * FROM kundenpreise WHERE ARTNR IN (:keys) ORDER BY KDNR', parentKey: 'ARTNR' }],
};
const def = { name: 'customer-prices', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'cp.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Geaendert TEXT NOT NULL);
              CREATE TABLE kundenpreise (ARTNR TEXT NOT NULL, KDNR TEXT NOT NULL, Preis TEXT, PRIMARY KEY (ARTNR, KDNR))`);
  for (const extern of ['K-1', 'K-2']) {
    const c = await f.shop.create('customers', [{ customers_email_address: `${extern.toLowerCase()}@example.com`, customers_id_extern: extern, customers_firstname: 'A', customers_lastname: extern, addresses: [{ entry_firstname: 'A', entry_lastname: extern, entry_street_address: 'Hauptstr. 1', entry_postcode: '10115', entry_city: 'Berlin', entry_country: 'DE' }] }]);
    expect(c.outcomes[0]!.error).toBeUndefined();
  }
  const p = await f.shop.create('products', [{ products_model: 'ART-1', products_price: '20.00', languages: { de: { products_name: 'Artikel' } }, customers_prices: [{ customers_id_extern: 'K-1', customers_price: '12.50' }, { customers_id_extern: 'K-2', customers_price: '15.00' }] }]);
  expect(p.outcomes[0]!.error).toBeUndefined();
});
afterEach(async () => {
  await f.close();
});

async function prices(): Promise<Record<string, number>> {
  const product = (await f.shop.exportOne('products', 1))!;
  return Object.fromEntries((product.customers_prices as { customers_id_extern: string; customers_price: unknown }[]).map((p) => [p.customers_id_extern, Number(p.customers_price)]));
}

describe('customer prices replaced as a whole list', () => {
  it('refuses an article whose list has an empty price cell instead of resetting that customer to the list price', async () => {
    expect(await prices()).toEqual({ 'K-1': 12.5, 'K-2': 15 });
    const mapping = await mappingFile(f.dir, 'cp', MAPPING);
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?)').run('ART-1', '2026-01-01 00:00:00');
    f.erp.prepare('INSERT INTO kundenpreise VALUES (?, ?, ?)').run('ART-1', 'K-1', '11,90');
    f.erp.prepare('INSERT INTO kundenpreise VALUES (?, ?, ?)').run('ART-1', 'K-2', null);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) });
    expect(summary.counts).toMatchObject({ deadLettered: 1, updated: 0 });
    expect((await f.state.deadLetters.list({ pipeline: def.name }))[0]).toMatchObject({ erpKey: 'ART-1', code: 'GUARD_REPLACE_ENTRY_DEFAULT' });
    expect(await prices()).toEqual({ 'K-1': 12.5, 'K-2': 15 });

    // The ERP fills the cell: the whole list goes out.
    f.erp.prepare('UPDATE kundenpreise SET Preis = ? WHERE KDNR = ?').run('14,00', 'K-2');
    f.erp.prepare('UPDATE artikel SET Geaendert = ?').run('2026-01-02 00:00:00');
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) })).counts).toMatchObject({ updated: 1 });
    expect(await prices()).toEqual({ 'K-1': 11.9, 'K-2': 14 });
  });
});
