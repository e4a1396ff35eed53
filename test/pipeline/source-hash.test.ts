/**
 * A record read again exactly as it was is unchanged without being mapped again (source hashes),
 * and everything that could make the same row map to a different payload still maps it: another
 * mapping file, a reference looked up, a reference or hash the state no longer holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping, MappingResult } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 10 };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

/** The mapping with a count of the records it mapped. */
function counted(mapping: CompiledMapping): { mapping: CompiledMapping; mapped: () => number } {
  let n = 0;
  const applySync = mapping.applySync!;
  return {
    mapping: {
      ...mapping,
      applySync: (record, ctx): MappingResult => {
        n++;
        return applySync(record, ctx);
      },
    },
    mapped: () => n,
  };
}

const run = (mapping: CompiledMapping) => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) });

describe('source hashes', () => {
  it('settles rows read again exactly as they were as unchanged without mapping them, and maps a changed row', async () => {
    const m = counted(await mappingFile(f.dir, 'products', PRODUCT_MAPPING));
    upsertProducts(f.erp, 1, 20);
    await run(m.mapping);
    expect(m.mapped()).toBe(20);
    await f.state.cursors.delete('products');
    upsertProducts(f.erp, 7, 7, 2);
    const again = await run(m.mapping);
    expect(again.counts).toMatchObject({ read: 20, unchanged: 19, updated: 1, requests: 1 });
    expect(m.mapped()).toBe(21);
  });

  it('maps every row again under another mapping file, and skips them again on the run after', async () => {
    upsertProducts(f.erp, 1, 10);
    await run(await mappingFile(f.dir, 'products', PRODUCT_MAPPING));
    // The same rules with a comment: the payloads stay the same, so nothing is sent, but nothing is skipped blind either.
    const edited = counted(await mappingFile(f.dir, 'products', `${PRODUCT_MAPPING}# reviewed\n`));
    await f.state.cursors.delete('products');
    expect((await run(edited.mapping)).counts).toMatchObject({ unchanged: 10, requests: 0 });
    expect(edited.mapped()).toBe(10);
    await f.state.cursors.delete('products');
    expect((await run(edited.mapping)).counts).toMatchObject({ unchanged: 10, requests: 0 });
    expect(edited.mapped()).toBe(10);
    // A rule that changes the payload: every product is updated although no ERP row changed.
    const status = await mappingFile(f.dir, 'products', PRODUCT_MAPPING.replace('products_status: { value: 1 }', 'products_status: { value: 0 }'));
    await f.state.cursors.delete('products');
    expect((await run(status)).counts).toMatchObject({ read: 10, updated: 10, unchanged: 0 });
    expect((await shopRecords(f.shop, 'products')).every((p) => p.products_status === 0)).toBe(true);
  });

  it('maps a row whose reference lookup answers differently now, although the row did not change', async () => {
    f.erp.exec('ALTER TABLE products ADD COLUMN maker TEXT');
    upsertProducts(f.erp, 1, 5);
    f.erp.exec("UPDATE products SET maker = 'H-1'");
    const mapping = await mappingFile(f.dir, 'products', `${PRODUCT_MAPPING}  manufacturers_id: { from: maker, lookup: { reference: manufacturers } }\n`);
    await f.state.write((tx) => tx.refs.put('manufacturers', 'H-1', 5));
    await run(mapping);
    expect((await shopRecords(f.shop, 'products')).map((p) => p.manufacturers_id)).toEqual([5, 5, 5, 5, 5]);
    // The manufacturer was created anew in the shop: same ERP rows, another shop id to send.
    await f.state.write((tx) => tx.refs.put('manufacturers', 'H-1', 6));
    await f.state.cursors.delete('products');
    expect((await run(mapping)).counts).toMatchObject({ read: 5, updated: 5, unchanged: 0 });
    expect((await shopRecords(f.shop, 'products')).map((p) => p.manufacturers_id)).toEqual([6, 6, 6, 6, 6]);
  });

  it('maps a row whose reference the state lost, and a row stored before source hashes, then skips them again', async () => {
    const m = counted(await mappingFile(f.dir, 'products', PRODUCT_MAPPING));
    upsertProducts(f.erp, 1, 10);
    await run(m.mapping);
    const hash = await f.state.hashes.get('products', 'products', sku(4));
    await f.state.write((tx) => {
      tx.refs.delete('products', sku(3));
      // As a row written by an earlier shopsync: a payload hash without a source hash.
      tx.hashes.put('products', 'products', sku(4), hash!);
    });
    await f.state.cursors.delete('products');
    const again = await run(m.mapping);
    // sku 3: no reference, so it is created again by its products_model (the shop says it exists: an update).
    expect(again.counts).toMatchObject({ read: 10, unchanged: 9, updated: 1 });
    expect(m.mapped()).toBe(12);
    expect(await shopRecords(f.shop, 'products')).toHaveLength(10);
    await f.state.cursors.delete('products');
    expect((await run(m.mapping)).counts).toMatchObject({ unchanged: 10, requests: 0 });
    expect(m.mapped()).toBe(12);
  });
});
