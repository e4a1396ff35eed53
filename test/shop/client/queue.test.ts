import { describe, expect, it } from 'vitest';
import { RequestQueue } from '../../../src/shop/client/queue.js';
import type { ClientEvent } from '../../../src/shop/index.js';
import { until } from '../../support/wait.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

function queue(options: Partial<{ concurrency: number; intervalCap: number; intervalMs: number }> = {}) {
  const events: ClientEvent[] = [];
  const q = new RequestQueue({ mode: 'fixed', concurrency: 2, intervalCap: 100, intervalMs: 1000, onEvent: (e) => events.push(e), ...options });
  return { q, events };
}

describe('request queue', () => {
  it('runs at most `concurrency` requests at once', async () => {
    const { q } = queue({ concurrency: 2 });
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      running--;
    };
    await Promise.all(Array.from({ length: 6 }, () => q.run(task)));
    expect(peak).toBe(2);
    await q.close();
  });

  it('starts no more than `intervalCap` requests per interval', async () => {
    const { q } = queue({ concurrency: 10, intervalCap: 2, intervalMs: 60_000 });
    let started = 0;
    const runs = Array.from({ length: 3 }, () => q.run(async () => void started++));
    await tick();
    expect(started).toBe(2);
    expect(q.depth().size).toBe(1);
    await q.close();
    await expect(runs[2]).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it('says what it actually sent beside what it allows: requests of the last minute and those on the wire', async () => {
    let now = 1_000_000;
    for (const mode of ['fixed', 'adaptive'] as const) {
      const q = new RequestQueue({ mode, concurrency: 4, intervalCap: 100, intervalMs: 1000, onEvent: () => undefined, now: () => now });
      expect(q.rate().sent).toEqual({ lastMinute: 0, perSecond: 0, inFlight: 0 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const held = q.run(async () => {
        started++;
        await gate;
      });
      await until(() => started === 1);
      expect(q.rate().sent, mode).toEqual({ lastMinute: 1, perSecond: 0, inFlight: 1 });
      release();
      await held;
      await Promise.all(Array.from({ length: 5 }, () => q.run(async () => undefined)));
      // 6 requests in the last 60 s: 0.1/s actual, whatever the allowed rate (100/s) says.
      expect(q.rate(), mode).toMatchObject({ requestsPerSecond: 100, sent: { lastMinute: 6, perSecond: 0.1, inFlight: 0 } });
      now += 60_000;
      expect(q.rate().sent, mode).toEqual({ lastMinute: 0, perSecond: 0, inFlight: 0 });
      await q.close();
    }
  });

  it('pauses after a 429 until Retry-After has passed', async () => {
    const { q } = queue();
    q.throttle(60_000);
    let started = false;
    const waiting = q.run(async () => {
      started = true;
    });
    await tick();
    expect(started).toBe(false);
    expect(q.depth()).toEqual({ size: 1, pending: 0 });
    await q.close();
    await expect(waiting).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(started).toBe(false);
  });

  it('halves the rate after each 429 and recovers one step per `intervalCap` successes', async () => {
    const { q } = queue({ concurrency: 8, intervalCap: 3 });
    q.throttle(0);
    q.throttle(0);
    expect(q.slowdown).toBe(4);
    for (let i = 0; i < 2; i++) q.succeeded();
    expect(q.slowdown).toBe(4);
    q.succeeded();
    expect(q.slowdown).toBe(2);
    for (let i = 0; i < 3; i++) q.succeeded();
    expect(q.slowdown).toBe(1);
    await q.close();
  });

  it('reports its depth as events', async () => {
    const { q, events } = queue();
    await q.run(async () => 1);
    expect(events.some((e) => e.type === 'queue' && e.pending + e.size >= 1)).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'queue', size: 0, pending: 0 });
    await q.close();
  });

  it('rejects waiting work with CLIENT_CLOSED when closed', async () => {
    const { q } = queue();
    q.throttle(60_000);
    const waiting = q.run(async () => 1);
    await q.close();
    await expect(waiting).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it('rejects attempts that wait when their signal aborts, and answers the one already running', async () => {
    const { q } = queue({ concurrency: 1 });
    const stop = new AbortController();
    let finish!: () => void;
    const sent: number[] = [];
    const running = q.run(() => {
      sent.push(1);
      return new Promise<string>((resolve) => (finish = () => resolve('answered')));
    }, stop.signal);
    const waiting = [2, 3].map((n) => q.run(async () => void sent.push(n), stop.signal));
    await tick();
    expect(q.depth()).toEqual({ size: 2, pending: 1 });
    stop.abort(new Error('run stopping'));
    await expect(waiting[0]).rejects.toThrow('run stopping');
    await expect(waiting[1]).rejects.toThrow('run stopping');
    finish();
    await expect(running).resolves.toBe('answered');
    expect(sent).toEqual([1]);
    await q.close();
  });

  it('rejects an attempt held by a 429 pause when its signal aborts', async () => {
    const { q } = queue();
    q.throttle(60_000);
    const stop = new AbortController();
    let started = false;
    const waiting = q.run(async () => void (started = true), stop.signal);
    await tick();
    stop.abort(new Error('run stopping'));
    await expect(waiting).rejects.toThrow('run stopping');
    expect(started).toBe(false);
    await q.close();
  });

  it('refuses work after close', async () => {
    const { q } = queue();
    await q.close();
    await expect(q.run(async () => 1)).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});
