/**
 * Sizes are bounded on the way to the shop and into the state (issue 29 item 7): a text field
 * larger than the limit (1 MiB unless `shop.maxFieldBytes` says otherwise) fails that one record
 * with GUARD_FIELD_TOO_LARGE while the rest of the run is delivered, and what the state's events
 * keep of a long value is its start with a "(truncated, N bytes)" marker, not megabytes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { loadMapping } from '../../src/mapping/index.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, sqliteSource, type PushFixture } from './support.js';
import { join } from 'node:path';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

const insert = (rows: [sku: string, name: string][]) => {
  const stmt = f.erp.prepare('INSERT OR REPLACE INTO products (sku, name, price, qty, updated_at) VALUES (?, ?, ?, 1, ?)');
  for (const [sku, name] of rows) stmt.run(sku, name, '9.90', '2026-01-01 00:00:00');
};
const names = async () => Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [String(p.products_model), (p.languages as { de?: { products_name?: string } } | undefined)?.de?.products_name?.length]));

describe('a field larger than the limit', () => {
  it('fails only its own record with GUARD_FIELD_TOO_LARGE naming field and setting; the others are delivered', async () => {
    const big = 'N'.repeat(2 * 1024 * 1024);
    insert([['F-1', 'Erstes'], ['F-2', big], ['F-3', 'Drittes']]);
    const mapping = await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING);
    // The source's own bound on a row (maxRecordBytes, 1 MiB by default) would refuse the row first (SOURCE_RECORD_TOO_LARGE): raised here, so the field's bound on the way to the shop is what is shown.
    const source = sqliteSource(f.erpFile, { query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku', maxRecordBytes: 8 * 1024 * 1024 });
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source });

    expect(summary).toMatchObject({ status: 'partial', counts: { created: 2, deadLettered: 1 } });
    expect(await names()).toEqual({ 'F-1': 6, 'F-3': 7 });
    const [letter] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letter).toMatchObject({ erpKey: 'F-2', code: 'GUARD_FIELD_TOO_LARGE' });
    expect(letter?.reason).toMatch(/field `languages\.de\.products_name`: 2 MiB \(2097152 bytes\), more than the 1 MiB a field may carry to the shop.*shop\.maxFieldBytes/);
    // The reason quotes no value.
    expect(letter?.reason.length).toBeLessThan(1000);

    // What the state's event keeps of the refused record is bounded, the value cut with a marker.
    const [event] = (await f.state.events.list({ pipeline: def.name })).filter((e) => e.erpKey === 'F-2');
    expect(event).toMatchObject({ outcome: 'dead-lettered', error: { code: 'GUARD_FIELD_TOO_LARGE' } });
    const stored = JSON.stringify(event);
    expect(stored.length).toBeLessThan(64 * 1024);
    expect(stored).toMatch(/…\(truncated, 2097152 bytes\)/);
  });

  it('takes a larger limit from the mapping load options (shop.maxFieldBytes in the config)', async () => {
    insert([['G-1', 'x'.repeat(3000)]]);
    const file = join(f.dir, 'small.yaml');
    await mappingFile(f.dir, 'small', PRODUCT_MAPPING);
    const strict = await loadMapping(file, { maxFieldBytes: 2048 });
    const refused = await runPipeline(def, { state: f.state, shop: f.shop, mapping: strict, source: sqliteSource(f.erpFile) });
    expect(refused.counts).toMatchObject({ deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: def.name }))[0]).toMatchObject({ code: 'GUARD_FIELD_TOO_LARGE', reason: expect.stringMatching(/more than the 2 KiB/) });
  });
});

describe('a long value that is delivered', () => {
  it('reaches the shop whole, while the stored event keeps its start with the truncation marker', async () => {
    const long = 'L'.repeat(100_000);
    insert([['L-1', long]]);
    const mapping = await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) });
    expect(summary.counts).toMatchObject({ created: 1, deadLettered: 0 });
    expect(await names()).toEqual({ 'L-1': 100_000 });
    const [event] = await f.state.events.list({ pipeline: def.name });
    const name = (event?.payload as { languages: { de: { products_name: string } } }).languages.de.products_name;
    expect(name.length).toBeLessThan(10_000);
    expect(name).toMatch(/^L+…\(truncated, 100000 bytes\)$/);
  });
});
