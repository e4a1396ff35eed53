/**
 * Moving an installation to PostgreSQL: after `state copy` from the SQLite state a push has used,
 * the next run on the PostgreSQL state sends no request for unchanged data (hashes moved), updates a
 * changed product by the reference the SQLite state learnt, and continues from the copied cursor.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { copyState } from '../../src/state/copy.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { BACKENDS, postgresAvailable } from '../state/backends.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 25 };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
});
afterEach(async () => {
  await f.close();
});

describe.skipIf(!postgresAvailable)('a push after state copy from SQLite to PostgreSQL', () => {
  it('sends nothing for unchanged products, updates a changed one by its copied reference, and reads on from the copied cursor', async () => {
    upsertProducts(f.erp, 1, 40);
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) })).counts).toMatchObject({ created: 40 });

    const target = await BACKENDS.postgres.open();
    await copyState(f.state, target);
    const deps = { state: target, shop: f.shop, mapping, source: sqliteSource(f.erpFile) };

    // The copied cursor: nothing new in the ERP, nothing read.
    expect((await runPipeline(def, deps)).counts).toMatchObject({ read: 0, requests: 0 });

    // Every article touched, one changed: the copied hashes leave 39 alone, the copied reference addresses the 40th.
    upsertProducts(f.erp, 1, 40, 1, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 7, 7, 2, '2026-01-02 00:00:00');
    const summary = await runPipeline(def, deps);
    expect(summary).toMatchObject({ status: 'succeeded', counts: { read: 40, unchanged: 39, updated: 1, created: 0, requests: 1 } });
    const shop = await shopRecords(f.shop, 'products');
    expect(shop).toHaveLength(40);
    const p7 = shop.find((p) => p.products_model === sku(7));
    expect(p7?.products_id).toBe((await f.state.refs.get('products', sku(7)))?.shopId);
    expect((p7?.languages as Record<string, { products_name: string }>).de.products_name).toBe('Product 7 v2');
  });
});
