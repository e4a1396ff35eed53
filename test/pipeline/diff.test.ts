import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { payloadDiff } from '../../src/pipeline/diff.js';
import { clearedAlike, getResource } from '../../src/shop/registry/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

const lists = getResource('products').lists;

describe('dry-run diff of cleared fields', () => {
  const products = getResource('products');
  const alike = (path: string, shop: unknown, next: unknown) => clearedAlike(products, path, shop, next);

  it('counts an EAN or a description the export shows as null as cleared by \'\' (the registry\'s `reads`), and a held value as a difference', () => {
    const sent = { products_ean: '', languages: { de: { products_description: '' } } };
    expect(payloadDiff({ products_ean: null, languages: { de: { products_description: null } } }, sent, lists, '', alike)).toEqual({});
    expect(payloadDiff({ products_ean: '4006381333931', languages: { de: { products_description: 'Alt' } } }, sent, lists, '', alike)).toEqual({
      products_ean: { shop: '4006381333931', next: '' },
      'languages.de.products_description': { shop: 'Alt', next: '' },
    });
    // Without the registry's word a null is no empty text.
    expect(payloadDiff({ products_ean: null }, { products_ean: '' }, lists)).toEqual({ products_ean: { shop: null, next: '' } });
  });
});

describe('dry-run diff of list fields', () => {
  it('matches upsert entries by their entry key and compares only the fields the entry sends', () => {
    const shop = { groups: [
      { customers_group_id: 4, customers_group_price: 18, customers_group_price_gross: 21.42 },
      { customers_group_id: 3, customers_group_price: 15.5, customers_group_price_gross: 18.45 },
    ] };
    expect(payloadDiff(shop, { groups: [{ customers_group_id: 3, customers_group_price: '15.50' }, { customers_group_id: 4, customers_group_price: '18.00' }] }, lists)).toEqual({});
    expect(payloadDiff(shop, { groups: [{ customers_group_id: 3, customers_group_price: '16.00' }] }, lists)).toEqual({ 'groups[0].customers_group_price': { shop: 15.5, next: '16.00' } });
    expect(payloadDiff(shop, { groups: [{ customers_group_id: 5, customers_group_price: '9.00' }] }, lists)).toEqual({ 'groups[0]': { shop: undefined, next: { customers_group_id: 5, customers_group_price: '9.00' } } });
  });

  it('ignores export-only fields of replace-list entries and the order of a replace list of scalars', () => {
    const shop = { suppliers: [{ suppliers_id: 1, suppliers_name: 'L1', products_model: 'LIEF-77' }], categories: [5, 2] };
    expect(payloadDiff(shop, { suppliers: [{ suppliers_id: 1, products_model: 'LIEF-77' }], categories: [2, 5] }, lists)).toEqual({});
    expect(payloadDiff(shop, { categories: [2] }, lists)).toEqual({ categories: { shop: [5, 2], next: [2] } });
    expect(payloadDiff(shop, { suppliers: [{ suppliers_id: 1, products_model: 'LIEF-78' }] }, lists)).toEqual({ 'suppliers[0].products_model': { shop: 'LIEF-77', next: 'LIEF-78' } });
  });

  it('shows a delete marker only when it matches a stored entry, and entries a replace flag would remove', () => {
    const shop = { customers_prices: [{ customers_id: 7, customers_id_extern: 'K-7', customers_price: 9 }, { customers_id: 8, customers_id_extern: 'K-8', customers_price: 8 }] };
    expect(payloadDiff(shop, { customers_prices: [{ customers_id_extern: 'K-9', _action: 'delete' }] }, lists)).toEqual({});
    expect(Object.keys(payloadDiff(shop, { customers_prices: [{ customers_id_extern: 'K-8', _action: 'delete' }] }, lists))).toEqual(['customers_prices[0]']);
    expect(payloadDiff(shop, { customers_prices: [{ customers_id_extern: 'K-7', customers_price: '9.00' }] }, lists)).toEqual({});
    expect(payloadDiff(shop, { customers_prices_replace: true, customers_prices: [{ customers_id_extern: 'K-7', customers_price: '9.00' }] }, lists)).toEqual({
      'customers_prices[removed]': { shop: [shop.customers_prices[1]], next: undefined },
    });
  });
});

describe('dry run of the shipped products mapping against the sandbox', () => {
  let f: PushFixture;
  beforeEach(async () => {
    f = await pushFixture();
    f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bezeichnung TEXT, VK_Netto TEXT, Warengruppen TEXT, LieferantNr TEXT, Lief_ArtNr TEXT, Geaendert TEXT NOT NULL);
                CREATE TABLE artikel_preise (ARTNR TEXT NOT NULL, Preisgruppe TEXT NOT NULL, AbMenge TEXT NOT NULL, Preis_Netto TEXT)`);
    expect((await f.shop.create('suppliers', [{ suppliers_name: 'L1' }, { suppliers_name: 'L2' }])).outcomes.every((o) => o.ok)).toBe(true);
  });
  afterEach(async () => {
    await f.close();
  });

  it('shows no changes for a product the shop already holds as the ERP has it', async () => {
    const created = await f.shop.create('products', [{
      products_model: 'ART-1', products_price: '20.00', languages: { de: { products_name: 'Artikel' } },
      suppliers: [{ suppliers_id: 2, products_model: 'LIEF-77' }],
      groups: [{ customers_group_id: 4, customers_group_price: '17.00' }, { customers_group_id: 3, customers_group_price: '18.00', products_price1: '16.50', products_price1_qty: 10 }],
    }]);
    expect(created.outcomes[0]!.error).toBeUndefined();
    await f.state.write((tx) => tx.refs.put('products', 'ART-1', created.outcomes[0]!.data!.products_id as number));
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?, ?, ?)').run('ART-1', 'Artikel', '20,00', null, 'L-02', 'LIEF-77', '2026-01-01 00:00:00');
    const prices = f.erp.prepare('INSERT INTO artikel_preise VALUES (?, ?, ?, ?)');
    prices.run('ART-1', 'HAE', '1', '18,00');
    prices.run('ART-1', 'HAE', '10', '16,50');
    prices.run('ART-1', 'EXP', '1', '17,00');
    const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };
    const source = { query: 'SELECT * FROM artikel', cursor: 'Geaendert', key: 'ARTNR', children: [{ field: 'Preise', query: 'SELECT * FROM artikel_preise WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' }] };
    const mapping = await loadMapping(path.resolve('mappings/products.yaml'));
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, source) }, { mode: 'dry-run' });
    expect(summary.plan).toHaveLength(1);
    const [planned] = summary.plan!;
    expect(planned).toMatchObject({ action: 'update', payload: { groups: expect.any(Array), suppliers: expect.any(Array) } });
    expect(planned!.diff).toEqual({});
  });
});
