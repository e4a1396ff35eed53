/** How a shop's budget is cut into slots of the shared fixed-window limiter. */
import { describe, expect, it } from 'vitest';
import { ARRIVAL_SLACK_MS, MIN_SLOT_MS, sharedBudget, storeMs } from '../../../../src/shop/rate/index.js';

const RATES: readonly [number, number][] = [
  [1, 1000],
  [3, 1000],
  [10, 1000],
  [20, 1000],
  [39, 1000],
  [40, 1000],
  [100, 1000],
  [500, 1000],
  [5, 100],
  [600, 60_000],
];

/**
 * Replay the store's windows against requests that come as fast as they are let through, with
 * the slot's extra points at the very end of a slot (the worst case): the busiest window of
 * `intervalMs` must hold `requests` at most.
 */
function busiestWindow(requests: number, intervalMs: number): number {
  const { pointsPerSlot, slotMs } = sharedBudget(requests, intervalMs);
  const starts: number[] = [];
  for (let slot = 0; slot < 3 * Math.ceil(intervalMs / slotMs) + 3; slot++) {
    const opened = slot * slotMs; // the next slot opens the moment the last one expired
    starts.push(opened);
    for (let p = 1; p < pointsPerSlot; p++) starts.push(opened + slotMs - 1);
  }
  starts.sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < starts.length; last++) {
    while (starts[last]! - starts[first]! >= intervalMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('sharedBudget', () => {
  it.each(RATES)('never lets a window hold more than %i requests per %i ms, however the slots fall', (requests, intervalMs) => {
    expect(busiestWindow(requests, intervalMs)).toBeLessThanOrEqual(requests);
  });

  it.each(RATES)('keeps at least nine tenths of %i requests per %i ms', (requests, intervalMs) => {
    const budget = sharedBudget(requests, intervalMs);
    expect(budget.requestsPerSecond).toBeGreaterThanOrEqual((0.9 * requests * 1000) / intervalMs);
  });

  it('spaces slow rates one request per slot, the window plus its slack apart', () => {
    expect(sharedBudget(10, 1000)).toMatchObject({ pointsPerSlot: 1, slotMs: (1000 + ARRIVAL_SLACK_MS) / 10 });
    expect(sharedBudget(1, 1000)).toMatchObject({ pointsPerSlot: 1, slotMs: 1000 + ARRIVAL_SLACK_MS });
  });

  it('groups fast rates into slots of at least MIN_SLOT_MS', () => {
    const budget = sharedBudget(500, 1000);
    expect(budget.pointsPerSlot).toBeGreaterThan(1);
    expect(budget.slotMs).toBeGreaterThanOrEqual(MIN_SLOT_MS);
  });

  it('refuses a budget that is no whole number from 1 and up', () => {
    expect(() => sharedBudget(0, 1000)).toThrow('Expected `requests` to be a whole number from 1 and up, got `0`');
    expect(() => sharedBudget(10, 0.5)).toThrow('Expected `intervalMs` to be a whole number from 1 and up, got `0.5`');
  });
});

describe('storeMs', () => {
  it('gives durations that survive the store\'s seconds exactly', () => {
    for (let ms = 1; ms < 5000; ms++) {
      const whole = storeMs(ms);
      expect(whole).toBeGreaterThanOrEqual(ms);
      expect((whole / 1000) * 1000).toBe(whole);
    }
  });
});
