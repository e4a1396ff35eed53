import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

// The shipped stock mapping against the sandbox, fed like the demo: article rows with their Lagerbestand child rows.
const STOCK_SOURCE = {
  query: 'SELECT ARTNR, Bestand, Mindestbestand, Meldebestand, Geaendert FROM artikel',
  cursor: 'Geaendert',
  key: 'ARTNR',
  children: [{ field: 'Lagerbestand', query: 'SELECT * FROM lagerbestand WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' }],
};
const def = { name: 'stock', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bestand TEXT, Mindestbestand TEXT, Meldebestand TEXT, Geaendert TEXT NOT NULL);
              CREATE TABLE lagerbestand (ARTNR TEXT NOT NULL, Lager TEXT NOT NULL, Bestand TEXT, Mindestbestand TEXT, Lagerplatz TEXT, PRIMARY KEY (ARTNR, Lager))`);
  const created = await f.shop.create('products', [
    { products_model: 'ART-1', products_price: '10.00', products_quantity: 30, languages: { de: { products_name: 'Artikel' } }, storages: [{ storages_id: 1, products_quantity: 12, products_safe_quantity: 2 }] },
  ]);
  expect(created.outcomes[0]!.error).toBeUndefined();
});
afterEach(async () => {
  await f.close();
});

async function warehouse(storagesId: number): Promise<Record<string, unknown> | undefined> {
  for await (const p of f.shop.exportAll('products')) {
    if (p.products_model === 'ART-1') return (p.storages as Record<string, unknown>[]).find((s) => s.storages_id === storagesId);
  }
  return undefined;
}

describe('shipped stock mapping', () => {
  it('never turns an empty warehouse stock cell into stock 0: the article is refused and the shop keeps its figure', async () => {
    const mapping = await loadMapping(path.resolve('mappings/stock.yaml'));
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?)').run('ART-1', '25', '2', '4', '2026-01-01 00:00:00');
    f.erp.prepare('INSERT INTO lagerbestand VALUES (?, ?, ?, ?, ?)').run('ART-1', '1', null, '3', 'A-01');
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) });
    expect(summary.counts).toMatchObject({ deadLettered: 1, updated: 0 });
    expect((await f.state.deadLetters.list({ pipeline: 'stock' }))[0]).toMatchObject({ erpKey: 'ART-1', code: 'MAPPING_REQUIRED' });
    expect(Number((await warehouse(1))!.products_quantity)).toBe(12);
  });

  it('reads German decimals of every warehouse as such: 50,5 is 50.5 and 1.234 is 1234', async () => {
    const mapping = await loadMapping(path.resolve('mappings/stock.yaml'));
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?)').run('ART-1', '1.234', '2', '4', '2026-01-01 00:00:00');
    f.erp.prepare('INSERT INTO lagerbestand VALUES (?, ?, ?, ?, ?)').run('ART-1', '1', '50,5', '3', 'A-01');
    f.erp.prepare('INSERT INTO lagerbestand VALUES (?, ?, ?, ?, ?)').run('ART-1', '2', '-3', '0', 'S-01');
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) });
    expect(summary.counts).toMatchObject({ updated: 1, deadLettered: 0 });
    expect(Number((await warehouse(1))!.products_quantity)).toBe(50.5);
    expect(Number((await warehouse(3))!.products_quantity)).toBe(-3);
    const product = (await f.shop.exportOne('products', 1))!;
    expect(Number(product.products_quantity)).toBe(1234);
  });
});
