/** The sandbox's traffic counts: the busiest second is any 1000 ms, wherever it starts, not a calendar second. */
import { describe, expect, it } from 'vitest';
import { TrafficCounter } from '../../src/sandbox/traffic.js';

function counterAt(times: readonly number[], limitedAt: readonly number[] = []): TrafficCounter {
  let now = 0;
  const counter = new TrafficCounter(() => now);
  for (const t of times) {
    now = t;
    counter.record(limitedAt.includes(t));
  }
  return counter;
}

describe('traffic counts of the sandbox', () => {
  it('finds the busiest second across the border of two calendar seconds', () => {
    // 3 requests at the end of one second and 3 at the start of the next: 6 within 200 ms, at most 4 in either calendar second.
    const view = counterAt([100, 900, 950, 999, 1000, 1050, 1100, 2500]).view();
    expect(view).toMatchObject({ requests: 8, rate_limited: 0, busiest_second: 6, busiest_second_passed: 6 });
  });

  it('counts a request exactly 1000 ms after another in a new second (half-open window)', () => {
    expect(counterAt([0, 1000, 2000, 3000]).view().busiest_second).toBe(1);
  });

  it('keeps requests answered 429 out of the busiest second let through', () => {
    const view = counterAt([0, 10, 20, 30, 40], [30, 40]).view();
    expect(view).toMatchObject({ requests: 5, rate_limited: 2, busiest_second: 5, busiest_second_passed: 3 });
  });

  it('keeps counting right over a long run while holding only the last second', () => {
    // 20 a second for 10 minutes, then a burst of 50 within 100 ms.
    const times = Array.from({ length: 12_000 }, (_, i) => i * 50);
    const burst = Array.from({ length: 50 }, (_, i) => 700_000 + i * 2);
    expect(counterAt([...times, ...burst]).view()).toMatchObject({ requests: 12_050, busiest_second: 50 });
  });
});
