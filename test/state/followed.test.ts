/**
 * Followed records (issue 44) on both backends: a row written in a state write reads back as it
 * was put, the pass finds open rows by placement day, rows end with a reason, and the push guard
 * finds what the ERP was last told of an order whichever pipeline told it.
 */
import { expect, it } from 'vitest';
import type { FollowedRecord } from '../../src/follow/types.js';
import { forEachBackend } from './backends.js';

const SNAPSHOT = { status: 1, history: 1, tracking: [], addresses: { billing: 'b1', delivery: 'd1' }, items: 'i1' };

const row = (key: string, placedDay: string, extra: Partial<FollowedRecord> = {}): FollowedRecord => ({
  pipeline: 'orders',
  shop: 'main',
  key,
  placedDay,
  status: 1,
  cancelled: false,
  snapshot: SNAPSHOT,
  changes: [],
  firstAt: `${placedDay}T10:00:00.000Z`,
  ...extra,
});

forEachBackend('followed records', (backend) => {
  it('reads back every field of a put row: snapshot and changes as JSON, the cancelled flag, the optional times and reason', async () => {
    const state = await backend.open();
    const full = row('7', '2026-12-01', {
      status: 4,
      cancelled: true,
      snapshot: { status: 4, history: 3, tracking: ['DHL-1', 'RET-1'], addresses: { billing: 'b2', delivery: 'd1' }, items: 'i9' },
      changes: [
        { seq: 1, kind: 'tracking', detected_at: '2026-12-02T08:00:00.000Z', tracking_code: 'DHL-1', service_provider: 'DHL' },
        { seq: 2, kind: 'cancelled', detected_at: '2026-12-03T08:00:00.000Z', status: 4, previous_status: 1, comment: 'Kunde storniert "sofort" ü', history_at: '2026-12-03 07:59:00' },
      ],
      changedAt: '2026-12-03T08:00:00.000Z',
      doneAt: '2026-12-03T08:00:00.000Z',
      doneReason: 'final',
    });
    const bare = row('8', '2026-12-01');
    const { status: _status, ...noStatus } = row('9', '2026-12-02');
    await state.write((tx) => {
      tx.followed.put(full);
      tx.followed.put(bare);
      tx.followed.put(noStatus);
    });
    const got = await state.followed.get('orders', ['7', '8', '9', 'missing']);
    expect([...got.keys()].sort()).toEqual(['7', '8', '9']);
    expect(got.get('7')).toEqual(full);
    // Absent optional fields stay absent rather than coming back as null or undefined keys.
    expect(got.get('8')).toStrictEqual(bare);
    expect(got.get('9')).toStrictEqual(noStatus);
    expect(await state.followed.get('other-pipeline', ['7'])).toEqual(new Map());
    expect(await state.followed.get('orders', [])).toEqual(new Map());
  });

  it('replaces every column of a row put again, so a done row whose order changed is open again', async () => {
    const state = await backend.open();
    await state.write((tx) => tx.followed.put(row('7', '2026-12-01', { status: 3, doneAt: '2026-12-02T00:00:00.000Z', doneReason: 'final', changedAt: '2026-12-02T00:00:00.000Z' })));
    const again = row('7', '2026-12-01', {
      status: 2,
      changes: [{ seq: 1, kind: 'status', detected_at: '2026-12-04T00:00:00.000Z', status: 2, previous_status: 3 }],
      changedAt: '2026-12-04T00:00:00.000Z',
    });
    await state.write((tx) => tx.followed.put(again));
    expect((await state.followed.get('orders', ['7'])).get('7')).toStrictEqual(again);
    expect((await state.followed.summary('orders')).open).toBe(1);
  });

  it('answers the newest row of each key among the pipelines of a shop, and nothing of another shop', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.followed.put(row('7', '2026-12-01', { pipeline: 'orders-a', status: 1, changedAt: '2026-12-02T00:00:00.000Z' }));
      tx.followed.put(row('7', '2026-12-01', { pipeline: 'orders-b', status: 3, changedAt: '2026-12-05T00:00:00.000Z' }));
      // Never changed since first delivered: its first delivery is what the ERP was told last.
      tx.followed.put(row('8', '2026-12-01', { pipeline: 'orders-a', status: 2, firstAt: '2026-12-06T00:00:00.000Z' }));
      tx.followed.put(row('8', '2026-12-01', { pipeline: 'orders-b', status: 5, changedAt: '2026-12-03T00:00:00.000Z' }));
      tx.followed.put(row('9', '2026-12-01', { pipeline: 'orders-c', shop: 'outlet', status: 4, cancelled: true }));
    });
    const newest = await state.followed.ofShop('main', ['7', '8', '9']);
    expect([...newest.keys()].sort()).toEqual(['7', '8']);
    expect(newest.get('7')).toMatchObject({ pipeline: 'orders-b', status: 3 });
    expect(newest.get('8')).toMatchObject({ pipeline: 'orders-a', status: 2 });
    expect((await state.followed.ofShop('outlet', ['9'])).get('9')).toMatchObject({ status: 4, cancelled: true });
  });

  it('groups open rows by placement day, oldest day first, within fromDay (inclusive) and toDay (exclusive), counting open and done rows of each day', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.followed.put(row('10', '2026-12-03'));
      tx.followed.put(row('9', '2026-12-03'));
      tx.followed.put(row('11', '2026-12-03', { doneAt: '2026-12-04T00:00:00.000Z', doneReason: 'final' }));
      tx.followed.put(row('5', '2026-12-01'));
      tx.followed.put(row('6', '2026-12-02', { doneAt: '2026-12-04T00:00:00.000Z', doneReason: 'final' }));
      tx.followed.put(row('12', '2026-12-04'));
      tx.followed.put(row('13', '2026-12-03', { pipeline: 'other' }));
    });
    expect(await state.followed.openDays('orders')).toEqual([
      { day: '2026-12-01', open: ['5'], total: 1 },
      // Orders ids in number order; the done one counts in the day's total (a page read returns it too).
      { day: '2026-12-03', open: ['9', '10'], total: 3 },
      { day: '2026-12-04', open: ['12'], total: 1 },
    ]);
    expect(await state.followed.openDays('orders', { fromDay: '2026-12-02', toDay: '2026-12-04' })).toEqual([{ day: '2026-12-03', open: ['9', '10'], total: 3 }]);
    expect((await state.followed.openDays('orders', { fromDay: '2026-12-03' })).map((d) => d.day)).toEqual(['2026-12-03', '2026-12-04']);
    expect((await state.followed.openDays('orders', { toDay: '2026-12-03' })).map((d) => d.day)).toEqual(['2026-12-01']);
    expect(await state.followed.openDays('nobody')).toEqual([]);
  });

  it('finishes rows with a reason and time, and a row done already keeps its own', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.followed.put(row('7', '2026-12-01'));
      tx.followed.put(row('8', '2026-12-01'));
      tx.followed.put(row('9', '2026-12-01', { doneAt: '2026-12-02T00:00:00.000Z', doneReason: 'final' }));
    });
    await state.followed.finish('orders', ['7', '9'], 'deleted', '2026-12-05T00:00:00.000Z');
    const got = await state.followed.get('orders', ['7', '8', '9']);
    expect(got.get('7')).toMatchObject({ doneAt: '2026-12-05T00:00:00.000Z', doneReason: 'deleted' });
    expect(got.get('8')?.doneAt).toBeUndefined();
    expect(got.get('9')).toMatchObject({ doneAt: '2026-12-02T00:00:00.000Z', doneReason: 'final' });
    await state.followed.finish('orders', [], 'final', '2026-12-06T00:00:00.000Z');
    expect((await state.followed.openDays('orders')).flatMap((d) => d.open)).toEqual(['8']);
  });

  it('ages out the open rows placed before a day and answers their keys, leaving that day and done rows alone', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.followed.put(row('1', '2026-11-15'));
      tx.followed.put(row('2', '2026-11-16'));
      tx.followed.put(row('3', '2026-11-10', { doneAt: '2026-11-12T00:00:00.000Z', doneReason: 'final' }));
      tx.followed.put(row('4', '2026-11-17'));
      tx.followed.put(row('5', '2026-11-01', { pipeline: 'other' }));
    });
    expect((await state.followed.ageOut('orders', '2026-11-17', '2026-12-01T00:00:00.000Z')).sort()).toEqual(['1', '2']);
    const got = await state.followed.get('orders', ['1', '3', '4']);
    expect(got.get('1')).toMatchObject({ doneAt: '2026-12-01T00:00:00.000Z', doneReason: 'age' });
    expect(got.get('3')).toMatchObject({ doneReason: 'final' });
    expect(got.get('4')?.doneAt).toBeUndefined();
    expect((await state.followed.get('other', ['5'])).get('5')?.doneAt).toBeUndefined();
    expect(await state.followed.ageOut('orders', '2026-11-17', '2026-12-02T00:00:00.000Z')).toEqual([]);
  });

  it('sums a pipeline up: open and done rows, the open row placed first, the last change', async () => {
    const state = await backend.open();
    expect(await state.followed.summary('orders')).toStrictEqual({ open: 0, done: 0 });
    await state.write((tx) => {
      tx.followed.put(row('20', '2026-12-02', { changedAt: '2026-12-04T00:00:00.000Z' }));
      tx.followed.put(row('19', '2026-12-02'));
      tx.followed.put(row('3', '2026-11-20', { doneAt: '2026-11-30T00:00:00.000Z', doneReason: 'age', changedAt: '2026-12-05T00:00:00.000Z' }));
      tx.followed.put(row('4', '2026-12-03'));
      tx.followed.put(row('1', '2026-11-01', { pipeline: 'other' }));
    });
    expect(await state.followed.summary('orders')).toStrictEqual({ open: 3, done: 1, oldest: { key: '19', placedDay: '2026-12-02' }, lastChangeAt: '2026-12-05T00:00:00.000Z' });
  });

  it('leaves no row when the write it was put in is rolled back, and none of the seen hash written with it', async () => {
    const state = await backend.open();
    await expect(
      state.write((tx) => {
        tx.followed.put(row('7', '2026-12-01'));
        throw new Error('settle failed');
      }),
    ).rejects.toThrow('settle failed');
    // The commit itself fails (a row without its placement day): the good row and the hash go with it.
    await expect(
      state.write((tx) => {
        tx.seen.put('orders', '8', 'hash-8');
        tx.followed.put(row('8', '2026-12-01'));
        tx.followed.put(row('9', null as unknown as string));
      }),
    ).rejects.toThrow();
    expect(await state.followed.get('orders', ['7', '8', '9'])).toEqual(new Map());
    expect(await state.seen.get('orders', '8')).toBeUndefined();
    expect((await state.dump.counts()).followed).toBe(0);
  });
});
