import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { clientFor, mappingFile, pushFixture, setFaults, sqliteSource, type PushFixture } from './support.js';

// Stock movements: the ERP writes one row per change, so one article can come twice in one run, and the mapping says its rows are versions.
const STOCK_MAPPING = `
name: stock-moves
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
duplicates: latest
fields:
  products_model: sku
  languages.de.products_name: { value: Artikel }
  products_price: { value: "10.00" }
  products_quantity: { from: qty, type: decimal, locale: point }
`;
const MOVES_SOURCE = { query: 'SELECT * FROM moves ORDER BY updated_at', cursor: 'updated_at', key: 'sku' };
const MANUFACTURER_MAPPING = `
name: makers
direction: erp-to-shop
target: { resource: manufacturers, operation: upsert }
key: nr
duplicates: latest
fields:
  manufacturers_name: name
`;
const MAKERS_SOURCE = { query: 'SELECT * FROM makers ORDER BY updated_at', cursor: 'updated_at', key: 'nr' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE moves (id INTEGER PRIMARY KEY, sku TEXT NOT NULL, qty TEXT NOT NULL, updated_at TEXT NOT NULL);
              CREATE TABLE makers (id INTEGER PRIMARY KEY, nr TEXT NOT NULL, name TEXT NOT NULL, updated_at TEXT NOT NULL)`);
});
afterEach(async () => {
  await f.close();
});

async function quantity(model: string): Promise<unknown> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return p.products_quantity;
  return undefined;
}

describe('one ERP key read twice in one run', () => {
  it('leaves the later version in the shop when the earlier one needed a retry', async () => {
    const mapping = await mappingFile(f.dir, 'stock', STOCK_MAPPING);
    const def = { name: 'stock', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products', batchSize: 1, options: { concurrency: 2 } };
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '5', '2026-01-01 00:00:00');
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, MOVES_SOURCE) })).status).toBe('succeeded');
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '10', '2026-01-02 00:00:00');
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '7', '2026-01-03 00:00:00');
    // Every second request fails before it takes effect, starting with the run's first write; the client does not retry itself.
    const shop = clientFor(f.sandbox, { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    await setFaults(f.sandbox, { error_rate: 0.5 });
    await shop.exportOne('products', 1);
    const summary = await runPipeline(def, { state: f.state, shop, mapping, source: sqliteSource(f.erpFile, MOVES_SOURCE) });
    await setFaults(f.sandbox, { error_rate: 0 });
    await shop.close();
    expect(summary.status).toBe('succeeded');
    expect(Number(await quantity('ART-1'))).toBe(7);
    // And the state agrees with the shop: the next run with the ERP unchanged at 7 must not be skipped into a wrong shop value.
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, MOVES_SOURCE) })).status).toBe('succeeded');
    expect(Number(await quantity('ART-1'))).toBe(7);
  });

  it('sends a version that goes back to what the shop had before the run, after the version in between', async () => {
    const mapping = await mappingFile(f.dir, 'stock', STOCK_MAPPING);
    const def = { name: 'stock', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products', batchSize: 10 };
    const run = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, MOVES_SOURCE) });
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '5', '2026-01-01 00:00:00');
    await run();
    // 5 → 10 → 5 in one read: the last version equals what the shop had when the run read its state, but not what it has after 10.
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '10', '2026-01-02 00:00:00');
    f.erp.prepare('INSERT INTO moves (sku, qty, updated_at) VALUES (?, ?, ?)').run('ART-1', '5', '2026-01-03 00:00:00');
    expect((await run()).counts).toMatchObject({ read: 2, updated: 2, unchanged: 0 });
    expect(Number(await quantity('ART-1'))).toBe(5);
  });

  it('creates a record the shop does not de-duplicate once when its key comes twice in one run', async () => {
    const mapping = await mappingFile(f.dir, 'makers', MANUFACTURER_MAPPING);
    const def = { name: 'makers', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'makers.yaml', resource: 'manufacturers', batchSize: 1, options: { concurrency: 2 } };
    f.erp.prepare('INSERT INTO makers (nr, name, updated_at) VALUES (?, ?, ?)').run('H-1', 'Acme', '2026-01-01 00:00:00');
    f.erp.prepare('INSERT INTO makers (nr, name, updated_at) VALUES (?, ?, ?)').run('H-1', 'Acme GmbH', '2026-01-02 00:00:00');
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, MAKERS_SOURCE) });
    expect(summary.status).toBe('succeeded');
    const names: unknown[] = [];
    for await (const m of f.shop.exportAll('manufacturers')) names.push(m.manufacturers_name);
    expect(names).toEqual(['Acme GmbH']);
  });
});
