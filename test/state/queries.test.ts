import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';

let state: StateStore;
beforeEach(() => {
  state = openState(':memory:');
});
afterEach(async () => {
  await state.close();
});

describe('state queries', () => {
  it('stores cursors per pipeline and lane', () => {
    state.cursors.set('products', 'incremental', { value: '2026-01-02 10:00:00', key: 'A-7' });
    state.cursors.set('products', 'backfill:1:100', { value: 50, key: '50', boundary: { done: false } });
    expect(state.cursors.get('products')).toMatchObject({ value: '2026-01-02 10:00:00', key: 'A-7' });
    expect(state.cursors.get('products', 'backfill:1:100')).toMatchObject({ value: 50, boundary: { done: false } });
    expect(state.cursors.list('products')).toHaveLength(2);
    state.cursors.delete('products', 'backfill:1:100');
    expect(state.cursors.get('products', 'backfill:1:100')).toBeUndefined();
  });

  it('finds a reference by ERP key and by shop id', () => {
    state.refs.put('products', 'A-1', 10);
    state.refs.put('customers', 'C-1', 10);
    expect(state.refs.get('products', 'A-1')?.shopId).toBe(10);
    expect(state.refs.byShopId('products', 10).map((r) => r.erpKey)).toEqual(['A-1']);
    expect(state.refs.count('products')).toBe(1);
  });

  it('keeps sent hashes per pipeline so two pipelines writing one resource do not mask each other', () => {
    state.hashes.put('stock', 'products', 'A-1', 'h1');
    state.hashes.put('catalog', 'products', 'A-1', 'h2');
    expect(state.hashes.get('stock', 'products', 'A-1')).toBe('h1');
    expect(state.hashes.get('catalog', 'products', 'A-1')).toBe('h2');
  });

  it('filters runs by pipeline, status, outcome and time, newest first', () => {
    const a = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    state.runs.finish(a, 'succeeded', { ...emptyCounts(), read: 3, created: 3 });
    const b = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    state.runs.finish(b, 'partial', { ...emptyCounts(), read: 3, created: 2, deadLettered: 1 });
    const c = state.runs.start({ pipeline: 'orders', mode: 'sync', lane: 'orders' });
    expect(state.runs.list({ pipeline: 'products' }).map((r) => r.id)).toEqual([b, a]);
    expect(state.runs.list({ outcome: 'dead-lettered' }).map((r) => r.id)).toEqual([b]);
    expect(state.runs.list({ status: 'running' }).map((r) => r.id)).toEqual([c]);
    expect(state.runs.list({ since: Date.now() + 60_000 })).toEqual([]);
    expect(state.runs.get(b)?.counts).toMatchObject({ created: 2, deadLettered: 1 });
    expect(state.runs.latestByPipeline().map((r) => r.id)).toEqual([c, b]);
  });

  it('lists a run’s events with payload and a record’s history across runs', () => {
    const r1 = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const r2 = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    state.events.add({ runId: r1, pipeline: 'products', resource: 'products', erpKey: 'A-1', shopId: 5, outcome: 'created', payloadHash: 'h', payload: { products_model: 'A-1' } });
    state.events.add({ runId: r2, pipeline: 'products', resource: 'products', erpKey: 'A-1', shopId: 5, outcome: 'updated', diff: { products_price: { from: 1, to: 2 } }, warnings: [{ code: 'STORAGE_NOT_FOUND', message: 'x' }] });
    state.events.add({ runId: r2, pipeline: 'products', resource: 'products', erpKey: 'B-1', outcome: 'failed', error: { code: 'INVALID_PAYLOAD', message: 'bad' } });
    expect(state.events.list({ runId: r1 })[0]).toMatchObject({ outcome: 'created', payload: { products_model: 'A-1' } });
    expect(state.events.history('products', { erpKey: 'A-1' }).map((e) => e.outcome)).toEqual(['updated', 'created']);
    expect(state.events.history('products', { shopId: 5 })).toHaveLength(2);
    expect(state.events.list({ code: 'STORAGE_NOT_FOUND' }).map((e) => e.erpKey)).toEqual(['A-1']);
    expect(state.events.list({ code: 'INVALID_PAYLOAD', outcome: 'failed' })).toHaveLength(1);
  });

  it('counts outcomes per minute for charts', () => {
    const run = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 10);
    for (const [offset, outcome] of [[0, 'created'], [5_000, 'created'], [61_000, 'failed']] as const) {
      state.events.add({ runId: run, pipeline: 'products', outcome, atMs: t0 + offset });
    }
    expect(state.events.countsPerMinute({ since: t0 - 60_000 })).toEqual([
      { minute: '2026-01-01T12:00:00.000Z', outcome: 'created', count: 2 },
      { minute: '2026-01-01T12:01:00.000Z', outcome: 'failed', count: 1 },
    ]);
    expect(state.events.countsPerMinute({ since: t0, pipeline: 'orders' })).toEqual([]);
  });

  it('counts dead-letter attempts and resolves a letter once the record is delivered', () => {
    const first = state.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey: 'A-1', record: { sku: 'A-1' }, code: 'INVALID_PAYLOAD', reason: 'bad price' });
    expect(first.attempts).toBe(1);
    const second = state.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey: 'A-1', record: { sku: 'A-1' }, code: 'INVALID_PAYLOAD', reason: 'still bad' });
    expect(second).toMatchObject({ id: first.id, attempts: 2, reason: 'still bad' });
    expect(state.deadLetters.list({ pipeline: 'products' })).toHaveLength(1);
    expect(state.deadLetters.resolve('products', 'A-1')).toBe(true);
    expect(state.deadLetters.count('products')).toBe(0);
  });

  it('tracks append-only entries from pending to sent', () => {
    state.history.mark('orders', 7, 'id1', 'pending', { orders_status_id: 3 });
    expect(state.history.pending('orders').map((e) => e.identity)).toEqual(['id1']);
    state.history.mark('orders', 7, 'id1', 'sent', { orders_status_id: 3 });
    expect(state.history.pending('orders')).toEqual([]);
    expect(state.history.get('orders', 7, 'id1')?.state).toBe('sent');
  });

  it('keeps and lists open create intents', () => {
    state.intents.put({ resource: 'products', erpKey: 'A-1', pipeline: 'products', hash: 'h', naturalKey: { products_model: 'A-1' } });
    expect(state.intents.list('products')).toMatchObject([{ erpKey: 'A-1', naturalKey: { products_model: 'A-1' } }]);
    state.intents.delete('products', 'A-1');
    expect(state.intents.get('products', 'A-1')).toBeUndefined();
  });
});
