import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Source, SourceItem } from '../../src/erp/types.js';
import { AbortedError } from '../../src/errors.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { previewLimit, previewPipeline, runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { stateSnapshot } from '../support/untouched.js';
import { mappingFile, pushFixture, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

// No locale on the price and a cut name: the guard rails and the mapping have something to say.
const MAPPING = `
name: preview-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
fields:
  products_model: sku
  products_price: { from: price, type: decimal }
  products_quantity: { from: qty, type: integer }
  languages.de.products_name: { from: name, truncate: 14 }
`;

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'p', MAPPING);
});
afterEach(async () => {
  await f.close();
});
const deps = (extra: Partial<Parameters<typeof runPipeline>[1]> = {}) => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile), ...extra });
const snapshot = () => stateSnapshot(f.state, ['products'], ['products']);

describe('previewPipeline', () => {
  it('names a column the mapping reads and the source does not have, with the nearest one, instead of previewing empty values', async () => {
    upsertProducts(f.erp, 1, 3);
    const typo = await mappingFile(f.dir, 'typo', MAPPING.replace('from: price,', 'from: prize,'));
    const preview = await previewPipeline(def, deps({ mapping: typo }));
    expect(preview.records).toEqual([]);
    expect(preview.error).toMatchObject({ code: 'MAPPING_SOURCE_COLUMN_MISSING' });
    expect(preview.error?.message).toMatch(/fields\.products_price reads `prize`, but the sqlite source has no column `prize`; did you mean `price`\?/);
  });

  it('shows the next N records after the cursor beside their payload, diff against the shop and findings, and writes nothing', async () => {
    upsertProducts(f.erp, 1, 3);
    const first = await runPipeline(def, deps());
    expect(first.counts.created).toBe(3);
    const at = '2026-01-02 00:00:00';
    upsertProducts(f.erp, 2, 2, 2, at);
    upsertProducts(f.erp, 4, 6, 1, at);
    f.erp.prepare('UPDATE products SET price = ?, qty = ? WHERE sku = ?').run('1.234', 'many', sku(5));
    const before = await snapshot();
    const events = new SyncEvents();
    const heard: string[] = [];
    events.onAny((e) => heard.push(e.type));

    const preview = await previewPipeline(def, deps({ events }), { limit: 4 });

    expect(preview.error).toBeUndefined();
    expect(preview.after).toEqual({ value: '2026-01-01 00:00:00', key: sku(3) });
    expect(preview.records.map((r) => [r.erpKey, r.action])).toEqual([[sku(2), 'update'], [sku(4), 'create'], [sku(5), 'fail'], [sku(6), 'create']]);
    expect(preview.more).toBe(false);
    const [update, create, refused] = preview.records;
    expect(update!.source).toMatchObject({ sku: sku(2), name: 'Product 2 v2', price: '12.02' });
    expect(update!.shopId).toBe((await f.state.refs.get('products', sku(2)))!.shopId);
    expect(update!.diff).toEqual({ products_price: { shop: 12.01, next: '12.02' }, 'languages.de.products_name': { shop: 'Product 2 v1', next: 'Product 2 v2' } });
    expect(create!.payload).toMatchObject({ products_model: sku(4), products_price: '14.01' });
    expect(refused!.source).toMatchObject({ sku: sku(5), price: '1.234', qty: 'many' });
    expect(refused!.errors?.map((e) => [e.code, e.field])).toEqual([['GUARD_AMBIGUOUS_DECIMAL', 'products_price'], ['MAPPING_DECIMAL', 'products_quantity']]);
    expect(refused!.errors?.[0]?.message).toMatch(/`1\.234` is ambiguous/);
    // No run is counted: a preview is nobody's run.
    expect(heard).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await shopRecords(f.shop, 'products')).map((p) => p.products_price).sort()).toEqual([11.01, 12.01, 13.01]);
  });

  it('reads no more than N records and says when more follow', async () => {
    upsertProducts(f.erp, 1, 30);
    f.erp.prepare('UPDATE products SET name = ? WHERE sku = ?').run('Product 1, the long name', sku(1));
    const preview = await previewPipeline(def, deps(), { limit: 5 });
    expect(preview.records.map((r) => r.erpKey)).toEqual([1, 2, 3, 4, 5].map(sku));
    expect(preview.more).toBe(true);
    expect(preview.after).toBeUndefined();
    expect(preview.records[0]!.warnings).toEqual([{ code: 'TRUNCATED', field: 'languages.de.products_name', message: 'cut from 24 to 14 characters as the mapping declares' }]);
    const all = await previewPipeline(def, deps(), { limit: 30 });
    expect([all.records.length, all.more]).toEqual([30, false]);
  });

  it('shows an unchanged record as a skip with its payload', async () => {
    upsertProducts(f.erp, 1, 1);
    await runPipeline(def, deps());
    // Read from the start again: the one record is what the shop got last time.
    await f.state.cursors.delete('products');
    const preview = await previewPipeline(def, deps());
    expect(preview.records).toMatchObject([{ erpKey: sku(1), action: 'skip', payload: { products_model: sku(1) } }]);
  });

  it('reports a source that cannot be read as an error with its code, and writes nothing', async () => {
    const before = await snapshot();
    const preview = await previewPipeline(def, deps({ source: sqliteSource(f.erpFile, { query: 'SELECT * FROM artikel', cursor: 'updated_at', key: 'sku' }) }));
    expect(preview.records).toEqual([]);
    expect(preview.error?.code).toMatch(/^[A-Z_]+$/);
    expect(preview.error?.message).toMatch(/artikel/);
    expect(await snapshot()).toEqual(before);
  });

  it('stops at the time limit and shows what it read; gives up on a source that ignores the stop', async () => {
    const item = (n: number): SourceItem => ({ record: { sku: sku(n), name: `P${n}`, price: '1.50', qty: 1 }, key: sku(n), position: { value: 'x', key: sku(n) } });
    const polite: Source = {
      kind: 'test',
      async *read(options) {
        yield item(1);
        yield item(2);
        await new Promise((resolve) => options.signal?.addEventListener('abort', resolve, { once: true }));
        throw new AbortedError();
      },
      close: async () => undefined,
    };
    const stopped = await previewPipeline(def, deps({ source: polite }), { timeoutMs: 200 });
    expect(stopped).toMatchObject({ stopped: 'timeout', more: false });
    expect(stopped.records.map((r) => r.erpKey)).toEqual([sku(1), sku(2)]);

    const deaf: Source = {
      kind: 'test',
      async *read() {
        yield item(1);
        await new Promise(() => undefined);
      },
      close: async () => undefined,
    };
    const abandoned = await previewPipeline(def, deps({ source: deaf }), { timeoutMs: 100 });
    expect(abandoned.error?.code).toBe('PREVIEW_TIMEOUT');
  }, 15_000);

  it('refuses a pull pipeline with a pointer to the dry run', async () => {
    await expect(previewPipeline({ ...def, direction: 'pull', source: undefined, sink: { connection: 'erp' } }, deps())).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(/is a pull.*--dry-run/) });
  });
});

describe('previewLimit', () => {
  it('takes a count from 1 to 50 and falls back to 10 for anything that is not a count', () => {
    expect([previewLimit('7'), previewLimit('0'), previewLimit('500'), previewLimit('abc'), previewLimit(undefined), previewLimit('-3'), previewLimit('2.5')]).toEqual([7, 1, 50, 10, 10, 10, 10]);
  });
});
