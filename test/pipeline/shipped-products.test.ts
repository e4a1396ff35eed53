import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

// The shipped products mapping, fed like the demo: article rows with their price rows (Preise).
const SOURCE = {
  query: 'SELECT * FROM artikel',
  cursor: 'Geaendert',
  key: 'ARTNR',
  children: [{ field: 'Preise', query: 'SELECT * FROM artikel_preise WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' }],
};
const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bezeichnung TEXT, VK_Netto TEXT, Warengruppen TEXT, LieferantNr TEXT, Lief_ArtNr TEXT, Geaendert TEXT NOT NULL);
              CREATE TABLE artikel_preise (ARTNR TEXT NOT NULL, Preisgruppe TEXT NOT NULL, AbMenge TEXT NOT NULL, Preis_Netto TEXT)`);
  const s = await f.shop.create('suppliers', [{ suppliers_name: 'L1' }]);
  expect(s.outcomes[0]!.data!.suppliers_id).toBe(1);
  const p = await f.shop.create('products', [{ products_model: 'ART-1', products_price: '20.00', languages: { de: { products_name: 'Artikel' } }, suppliers: [{ suppliers_id: 1, products_model: 'LIEF-77' }] }]);
  expect(p.outcomes[0]!.error).toBeUndefined();
});
afterEach(async () => {
  await f.close();
});

const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/products.yaml')), source: sqliteSource(f.erpFile, SOURCE) });
const product = async () => (await f.shop.exportOne('products', 1))!;

describe('shipped products mapping: empty cells never erase shop data', () => {
  it('refuses a merchant price row with an empty price instead of creating the group price as 0', async () => {
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?, ?, ?)').run('ART-1', 'Artikel', '20,00', null, null, null, '2026-01-01 00:00:00');
    f.erp.prepare('INSERT INTO artikel_preise VALUES (?, ?, ?, ?)').run('ART-1', 'HAE', '1', null);
    expect((await run()).counts).toMatchObject({ deadLettered: 1, updated: 0, created: 0 });
    expect((await f.state.deadLetters.list({ pipeline: 'products' }))[0]).toMatchObject({ code: 'MAPPING_REQUIRED' });
    expect(((await product()).groups as { customers_group_id: number }[] | undefined)?.filter((g) => g.customers_group_id === 3) ?? []).toEqual([]);
  });

  it('keeps the supplier number and the categories when the article row leaves them empty', async () => {
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?, ?, ?)').run('ART-1', 'Artikel neu', '21,00', '', null, null, '2026-01-01 00:00:00');
    expect((await run()).counts).toMatchObject({ updated: 1 });
    const p = await product();
    expect(p.suppliers).toEqual([expect.objectContaining({ suppliers_id: 1, products_model: 'LIEF-77' })]);

    // A supplier named without its article number would erase LIEF-77: refused.
    f.erp.prepare("UPDATE artikel SET LieferantNr = 'L-01', Lief_ArtNr = '', Geaendert = '2026-01-02 00:00:00'").run();
    expect((await run()).counts).toMatchObject({ deadLettered: 1 });
    expect((await product()).suppliers).toEqual([expect.objectContaining({ suppliers_id: 1, products_model: 'LIEF-77' })]);
  });
});
