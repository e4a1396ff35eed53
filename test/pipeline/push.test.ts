import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline, SyncEvents, type SyncEvent } from '../../src/pipeline/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
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

const deps = (extra: Partial<Parameters<typeof runPipeline>[1]> = {}) => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile), ...extra });

describe('push pipeline (ERP → shop)', () => {
  it('creates every new product in batches and records its reference and hash', async () => {
    upsertProducts(f.erp, 1, 60);
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'succeeded', counts: { read: 60, created: 60, updated: 0, unchanged: 0 } });
    expect(summary.counts.requests).toBe(3);
    const shop = await shopRecords(f.shop, 'products');
    expect(shop).toHaveLength(60);
    for (const p of shop) expect((await f.state.refs.get('products', String(p.products_model)))?.shopId).toBe(p.products_id);
    expect(await f.state.cursors.get('products')).toMatchObject({ value: '2026-01-01 00:00:00', key: sku(60) });
  });

  it('skips a product whose payload did not change, without any request, even when the ERP touched it', async () => {
    upsertProducts(f.erp, 1, 30);
    await runPipeline(def, deps());
    upsertProducts(f.erp, 1, 30, 1, '2026-01-02 00:00:00');
    const summary = await runPipeline(def, deps());
    expect(summary.counts).toMatchObject({ read: 30, unchanged: 30, created: 0, updated: 0, requests: 0 });
  });

  it('updates only the changed products by their shop id', async () => {
    upsertProducts(f.erp, 1, 30);
    await runPipeline(def, deps());
    upsertProducts(f.erp, 1, 30, 1, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 5, 7, 2, '2026-01-02 00:00:00');
    const summary = await runPipeline(def, deps());
    expect(summary.counts).toMatchObject({ read: 30, unchanged: 27, updated: 3 });
    const p5 = await f.shop.exportOne('products', (await f.state.refs.get('products', sku(5)))!.shopId);
    expect((p5?.languages as Record<string, { products_name: string }>).de.products_name).toBe('Product 5 v2');
    expect(await shopRecords(f.shop, 'products')).toHaveLength(30);
  });

  it('falls back to an update when the shop already holds the product model, and records the reference', async () => {
    const existing = await f.shop.create('products', [{ products_model: sku(2), products_price: 1 }]);
    const shopId = existing.outcomes[0]!.data!.products_id;
    upsertProducts(f.erp, 1, 3);
    const summary = await runPipeline(def, deps());
    expect(summary.counts).toMatchObject({ created: 2, updated: 1 });
    expect((await f.state.refs.get('products', sku(2)))?.shopId).toBe(shopId);
    expect(await shopRecords(f.shop, 'products')).toHaveLength(3);
  });

  it('dead-letters a record the mapping refuses, delivers the others and says why', async () => {
    upsertProducts(f.erp, 1, 10);
    f.erp.prepare("UPDATE products SET price = 'ten euros' WHERE sku = ?").run(sku(4));
    const summary = await runPipeline(def, deps());
    expect(summary.status).toBe('partial');
    expect(summary.counts).toMatchObject({ created: 9, deadLettered: 1 });
    const [letter] = await f.state.deadLetters.list({ pipeline: 'products' });
    expect(letter).toMatchObject({ erpKey: sku(4), attempts: 1 });
    expect(letter!.reason).toContain('ten euros');
    expect((await f.state.cursors.get('products'))?.key).toBe(sku(10));
  });

  it('emits typed events from run start to run finish', async () => {
    upsertProducts(f.erp, 1, 5);
    const events = new SyncEvents();
    const seen: SyncEvent['type'][] = [];
    events.onAny((e) => seen.push(e.type));
    await runPipeline(def, deps({ events }));
    expect(seen[0]).toBe('run-started');
    expect(seen.filter((t) => t === 'record-settled')).toHaveLength(5);
    expect(seen).toContain('batch-sent');
    expect(seen).toContain('checkpoint');
    expect(seen.at(-1)).toBe('run-finished');
  });

  it('records runs and per-record events the dashboard can query', async () => {
    upsertProducts(f.erp, 1, 3);
    const summary = await runPipeline(def, deps());
    const run = await f.state.runs.get(summary.runId);
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    const events = await f.state.events.list({ runId: summary.runId });
    expect(events.map((e) => e.outcome)).toEqual(['created', 'created', 'created']);
    expect(events[0]!.payload).toMatchObject({ products_model: sku(1) });
    expect(await f.state.events.history('products', { erpKey: sku(2) })).toHaveLength(1);
  });

  it('writes no event row for an unchanged record without warnings, only the count, so a daily full re-read does not grow the state', async () => {
    upsertProducts(f.erp, 1, 30);
    await runPipeline(def, deps());
    upsertProducts(f.erp, 1, 30, 1, '2026-01-02 00:00:00');
    upsertProducts(f.erp, 5, 5, 2, '2026-01-02 00:00:00');
    const summary = await runPipeline(def, deps());
    expect(summary.counts).toMatchObject({ read: 30, unchanged: 29, updated: 1 });
    expect((await f.state.events.list({ runId: summary.runId })).map((e) => [e.erpKey, e.outcome])).toEqual([[sku(5), 'updated']]);
    expect((await f.state.runs.get(summary.runId))?.counts.unchanged).toBe(29);
  });

  it('refuses to run while another process holds the pipeline', async () => {
    upsertProducts(f.erp, 1, 3);
    const lock = await f.state.locks.acquire('products');
    await expect(runPipeline(def, deps())).rejects.toMatchObject({ code: 'LOCK_HELD' });
    await lock.release();
    expect((await runPipeline(def, deps())).status).toBe('succeeded');
  });

  it('stops on abort after settling the batches in flight and keeps the cursor below unsent records', async () => {
    upsertProducts(f.erp, 1, 200);
    const controller = new AbortController();
    const events = new SyncEvents();
    // Answers, not commits: answered batches settle together (push/commits.ts), so the first record-settled comes late.
    let answered = 0;
    events.on('batch-sent', () => {
      if (++answered === 2) controller.abort();
    });
    const summary = await runPipeline({ ...def, options: { concurrency: 2 } }, deps({ events }), { signal: controller.signal });
    expect(summary.status).toBe('aborted');
    const shop = await shopRecords(f.shop, 'products');
    expect(shop.length).toBeLessThan(200);
    expect(shop.length).toBe(await f.state.refs.count('products'));
    const again = await runPipeline(def, deps());
    expect(again.status).toBe('succeeded');
    expect(await shopRecords(f.shop, 'products')).toHaveLength(200);
    expect(await f.state.refs.count('products')).toBe(200);
  });
});
