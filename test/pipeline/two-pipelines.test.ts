import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

// The shipped products and stock mappings over one ERP article table: two pipelines writing different parts of one product.
const PRODUCTS = { query: 'SELECT * FROM artikel', cursor: 'Geaendert', key: 'ARTNR' };
const STOCK = { query: 'SELECT ARTNR, Bestand, Lager_Geaendert FROM artikel', cursor: 'Lager_Geaendert', key: 'ARTNR' };
const products = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };
const stock = { name: 'stock', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bezeichnung TEXT, VK_Netto TEXT, Bestand TEXT, Geaendert TEXT NOT NULL, Lager_Geaendert TEXT NOT NULL)`);
  f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?, ?)').run('ART-1', 'Hammer', '9,90', '25', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
});
afterEach(async () => {
  await f.close();
});

const run = async (def: typeof products, source: typeof PRODUCTS) => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings', def.mapping)), source: sqliteSource(f.erpFile, source) });
const shopProduct = async () => (await f.shop.exportOne('products', (await f.state.refs.get('products', 'ART-1'))!.shopId))!;

describe('two pipelines writing one product', () => {
  it('never lets one pipeline mask or undo the other: hashes are per pipeline, the reference is shared', async () => {
    expect((await run(products, PRODUCTS)).counts).toMatchObject({ created: 1 });
    expect((await run(stock, STOCK)).counts).toMatchObject({ updated: 1 });
    expect(Number((await shopProduct()).products_quantity)).toBe(25);

    // Stock moves to 30, then the article's name changes: each pipeline sends its part, neither undoes the other.
    f.erp.prepare("UPDATE artikel SET Bestand = '30', Lager_Geaendert = '2026-01-02 00:00:00'").run();
    expect((await run(stock, STOCK)).counts).toMatchObject({ updated: 1 });
    f.erp.prepare("UPDATE artikel SET Bezeichnung = 'Hammer XL', Geaendert = '2026-01-03 00:00:00'").run();
    expect((await run(products, PRODUCTS)).counts).toMatchObject({ updated: 1 });
    let p = await shopProduct();
    expect([Number(p.products_quantity), (p.languages as { de: { products_name: string } }).de.products_name]).toEqual([30, 'Hammer XL']);

    // Back to 25: the stock pipeline compares with its own last payload (30), not the products pipeline's, and sends it.
    f.erp.prepare("UPDATE artikel SET Bestand = '25', Lager_Geaendert = '2026-01-04 00:00:00'").run();
    expect((await run(stock, STOCK)).counts).toMatchObject({ updated: 1 });
    p = await shopProduct();
    expect(Number(p.products_quantity)).toBe(25);
    expect(await f.state.refs.count('products')).toBe(1);
  });
});
