import { beforeEach, expect, it } from 'vitest';
import { emptyCounts, type StateStore } from '../../src/state/index.js';
import { forEachBackend } from './backends.js';

forEachBackend('state queries', (backend) => {
  let state: StateStore;
  beforeEach(async () => {
    state = await backend.open();
  });

  it('stores cursors per pipeline and lane', async () => {
    await state.cursors.set('products', 'incremental', { value: '2026-01-02 10:00:00', key: 'A-7' });
    await state.write((tx) => tx.cursors.set('products', 'backfill:1:100', { value: 50, key: '50', boundary: { done: false } }));
    expect(await state.cursors.get('products')).toMatchObject({ value: '2026-01-02 10:00:00', key: 'A-7' });
    expect(await state.cursors.get('products', 'backfill:1:100')).toMatchObject({ value: 50, boundary: { done: false } });
    expect(await state.cursors.list('products')).toHaveLength(2);
    await state.cursors.delete('products', 'backfill:1:100');
    expect(await state.cursors.get('products', 'backfill:1:100')).toBeUndefined();
  });

  it('finds a reference by ERP key and by shop id, and many at once by ERP key', async () => {
    await state.write((tx) => {
      tx.refs.put('products', 'A-1', 10);
      tx.refs.put('products', 'A-2', 'x-2');
      tx.refs.put('customers', 'C-1', 10);
    });
    expect((await state.refs.get('products', 'A-1'))?.shopId).toBe(10);
    expect((await state.refs.byShopId('products', 10)).map((r) => r.erpKey)).toEqual(['A-1']);
    expect(await state.refs.count('products')).toBe(2);
    expect(await state.refs.getMany('products', ['A-1', 'A-2', 'A-3', 'A-1'])).toEqual(new Map<string, string | number>([['A-1', 10], ['A-2', 'x-2']]));
    expect(await state.refs.getMany('products', [])).toEqual(new Map());
    expect((await state.refs.list('products')).map((r) => r.erpKey)).toEqual(['A-1', 'A-2']);
  });

  it('keeps references per shop: the same ERP key has a shop id in each shop', async () => {
    const other = state.forShop('outlet');
    await state.write((tx) => tx.refs.put('products', 'A-1', 10));
    await other.write((tx) => tx.refs.put('products', 'A-1', 99));
    expect((await state.refs.get('products', 'A-1'))?.shopId).toBe(10);
    expect((await other.refs.get('products', 'A-1'))?.shopId).toBe(99);
    expect(await other.refs.getMany('products', ['A-1'])).toEqual(new Map([['A-1', 99]]));
  });

  it('keeps sent hashes per pipeline so two pipelines writing one resource do not mask each other', async () => {
    await state.write((tx) => {
      tx.hashes.put('stock', 'products', 'A-1', 'h1');
      tx.hashes.put('catalog', 'products', 'A-1', 'h2');
      tx.hashes.put('catalog', 'products', 'A-2', 'h3');
    });
    expect(await state.hashes.get('stock', 'products', 'A-1')).toBe('h1');
    expect(await state.hashes.getMany('catalog', 'products', ['A-1', 'A-2', 'A-9'])).toEqual(new Map([['A-1', 'h2'], ['A-2', 'h3']]));
    await state.hashes.clear('catalog');
    expect(await state.hashes.getMany('catalog', 'products', ['A-1', 'A-2'])).toEqual(new Map());
    expect(await state.hashes.get('stock', 'products', 'A-1')).toBe('h1');
  });

  it('keeps the newest delivered change time of a record: a put only raises it, one without it keeps it, in one write or across writes', async () => {
    await state.write((tx) => {
      tx.hashes.put('catalog', 'products', 'A-1', 'h1', 's1', 2_000);
      // The older of two versions delivered in the same write: the newer change time stays.
      tx.hashes.put('catalog', 'products', 'A-1', 'h0', 's0', 1_000);
      tx.hashes.put('catalog', 'products', 'A-2', 'h2', undefined, 5_000);
    });
    const got = await state.hashes.getManyWithSource('catalog', 'products', ['A-1', 'A-2']);
    expect(got.get('A-1')).toEqual({ hash: 'h0', source: 's0', changedAt: 2_000 });
    await state.write((tx) => {
      tx.hashes.put('catalog', 'products', 'A-1', 'h3', 's3', 1_500);
      tx.hashes.put('catalog', 'products', 'A-2', 'h4');
    });
    await state.write((tx) => tx.hashes.put('catalog', 'products', 'A-2', 'h5', undefined, 9_000));
    expect(await state.hashes.getManyWithSource('catalog', 'products', ['A-1', 'A-2'])).toEqual(
      new Map([
        ['A-1', { hash: 'h3', source: 's3', changedAt: 2_000 }],
        ['A-2', { hash: 'h5', changedAt: 9_000 }],
      ]),
    );
  });

  it('keeps a source hash beside a payload hash only until a payload hash is stored without one', async () => {
    await state.write((tx) => {
      tx.hashes.put('catalog', 'products', 'A-1', 'h1', 's1');
      tx.hashes.put('catalog', 'products', 'A-2', 'h2');
    });
    expect(await state.hashes.getManyWithSource('catalog', 'products', ['A-1', 'A-2', 'A-9'])).toEqual(
      new Map([
        ['A-1', { hash: 'h1', source: 's1' }],
        ['A-2', { hash: 'h2' }],
      ]),
    );
    await state.write((tx) => tx.hashes.put('catalog', 'products', 'A-1', 'h1'));
    expect(await state.hashes.getManyWithSource('catalog', 'products', ['A-1'])).toEqual(new Map([['A-1', { hash: 'h1' }]]));
  });

  it('remembers what a pull delivered, many keys at once', async () => {
    await state.write((tx) => {
      tx.seen.put('orders-in', 'O-1', 'a');
      tx.seen.put('orders-in', 'O-2', 'b');
    });
    expect(await state.seen.get('orders-in', 'O-1')).toBe('a');
    expect(await state.seen.getMany('orders-in', ['O-1', 'O-2', 'O-3'])).toEqual(new Map([['O-1', 'a'], ['O-2', 'b']]));
    await state.seen.clear('orders-in');
    expect(await state.seen.get('orders-in', 'O-1')).toBeUndefined();
  });

  it('filters runs by pipeline, status, outcome and time, newest first', async () => {
    const a = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.runs.finish(a, 'succeeded', { ...emptyCounts(), read: 3, created: 3 });
    const b = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.runs.finish(b, 'partial', { ...emptyCounts(), read: 3, created: 2, deadLettered: 1 });
    const c = await state.runs.start({ pipeline: 'orders', mode: 'sync', lane: 'orders', range: { from: 1 } });
    await state.write((tx) => tx.runs.saveCounts(c, { ...emptyCounts(), read: 7 }));
    expect((await state.runs.list({ pipeline: 'products' })).map((r) => r.id)).toEqual([b, a]);
    expect((await state.runs.list({ outcome: 'dead-lettered' })).map((r) => r.id)).toEqual([b]);
    expect((await state.runs.list({ status: ['running', 'partial'], limit: 1 })).map((r) => r.id)).toEqual([c]);
    expect(await state.runs.list({ since: Date.now() + 60_000 })).toEqual([]);
    expect((await state.runs.get(b))?.counts).toMatchObject({ created: 2, deadLettered: 1 });
    expect(await state.runs.get(c)).toMatchObject({ status: 'running', range: { from: 1 }, counts: { read: 7 }, pid: process.pid, shop: 'default' });
    expect((await state.runs.latestByPipeline()).map((r) => r.id)).toEqual([c, b]);
  });

  it('lists a run’s events with payload and a record’s history across runs', async () => {
    const r1 = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const r2 = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.write((tx) => {
      tx.events.add({ runId: r1, pipeline: 'products', resource: 'products', erpKey: 'A-1', shopId: 5, outcome: 'created', payloadHash: 'h', payload: { products_model: 'A-1' } });
      tx.events.add({ runId: r2, pipeline: 'products', resource: 'products', erpKey: 'A-1', shopId: 5, outcome: 'updated', diff: { products_price: { from: 1, to: 2 } }, warnings: [{ code: 'STORAGE_NOT_FOUND', message: 'x' }] });
      tx.events.add({ runId: r2, pipeline: 'products', resource: 'products', erpKey: 'B-1', outcome: 'failed', error: { code: 'INVALID_PAYLOAD', message: 'bad' } });
      tx.events.add({ runId: r2, pipeline: 'products', resource: 'products', erpKey: 'B_1', outcome: 'failed', error: { code: 'INVALID_PAYLOAD_X', message: 'bad' } });
    });
    expect((await state.events.list({ runId: r1 }))[0]).toMatchObject({ outcome: 'created', payload: { products_model: 'A-1' } });
    expect((await state.events.list({ runId: r2 })).map((e) => e.erpKey)).toEqual(['A-1', 'B-1', 'B_1']);
    expect((await state.events.history('products', { erpKey: 'A-1' })).map((e) => e.outcome)).toEqual(['updated', 'created']);
    expect(await state.events.history('products', { shopId: 5 })).toHaveLength(2);
    expect((await state.events.list({ code: 'STORAGE_NOT_FOUND' })).map((e) => e.erpKey)).toEqual(['A-1']);
    expect(await state.events.list({ code: 'INVALID_PAYLOAD', outcome: 'failed' })).toHaveLength(1);
    const [first] = await state.events.list({ runId: r1 });
    expect(await state.events.get(first!.id)).toEqual(first);
  });

  it('counts outcomes per minute for charts', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 10);
    await state.write((tx) => {
      for (const [offset, outcome] of [[0, 'created'], [5_000, 'created'], [61_000, 'failed']] as const) tx.events.add({ runId: run, pipeline: 'products', outcome, atMs: t0 + offset });
    });
    expect(await state.events.countsPerMinute({ since: t0 - 60_000 })).toEqual([
      { minute: '2026-01-01T12:00:00.000Z', outcome: 'created', count: 2 },
      { minute: '2026-01-01T12:01:00.000Z', outcome: 'failed', count: 1 },
    ]);
    expect(await state.events.countsPerMinute({ since: t0, pipeline: 'orders' })).toEqual([]);
  });

  it('counts dead-letter attempts and resolves a letter once the record is delivered', async () => {
    const letter = { pipeline: 'products', resource: 'products', erpKey: 'A-1', record: { sku: 'A-1' }, code: 'INVALID_PAYLOAD', reason: 'bad price' };
    await state.write((tx) => tx.deadLetters.add(letter));
    const first = await state.deadLetters.getByKey('products', 'A-1');
    expect(first?.attempts).toBe(1);
    await state.write((tx) => tx.deadLetters.add({ ...letter, reason: 'still bad', origin: { file: 'a.csv', line: 3 } }));
    expect(await state.deadLetters.getByKey('products', 'A-1')).toMatchObject({ id: first!.id, attempts: 2, reason: 'still bad', origin: { file: 'a.csv', line: 3 }, firstFailedAt: first!.firstFailedAt });
    expect(await state.deadLetters.list({ pipeline: 'products' })).toHaveLength(1);
    await state.write((tx) => tx.deadLetters.resolve('products', 'A-1'));
    expect(await state.deadLetters.count('products')).toBe(0);
  });

  it('drops chosen dead letters of a pipeline, or all of them', async () => {
    await state.write((tx) => {
      for (const key of ['A', 'B', 'C']) tx.deadLetters.add({ pipeline: 'products', erpKey: key, record: {}, code: 'X', reason: 'x' });
      tx.deadLetters.add({ pipeline: 'orders', erpKey: 'A', record: {}, code: 'X', reason: 'x' });
    });
    const [a, b] = (await state.deadLetters.list({ pipeline: 'products' })).map((l) => l.id).sort((x, y) => x - y);
    const orders = (await state.deadLetters.getByKey('orders', 'A'))!.id;
    expect(await state.deadLetters.drop('products', [a!, b!, orders])).toBe(2);
    expect(await state.deadLetters.delete(orders)).toBe(true);
    expect(await state.deadLetters.delete(orders)).toBe(false);
    expect(await state.deadLetters.drop('products')).toBe(1);
  });

  it('tracks append-only entries from pending to sent', async () => {
    await state.write((tx) => {
      tx.history.mark('orders', 7, 'id1', 'pending', { orders_status_id: 3 });
      tx.history.mark('orders', 7, 'id2', 'pending', { orders_status_id: 4 });
    });
    expect((await state.history.pending('orders')).map((e) => e.identity).sort()).toEqual(['id1', 'id2']);
    await state.write((tx) => {
      tx.history.mark('orders', 7, 'id1', 'sent', { orders_status_id: 3 }, 12);
      tx.history.forget('orders', 7, 'id2');
    });
    expect(await state.history.pending('orders')).toEqual([]);
    expect(await state.history.get('orders', 7, 'id1')).toMatchObject({ state: 'sent', runId: 12 });
    expect([...(await state.history.getMany('orders', 7, ['id1', 'id2'])).keys()]).toEqual(['id1']);
  });

  it('keeps and lists open create intents', async () => {
    await state.write((tx) => tx.intents.put({ resource: 'products', erpKey: 'A-1', pipeline: 'products', hash: 'h', naturalKey: { products_model: 'A-1' } }));
    expect(await state.intents.list('products')).toMatchObject([{ erpKey: 'A-1', naturalKey: { products_model: 'A-1' } }]);
    expect(await state.intents.getMany('products', ['A-1', 'A-2'])).toEqual(new Set(['A-1']));
    await state.write((tx) => tx.intents.delete('products', 'A-1'));
    expect(await state.intents.get('products', 'A-1')).toBeUndefined();
  });

  it('rolls back every write of a write() whose recording throws', async () => {
    await expect(
      state.write((tx) => {
        tx.refs.put('products', 'A-1', 1);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await state.refs.get('products', 'A-1')).toBeUndefined();
  });
});
