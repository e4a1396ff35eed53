import path, { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

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
});
afterEach(async () => {
  await f.close();
});

describe('stock of an article the shop does not have yet', () => {
  it('is kept as a dead letter with its reason and delivered by a later run once the article exists, without a manual retry', async () => {
    const mapping = await loadMapping(path.resolve('mappings/stock.yaml'));
    f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?)').run('ART-NEW', '25', '2', '4', '2026-01-01 00:00:00');
    const first = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) });
    expect(first).toMatchObject({ status: 'partial', counts: { deadLettered: 1 } });
    expect((await f.state.deadLetters.list({ pipeline: 'stock' }))[0]).toMatchObject({ erpKey: 'ART-NEW', code: 'NOT_FOUND' });

    // Still missing: the next run tries again and keeps the letter.
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) })).counts).toMatchObject({ deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: 'stock' }))[0]).toMatchObject({ attempts: 2 });

    // The products pipeline creates the article (quantity 0); the ERP's stock row has not changed since.
    await f.shop.create('products', [{ products_model: 'ART-NEW', products_price: '10.00', languages: { de: { products_name: 'Neu' } } }]);
    // Failed twice, the letter waits a minute before a sync tries it again (src/pipeline/waitingLetters.ts): let it pass.
    const state = new Database(join(f.dir, 'state.db'));
    state.prepare('UPDATE dead_letters SET last_failed_at = ?').run(Date.now() - 60_000);
    state.close();
    const third = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) });
    expect(third).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect(await f.state.deadLetters.list({ pipeline: 'stock' })).toHaveLength(0);
    expect(Number((await f.shop.exportOne('products', 1))!.products_quantity)).toBe(25);
  });
});
