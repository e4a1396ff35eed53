import { describe, expect, it } from 'vitest';
import { SentRequests } from '../../../src/shop/rate/index.js';

describe('requests sent (the actual rate beside the allowed one)', () => {
  it('counts the requests of the last 60 s and averages them over the whole minute', () => {
    let now = 1_000_000;
    const sent = new SentRequests(() => now);
    expect(sent.lastMinute()).toBe(0);
    expect(sent.perSecond()).toBe(0);
    for (let i = 0; i < 30; i++) sent.record();
    now += 10_000;
    for (let i = 0; i < 60; i++) sent.record();
    expect(sent.lastMinute()).toBe(90);
    expect(sent.perSecond()).toBe(1.5);
    // 55 s after the first burst it is still in the window; a second later (60 s) it is gone.
    now += 45_000;
    expect(sent.lastMinute()).toBe(90);
    now += 5_000;
    expect(sent.lastMinute()).toBe(60);
    now += 10_000;
    expect(sent.lastMinute()).toBe(0);
  });

  it('reuses a bucket a minute later without carrying its old count', () => {
    let now = 5_000;
    const sent = new SentRequests(() => now);
    sent.record();
    sent.record();
    now += 60_000;
    sent.record();
    expect(sent.lastMinute()).toBe(1);
    // An idle stretch of several minutes reads 0, not what the ring held before.
    now += 300_000;
    expect(sent.lastMinute()).toBe(0);
  });
});
