/**
 * `write(fn)`: what fn records lands together, and the outcome is what running the ops one by one
 * would leave, also where PostgreSQL folds them into one statement per table.
 */
import pg from 'pg';
import { beforeEach, expect, it, vi } from 'vitest';
import { emptyCounts, type StateStore, type StateWriter } from '../../src/state/index.js';
import { sleep } from '../support/wait.js';
import { forEachBackend } from './backends.js';

const letter = (erpKey: string, reason = 'bad price') => ({ pipeline: 'products', resource: 'products', erpKey, record: { sku: erpKey }, code: 'INVALID_PAYLOAD', reason });

forEachBackend('state writes', (backend) => {
  let state: StateStore;
  beforeEach(async () => {
    state = await backend.open();
  });

  it('leaves the last op on a key: put, delete, put of one reference ends as a fresh reference with the last shop id', async () => {
    await state.write((tx) => tx.refs.put('products', 'A-1', 1));
    const before = await state.refs.get('products', 'A-1');
    await sleep(5);
    await state.write((tx) => {
      tx.refs.put('products', 'A-1', 2);
      tx.refs.delete('products', 'A-1');
      tx.refs.put('products', 'A-1', 3);
      tx.refs.put('products', 'B-1', 4);
      tx.refs.delete('products', 'B-1');
    });
    const after = await state.refs.get('products', 'A-1');
    expect(after?.shopId).toBe(3);
    expect(Date.parse(after!.createdAt)).toBeGreaterThan(Date.parse(before!.createdAt));
    expect(await state.refs.get('products', 'B-1')).toBeUndefined();
  });

  it('keeps created_at of a reference that is only moved to another shop id', async () => {
    await state.write((tx) => tx.refs.put('products', 'A-1', 1));
    const before = await state.refs.get('products', 'A-1');
    await sleep(5);
    await state.write((tx) => tx.refs.put('products', 'A-1', 2));
    expect(await state.refs.get('products', 'A-1')).toMatchObject({ shopId: 2, createdAt: before!.createdAt });
  });

  it('ends a resolve followed by an add of the same letter as a fresh letter with attempts 1', async () => {
    await state.write((tx) => tx.deadLetters.add(letter('A-1')));
    await state.write((tx) => tx.deadLetters.add(letter('A-1')));
    const old = await state.deadLetters.getByKey('products', 'A-1');
    expect(old?.attempts).toBe(2);
    await state.write((tx) => {
      tx.deadLetters.resolve('products', 'A-1');
      tx.deadLetters.add(letter('A-1', 'new failure'));
    });
    const fresh = await state.deadLetters.getByKey('products', 'A-1');
    expect(fresh).toMatchObject({ attempts: 1, reason: 'new failure' });
    expect(fresh!.id).not.toBe(old!.id);
  });

  it('counts two adds of one letter in one write as two attempts, and an add then resolve leaves nothing', async () => {
    await state.write((tx) => {
      tx.deadLetters.add(letter('A-1', 'first'));
      tx.deadLetters.add(letter('A-1', 'second'));
      tx.deadLetters.add(letter('B-1'));
      tx.deadLetters.resolve('products', 'B-1');
    });
    expect(await state.deadLetters.getByKey('products', 'A-1')).toMatchObject({ attempts: 2, reason: 'second' });
    await state.write((tx) => {
      tx.deadLetters.add(letter('A-1', 'third'));
      tx.deadLetters.add(letter('A-1', 'fourth'));
    });
    expect(await state.deadLetters.getByKey('products', 'A-1')).toMatchObject({ attempts: 4, reason: 'fourth' });
    expect(await state.deadLetters.getByKey('products', 'B-1')).toBeUndefined();
  });

  it('numbers the events of one write in the order they were added', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const keys = Array.from({ length: 50 }, (_, i) => `K-${49 - i}`);
    await state.write((tx) => {
      for (const erpKey of keys) tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey, outcome: 'created' });
    });
    expect((await state.events.list({ runId: run, limit: 100 })).map((e) => e.erpKey)).toEqual(keys);
  });

  it('keeps every event of a write of 137 and none of a write that threw', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const keys = Array.from({ length: 137 }, (_, i) => `E-${i}`);
    await state.write((tx) => {
      for (const erpKey of keys) tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey, outcome: 'created', payload: { n: erpKey } });
    });
    await expect(
      state.write((tx) => {
        tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: 'LOST', outcome: 'created' });
        throw new Error('the write fails after its event');
      }),
    ).rejects.toThrow('the write fails');
    await state.write((tx) => tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: 'AFTER', outcome: 'updated' }));
    const listed = await state.events.list({ runId: run, limit: 500 });
    expect(listed.map((e) => e.erpKey)).toEqual([...keys, 'AFTER']);
    expect(listed[136]?.payload).toEqual({ n: 'E-136' });
  });

  it('settles a batch of 1,000 records in one write and reads them back in one getMany', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const keys = Array.from({ length: 1000 }, (_, i) => `SKU-${i}`);
    await state.write((tx) => {
      keys.forEach((k, i) => {
        tx.refs.put('products', k, 1000 + i);
        tx.hashes.put('products', 'products', k, `h${i}`);
        tx.intents.delete('products', k);
        tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: k, shopId: 1000 + i, outcome: 'created' });
      });
      tx.runs.saveCounts(run, { ...emptyCounts(), read: 1000, created: 1000 });
      tx.cursors.set('products', 'incremental', { value: 999, key: 'SKU-999' });
    });
    const refs = await state.refs.getMany('products', keys);
    expect(refs.size).toBe(1000);
    expect(refs.get('SKU-999')).toBe(1999);
    expect((await state.hashes.getMany('products', 'products', keys)).get('SKU-0')).toBe('h0');
    expect((await state.runs.get(run))?.counts).toMatchObject({ read: 1000, created: 1000 });
    expect(await state.events.list({ runId: run, limit: 2000 })).toHaveLength(1000);
  });

  it('keeps a stock figure put after one forgotten, and forgets one put before, in one write', async () => {
    const figure = (field: string, sent: string) => ({ pipeline: 'stock', recordKey: 'S-1', field, erp: sent, reserved: '0', sent, at: '2026-12-04T00:00:00.000Z' });
    await state.write((tx) => {
      tx.stockSent.put(figure('qty', '5'));
      tx.stockSent.forget('stock', 'S-1', 'qty');
      tx.stockSent.forget('stock', 'S-1', 'qty2');
      tx.stockSent.put(figure('qty2', '7'));
    });
    expect((await state.stockSent.of('stock', 'S-1')).map((r) => [r.field, r.sent])).toEqual([['qty2', '7']]);
  });

  if (backend.kind === 'sqlite') {
    it('refuses a row added through a writer after its write ended, instead of holding it for a flush that never comes', async () => {
      let kept: StateWriter | undefined;
      await state.write((tx) => {
        kept = tx;
        tx.refs.put('products', 'IN-1', 1);
      });
      expect(() => kept!.refs.put('products', 'AFTER-1', 2)).toThrow(expect.objectContaining({ code: 'STATE_WRITE_OUTSIDE' }));
      expect([...(await state.refs.getMany('products', ['IN-1', 'AFTER-1'])).keys()]).toEqual(['IN-1']);
    });

    it('keeps the rows an outer write added before a nested write that threw (its savepoint rolls back only its own)', async () => {
      const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      let nested: Promise<void> | undefined;
      await state.write((tx) => {
        tx.refs.put('products', 'OUTER-1', 1);
        tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: 'OUTER-1', outcome: 'created' });
        nested = state.write((inner) => {
          inner.refs.put('products', 'INNER', 2);
          throw new Error('the nested write fails');
        });
        tx.refs.put('products', 'OUTER-2', 3);
      });
      await expect(nested).rejects.toThrow('the nested write fails');
      expect([...(await state.refs.getMany('products', ['OUTER-1', 'INNER', 'OUTER-2'])).keys()].sort()).toEqual(['OUTER-1', 'OUTER-2']);
      expect((await state.events.list({ runId: run })).map((e) => e.erpKey)).toEqual(['OUTER-1']);
    });
  }

  if (backend.kind === 'postgres') {
    it('keeps a delete before the put of the same key in one write (a transaction of statements, not one statement)', async () => {
      await state.write((tx) => tx.deadLetters.add(letter('SKU-1', 'first')));
      await state.write((tx) => tx.deadLetters.add(letter('SKU-1', 'second')));
      const spy = vi.spyOn(pg.Client.prototype, 'query');
      try {
        await state.write((tx) => {
          tx.deadLetters.resolve('products', 'SKU-1');
          tx.deadLetters.add(letter('SKU-1', 'third'));
          tx.refs.put('products', 'SKU-1', 1);
        });
        expect(spy.mock.calls.map((c) => (typeof c[0] === 'string' ? c[0] : '')).filter((t) => t === 'BEGIN' || t === 'COMMIT')).toEqual(['BEGIN', 'COMMIT']);
      } finally {
        spy.mockRestore();
      }
      expect(await state.deadLetters.getByKey('products', 'SKU-1')).toMatchObject({ attempts: 1, reason: 'third' });
      expect((await state.refs.getMany('products', ['SKU-1'])).get('SKU-1')).toBe(1);
    });

    it('folds writes that queue up while one commits into one commit, in order, and a write the server refuses fails alone', async () => {
      const spy = vi.spyOn(pg.Client.prototype, 'query');
      let results: PromiseSettledResult<void>[];
      try {
        results = await Promise.allSettled([
          state.write((tx) => tx.refs.put('products', 'A-1', 1)),
          state.write((tx) => tx.refs.put('products', 'A-1', 2)),
          state.write((tx) => tx.refs.put('products', 'A-2', 3)),
          state.write((tx) => tx.refs.put('products', 'A-3', 4)),
        ]);
        // The first write alone, the three that queued behind it in one statement.
        expect(spy.mock.calls).toHaveLength(2);
      } finally {
        spy.mockRestore();
      }
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect(Object.fromEntries(await state.refs.getMany('products', ['A-1', 'A-2', 'A-3']))).toEqual({ 'A-1': 2, 'A-2': 3, 'A-3': 4 });

      results = await Promise.allSettled([
        state.write((tx) => tx.refs.put('products', 'B-0', 10)),
        state.write((tx) => tx.refs.put('products', 'B-1', 11)),
        // PostgreSQL refuses a NUL character in text.
        state.write((tx) => tx.refs.put('products', 'B-\u0000', 12)),
        state.write((tx) => tx.refs.put('products', 'B-2', 13)),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(Object.fromEntries(await state.refs.getMany('products', ['B-0', 'B-1', 'B-2']))).toEqual({ 'B-0': 10, 'B-1': 11, 'B-2': 13 });
    });

    it('analyses the references of a first import itself, so a batch read looks its keys up instead of filtering every reference', async () => {
      const location = backend.location();
      const fresh = await backend.open(location);
      for (let b = 0; b < 30; b++) {
        await fresh.write((tx) => {
          for (let i = b * 100; i < (b + 1) * 100; i++) tx.refs.put('products', `SKU-${i}`, i + 1);
        });
      }
      // close waits for a statistics refresh under way.
      await fresh.close();
      const [table] = await backend.sql(location, "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass('refs')");
      expect(Number(table!.n)).toBeGreaterThanOrEqual(1000);
      const plan = (await backend.sql(location, 'EXPLAIN SELECT erp_key, shop_id FROM refs WHERE shop = ? AND resource = ? AND erp_key = ANY(?::text[])', 'default', 'products', ['SKU-1', 'SKU-2000'])).map((r) => String(r['QUERY PLAN'])).join('\n');
      expect(plan).toMatch(/Index Cond: .*erp_key = ANY/);
    });

    it('sends a settle of 100 records as one statement, not one per record', async () => {
      const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      await state.write((tx) => tx.deadLetters.add(letter('SKU-7')));
      const spy = vi.spyOn(pg.Client.prototype, 'query');
      try {
        await state.write((tx) => {
          for (let i = 0; i < 100; i++) {
            const k = `SKU-${i}`;
            tx.intents.put({ resource: 'products', erpKey: k, pipeline: 'products', hash: 'h' });
            tx.refs.put('products', k, i + 1);
            tx.hashes.put('products', 'products', k, 'h');
            tx.intents.delete('products', k);
            tx.deadLetters.resolve('products', k);
            tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: k, shopId: i + 1, outcome: 'created' });
          }
          tx.runs.saveCounts(run, { ...emptyCounts(), read: 100, created: 100 });
          tx.cursors.set('products', 'incremental', { value: 99, key: 'SKU-99' });
        });
        // Deletes of intents and letters, upserts of refs, hashes and the cursor, events and counters: one statement, no BEGIN/COMMIT.
        expect(spy.mock.calls.length).toBe(1);
      } finally {
        spy.mockRestore();
      }
      expect(await state.intents.getMany('products', ['SKU-0', 'SKU-99'])).toEqual(new Set());
      expect(await state.deadLetters.getByKey('products', 'SKU-7')).toBeUndefined();
      expect((await state.refs.getMany('products', ['SKU-0', 'SKU-99'])).get('SKU-99')).toBe(100);
    });
  }
});
