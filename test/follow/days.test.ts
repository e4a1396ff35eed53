/** The follow pass's read plan (pure): a day in pages or by id, runs of days in pages as one range when that saves requests, settled orders out of the day reads. */
import { describe, expect, it } from 'vitest';
import { planReads, splitSettled } from '../../src/follow/days.js';
import { followSchema } from '../../src/follow/schema.js';
import type { FollowDay } from '../../src/follow/types.js';

const day = (d: string, total: number, open = ['1']): FollowDay => ({ day: d, total, open });
const shape = (days: readonly FollowDay[], pageSize = 250) => planReads(days, pageSize).map((r) => (r.how === 'range' ? `${r.from}..${r.to}:${r.requests}` : `ids ${r.day}:${r.requests}`));

describe('planReads', () => {
  it('reads consecutive days of 200 orders as one range: 13 days take 11 pages, not 13', () => {
    const days = Array.from({ length: 13 }, (_, i) => day(`2026-11-${String(10 + i).padStart(2, '0')}`, 200));
    expect(shape(days)).toEqual(['2026-11-10..2026-11-22:11']);
    expect(planReads(days, 250)[0]).toMatchObject({ how: 'range', days: days.map((d) => d.day) });
  });

  it('keeps days apart when a range saves nothing (days of whole pages)', () => {
    expect(shape([day('2026-11-10', 250), day('2026-11-11', 500, ['2', '3'])])).toEqual(['2026-11-10..2026-11-10:1', '2026-11-11..2026-11-11:2']);
  });

  it('breaks a run at a day without open orders (a gap in the calendar) and at a day read by id', () => {
    const days = [day('2026-11-01', 10), day('2026-11-02', 10), day('2026-11-04', 10), day('2026-11-05', 10), day('2026-11-06', 600, ['7']), day('2026-11-07', 10), day('2026-11-08', 10)];
    expect(shape(days)).toEqual(['2026-11-01..2026-11-02:1', '2026-11-04..2026-11-05:1', 'ids 2026-11-06:1', '2026-11-07..2026-11-08:1']);
  });

  it('reads a day by id when its pages cost more than its open orders, and sorts the days', () => {
    expect(shape([day('2026-11-03', 10), day('2026-11-02', 251)])).toEqual(['ids 2026-11-02:1', '2026-11-03..2026-11-03:1']);
  });

  it('a range read is for every open order of its days', () => {
    expect(planReads([day('2026-11-01', 3, ['1', '2']), day('2026-11-02', 3, ['3'])], 250)).toEqual([
      { how: 'range', from: '2026-11-01', to: '2026-11-02', days: ['2026-11-01', '2026-11-02'], requests: 1, open: ['1', '2', '3'] },
    ]);
  });
});

describe('splitSettled', () => {
  it('takes settled orders out of their days, drops a day left without open orders, and names the oldest settled day', () => {
    const days = [day('2026-11-01', 5, ['1', '2']), day('2026-11-02', 5, ['3', '4']), day('2026-11-03', 5, ['5'])];
    const split = splitSettled(days, (k) => ['1', '2', '4'].includes(k));
    expect(split).toEqual({ days: [day('2026-11-02', 5, ['3']), day('2026-11-03', 5, ['5'])], settled: ['1', '2', '4'], oldestDay: '2026-11-01' });
  });

  it('without settled orders leaves the days as they are and names no day', () => {
    const days = [day('2026-11-01', 5, ['1'])];
    expect(splitSettled(days, () => false)).toEqual({ days, settled: [] });
  });
});

describe('follow.settled', () => {
  it('is absent unless given (none settled) and refuses a status that is final too', () => {
    expect(followSchema.parse({ until: [4, 5] }).settled).toBeUndefined();
    expect(followSchema.parse({ until: [4, 5], settled: [3] }).settled).toEqual([3]);
    const bad = followSchema.safeParse({ until: [3, 4], settled: [3] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['settled'], message: expect.stringContaining('status 3 is in until') });
  });
});
