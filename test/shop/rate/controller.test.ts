import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../../src/shop/rate/index.js';

/** A controller on a clock the test moves by hand. */
function controller(settings: Partial<ConstructorParameters<typeof AdaptiveRate>[0]> = {}) {
  const clock = { now: 1_000_000 };
  const rate = new AdaptiveRate({ maxConcurrency: 16, maxRequestsPerSecond: 500, ...settings }, () => clock.now);
  /** `n` clean answers `gapMs` apart, with requests waiting. */
  const clean = (n: number, gapMs = 10, latencyMs = 50) => {
    for (let i = 0; i < n; i++) {
      clock.now += gapMs;
      rate.observe({ kind: 'ok', latencyMs }, true);
    }
  };
  return { rate, clock, clean };
}

describe('adaptive rate controller', () => {
  it('starts at the polite floor of two requests in flight with only the hard cap on the rate', () => {
    const { rate } = controller();
    expect(rate.snapshot()).toEqual({ mode: 'adaptive', concurrency: 2, requestsPerSecond: 500, phase: 'slow-start' });
  });

  it('grows by one request in flight per clean answer up to 6, by one per round trip beyond, and never above the hard cap', () => {
    const fast = controller();
    fast.clean(4);
    expect(fast.rate.concurrency).toBe(6);
    fast.clean(7);
    expect(fast.rate.concurrency).toBe(7);
    const { rate, clean } = controller({ maxConcurrency: 6 });
    clean(3);
    expect(rate.concurrency).toBe(5);
    clean(10);
    expect(rate.concurrency).toBe(6);
  });

  it('does not grow while nothing waits (the limit was not what held requests back)', () => {
    const { rate, clock } = controller();
    for (let i = 0; i < 20; i++) {
      clock.now += 10;
      rate.observe({ kind: 'ok', latencyMs: 50 }, false);
    }
    expect(rate.concurrency).toBe(2);
  });

  it('halves the requests in flight on a 5xx or lost answer, once per round trip, never below one', () => {
    const { rate, clock, clean } = controller();
    clean(4);
    expect(rate.concurrency).toBe(6);
    rate.observe({ kind: 'overloaded' }, true);
    rate.observe({ kind: 'overloaded' }, true);
    expect(rate.concurrency).toBe(3);
    for (let i = 0; i < 5; i++) {
      clock.now += 1000;
      rate.observe({ kind: 'overloaded' }, true);
    }
    expect(rate.concurrency).toBe(1);
    expect(rate.snapshot().phase).toBe('steady');
  });

  it('after the first trouble grows by about one request in flight per round trip (additive increase)', () => {
    const { rate, clock, clean } = controller();
    clean(4);
    rate.observe({ kind: 'overloaded' }, true);
    expect(rate.concurrency).toBe(3);
    clock.now += 1000;
    clean(4);
    expect(rate.concurrency).toBe(4);
    clean(4);
    expect(rate.concurrency).toBe(5);
  });

  it('on 429 learns the rate the shop accepted in the last second and keeps it over a second and a 50 ms margin', () => {
    const { rate, clean } = controller();
    clean(40, 25); // 40 clean answers per second
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    expect(rate.snapshot()).toMatchObject({ requestsPerSecond: 38.1, learntLimitPerSecond: 40, phase: 'steady' });
    expect(rate.window).toEqual({ starts: 40, windowMs: 1050 });
  });

  it('at first contact after an idle second counts the shop\'s second exactly and lets the window hold the retries; after longer traffic leaves them to the Retry-After pause', () => {
    const fresh = controller();
    fresh.clean(20, 25); // the first twenty requests, all in the shop's first second
    fresh.rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 5 }, true);
    expect(fresh.rate.windowHolds).toBe(true);
    expect(fresh.rate.window).toEqual({ starts: 20, windowMs: 1050 });
    // Held until the first request's latest arrival (its answer less the shop's latency) and a second.
    expect(fresh.rate.secondOverAt).toBe(1_000_025 - 50 + 1000 + 50);
    const busy = controller();
    busy.clean(60, 25); // a second and a half of traffic: the count may hold the end of the shop's previous second
    busy.rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 5 }, true);
    expect(busy.rate.windowHolds).toBe(false);
    expect(busy.rate.secondOverAt).toBeUndefined();
  });

  it('a limit counted too high at first contact is corrected, margin unchanged, by a 429 in the second opened after the pause', () => {
    const { rate, clock, clean } = controller();
    clean(80, 20); // 50 answers a second for more than a second: the count by answer may hold the shop's second before
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 5 }, true);
    expect(rate.windowHolds).toBe(false);
    expect(rate.snapshot().learntLimitPerSecond).toBe(50);
    clock.now += 1000; // the pause: nothing left
    clean(20, 20); // the shop's new second opened by the first of these
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 5 }, true);
    expect(rate.windowHolds).toBe(true);
    expect(rate.window).toEqual({ starts: 20, windowMs: 1050 });
  });

  it('a 429 at a kept limit widens the margin and the window holds the retry', () => {
    const { rate, clock, clean } = controller();
    clean(60, 25);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    clock.now += 1000;
    clean(40, 27);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    expect(rate.windowHolds).toBe(true);
    expect(rate.secondOverAt).toBeUndefined();
    expect(rate.window).toEqual({ starts: 38, windowMs: 1100 }); // about 37 a second were accepted around it
  });

  it('learns from a 429 that comes while a cut for rising latency is cooling down', () => {
    const { rate, clock, clean } = controller();
    clean(40, 25, 20);
    clean(5, 25, 400); // latency rises well above the best seen: concurrency is cut
    clock.now += 10;
    rate.observe({ kind: 'throttled', retryAfterMs: 1000 }, true);
    expect(rate.snapshot().learntLimitPerSecond).toBeDefined();
  });

  it('counts answers that come back after the 429 into the limit only when their request left before it', () => {
    const { rate, clock, clean } = controller();
    clean(40, 25);
    rate.observe({ kind: 'throttled', retryAfterMs: 2000, latencyMs: 30 }, true);
    clock.now += 100;
    rate.observe({ kind: 'ok', latencyMs: 200 }, true); // in flight when the 429 came: the shop took it in the same second
    expect(rate.snapshot().learntLimitPerSecond).toBe(41);
    clock.now += 1400;
    rate.observe({ kind: 'ok', latencyMs: 50 }, true); // sent after the 429: a new second at the shop
    expect(rate.snapshot().learntLimitPerSecond).toBe(41);
  });

  it('counts requests the shop answered 5xx into the limit it learns: the shop counted them too', () => {
    const fresh = controller();
    fresh.clean(4, 100); // the first four requests of the shop's second…
    fresh.clock.now += 100;
    fresh.rate.observe({ kind: 'overloaded', latencyMs: 5 }, true); // …and a fifth it answered 503
    fresh.clock.now += 100;
    fresh.rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 5 }, true);
    expect(fresh.rate.snapshot().learntLimitPerSecond).toBe(5);
    const { rate, clock, clean } = controller();
    clean(40, 25);
    rate.observe({ kind: 'throttled', retryAfterMs: 2000, latencyMs: 30 }, true);
    clock.now += 100;
    rate.observe({ kind: 'overloaded', latencyMs: 200 }, true); // in flight when the 429 came, answered 503
    expect(rate.snapshot().learntLimitPerSecond).toBe(41);
  });

  it('treats the 429s of one burst as one signal (cool-down of at least the Retry-After)', () => {
    const { rate, clock, clean } = controller();
    clean(40, 25);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    clock.now += 10;
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    expect(rate.window).toEqual({ starts: 40, windowMs: 1050 });
  });

  it('recovers additively towards the learnt limit after a cut, then probes beyond it twenty times more slowly', () => {
    const { rate, clock, clean } = controller();
    clean(40, 25);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000, latencyMs: 30 }, true);
    clock.now += 1000;
    rate.observe({ kind: 'overloaded' }, true); // a 5xx cuts the rate to 80 %
    const cut = rate.requestsPerSecond;
    clean(30, 33); // about one second of answers at the cut rate: about one more per second
    expect(rate.requestsPerSecond - cut).toBeGreaterThan(0.8);
    clean(300, 27); // back at the learnt limit kept over the margin
    const atLimit = rate.requestsPerSecond;
    expect(atLimit).toBeGreaterThanOrEqual(38);
    clean(39, 25);
    expect(rate.requestsPerSecond - atLimit).toBeLessThan(0.1);
    expect(rate.requestsPerSecond).toBeGreaterThan(atLimit);
  });

  it('a second 429 at a lower rate lowers the learnt limit; the rate never falls below the floor', () => {
    const { rate, clock, clean } = controller({ floorRequestsPerSecond: 2 });
    clean(20, 50);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000 }, true);
    clock.now += 2000;
    clean(10, 100);
    rate.observe({ kind: 'throttled', retryAfterMs: 1000 }, true);
    expect(rate.snapshot().learntLimitPerSecond).toBe(10);
    // The second 429 came in a second opened after a pause: its count is exact, the margin stays.
    expect(rate.window).toEqual({ starts: 10, windowMs: 1050 });
    clock.now += 5000;
    rate.observe({ kind: 'throttled', retryAfterMs: 1000 }, true);
    expect(rate.requestsPerSecond).toBe(2);
  });

  it('forgets a learnt limit after a minute without 429 and climbs back to the hard cap', () => {
    const { rate, clock, clean } = controller({ maxRequestsPerSecond: 12 });
    clean(10, 100);
    rate.observe({ kind: 'throttled', retryAfterMs: 0 }, true);
    expect(rate.window).toEqual({ starts: 10, windowMs: 1050 });
    clock.now += 1000;
    clean(100, 100); // ten seconds: a climb would add 10/s, a probe adds about 0.5/s
    expect(rate.requestsPerSecond).toBeLessThan(10.3);
    clock.now += 60_000;
    clean(100, 80);
    expect(rate.snapshot().learntLimitPerSecond).toBeUndefined();
    expect(rate.requestsPerSecond).toBe(12);
  });

  it('cuts requests in flight by a quarter when latency rises well above the best seen', () => {
    const { rate, clock, clean } = controller();
    clean(8, 10, 40);
    expect(rate.concurrency).toBe(6);
    clock.now += 1000;
    clean(6, 10, 400);
    expect(rate.concurrency).toBeLessThan(6);
    expect(rate.concurrency).toBeGreaterThanOrEqual(3);
    expect(rate.snapshot().phase).toBe('steady');
  });

  it('reads a loopback shop jittering between 1 and 6 ms as fast, not as rising latency', () => {
    const { rate, clock } = controller();
    for (let i = 0; i < 120; i++) {
      clock.now += 5;
      rate.observe({ kind: 'ok', latencyMs: i % 2 === 0 ? 1 : 6 }, true);
    }
    expect(rate.concurrency).toBe(16);
  });
});
