import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { dropDeadLetters, retryDeadLetters, runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 20 };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
});
afterEach(async () => {
  await f.close();
});
const deps = (extra: Partial<Parameters<typeof runPipeline>[1]> = {}) => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile), ...extra });

describe('dry run', () => {
  it('shows create, update with the difference to the shop, and skip per record, and writes nothing', async () => {
    upsertProducts(f.erp, 1, 3);
    await runPipeline(def, deps());
    const stateBefore = { runs: (await f.state.runs.list()).length, events: (await f.state.events.list({ limit: 1000 })).length, cursor: await f.state.cursors.get('products') };
    upsertProducts(f.erp, 2, 2, 2, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 3, 3, 1, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 4, 4, 1, '2026-01-02 00:00:00');
    const summary = await runPipeline(def, deps(), { mode: 'dry-run' });
    expect(summary.runId).toBe(0);
    const byKey = Object.fromEntries(summary.plan!.map((p) => [p.erpKey, p]));
    expect(byKey[sku(4)]).toMatchObject({ action: 'create', payload: { products_model: sku(4) } });
    expect(byKey[sku(3)]).toMatchObject({ action: 'skip' });
    expect(byKey[sku(2)]).toMatchObject({ action: 'update', shopId: (await f.state.refs.get('products', sku(2)))!.shopId });
    expect(Object.keys(byKey[sku(2)]!.diff!).sort()).toEqual(['languages.de.products_name', 'products_price']);
    expect(byKey[sku(2)]!.diff!.products_price).toEqual({ shop: 12.01, next: '12.02' });
    expect(await shopRecords(f.shop, 'products')).toHaveLength(3);
    expect({ runs: (await f.state.runs.list()).length, events: (await f.state.events.list({ limit: 1000 })).length, cursor: await f.state.cursors.get('products') }).toEqual(stateBefore);
  });
});

describe('backfill', () => {
  it('pushes an explicit cursor range without moving the incremental cursor, and resumes after an interruption', async () => {
    upsertProducts(f.erp, 1, 40, 1, '2026-01-01 00:00:00');
    upsertProducts(f.erp, 41, 120, 1, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 121, 140, 1, '2026-01-03 00:00:00');
    const range = { from: '2026-01-02 00:00:00', to: '2026-01-02 23:59:59' };
    const controller = new AbortController();
    const events = new SyncEvents();
    let n = 0;
    events.on('record-settled', () => {
      if (++n === 30) controller.abort();
    });
    const first = await runPipeline({ ...def, options: { concurrency: 1 } }, deps({ events }), { mode: 'backfill', range, signal: controller.signal });
    expect(first.status).toBe('aborted');
    const partial = await f.state.refs.count('products');
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(80);
    const second = await runPipeline(def, deps(), { mode: 'backfill', range });
    expect(second.status).toBe('succeeded');
    expect(second.counts.read).toBeLessThan(80);
    const shop = (await shopRecords(f.shop, 'products')).map((p) => p.products_model).sort();
    expect(shop).toEqual(Array.from({ length: 80 }, (_, i) => sku(41 + i)));
    expect(await f.state.cursors.get('products')).toBeUndefined();
    expect((await f.state.cursors.get('products', 'backfill:2026-01-02 00:00:00..2026-01-02 23:59:59'))?.boundary).toEqual({ finished: true });
  });

  it('runs beside the incremental lane of the same pipeline', async () => {
    upsertProducts(f.erp, 1, 10);
    const incremental = await f.state.locks.acquire('products');
    const summary = await runPipeline(def, deps(), { mode: 'backfill', range: { from: '2026-01-01 00:00:00', to: '2026-01-01 00:00:00' } });
    await incremental.release();
    expect(summary.counts.created).toBe(10);
  });
});

describe('dead letters', () => {
  it('retries through the current mapping and removes the letters that now succeed', async () => {
    upsertProducts(f.erp, 1, 5);
    f.erp.prepare("UPDATE products SET price = '12,50' WHERE sku = ?").run(sku(3));
    const run = await runPipeline(def, deps());
    expect(run.counts.deadLettered).toBe(1);
    const again = await retryDeadLetters(def, deps());
    expect(again.counts).toMatchObject({ read: 1, deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: 'products' }))[0]!.attempts).toBe(2);

    const fixed = await mappingFile(f.dir, 'products', PRODUCT_MAPPING.replace('{ from: price, type: decimal, locale: point }', '{ from: price, type: decimal, locale: comma }'));
    const retried = await retryDeadLetters(def, { ...deps(), mapping: fixed });
    expect(retried).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(await f.state.deadLetters.count('products')).toBe(0);
    const p3 = await f.shop.exportOne('products', (await f.state.refs.get('products', sku(3)))!.shopId);
    expect(p3?.products_price).toBe(12.5);
  });

  it('drops letters by id', async () => {
    upsertProducts(f.erp, 1, 3);
    f.erp.prepare("UPDATE products SET price = 'x' WHERE sku IN (?, ?)").run(sku(1), sku(2));
    await runPipeline(def, deps());
    const [first] = await f.state.deadLetters.list({ pipeline: 'products' });
    expect(await dropDeadLetters(f.state, 'products', { ids: [first!.id] })).toBe(1);
    expect(await f.state.deadLetters.count('products')).toBe(1);
    expect(await dropDeadLetters(f.state, 'products')).toBe(1);
    expect(await f.state.deadLetters.count('products')).toBe(0);
  });
});
