import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import { createScheduler, type RunRequest } from '../../src/scheduler/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('createScheduler', () => {
  it('never overlaps runs of one pipeline and logs the skipped tick', async () => {
    const { lines, logger } = capture();
    const gate = deferred();
    let active = 0;
    let maxActive = 0;
    const requests: RunRequest[] = [];
    const skipped: Date[] = [];
    const scheduler = createScheduler({
      pipelines: [{ name: 'products', schedule: '* * * * * *' }],
      logger,
      onSkip: (_p, tick) => skipped.push(tick),
      run: async (req) => {
        requests.push(req);
        active++;
        maxActive = Math.max(maxActive, active);
        await gate.promise;
        active--;
      },
    });
    scheduler.start();
    await new Promise<void>((resolve) => {
      const iv = setInterval(() => {
        if (skipped.length >= 1) {
          clearInterval(iv);
          resolve();
        }
      }, 50);
    });
    expect(scheduler.isRunning('products')).toBe(true);
    await expect(scheduler.runNow('products')).rejects.toMatchObject({ code: 'RUN_IN_PROGRESS' });
    gate.resolve();
    const result = await scheduler.close(5000);
    expect(result).toEqual({ settled: true, abandoned: [] });
    expect(maxActive).toBe(1);
    expect(requests[0]).toMatchObject({ pipeline: 'products', reason: 'schedule' });
    expect(requests[0].signal.aborted).toBe(true);
    const skipLine = lines.find((l) => String(l.msg).startsWith('skipped scheduled run'));
    expect(skipLine).toMatchObject({ pipeline: 'products', level: 40 });
    expect(typeof skipLine?.tick).toBe('string');
  });

  it('reports the next run in the pipeline time zone and none after closing', async () => {
    const { logger } = capture();
    const scheduler = createScheduler({
      pipelines: [{ name: 'stock', schedule: '0 3 * * *', timezone: 'Asia/Tokyo' }, { name: 'manual' }],
      logger,
      run: async () => {},
    });
    scheduler.start();
    const next = scheduler.nextRun('stock');
    expect(next).toBeInstanceOf(Date);
    // 03:00 in Tokyo is 18:00 UTC the day before.
    expect(next?.getUTCHours()).toBe(18);
    expect(next?.getUTCMinutes()).toBe(0);
    expect(scheduler.nextRun('manual')).toBeNull();
    await scheduler.close();
    expect(scheduler.nextRun('stock')).toBeNull();
  });

  it('runs a pipeline on demand and refuses unknown names', async () => {
    const { logger } = capture();
    const seen: RunRequest[] = [];
    const scheduler = createScheduler({ pipelines: [{ name: 'orders' }], logger, run: async (r) => void seen.push(r) });
    await scheduler.runNow('orders');
    expect(seen).toHaveLength(1);
    expect(seen[0].reason).toBe('manual');
    await expect(scheduler.runNow('nope')).rejects.toBeInstanceOf(StateError);
    await scheduler.close();
    await expect(scheduler.runNow('orders')).rejects.toMatchObject({ code: 'SCHEDULER_CLOSED' });
  });

  it('aborts in-flight runs on close and gives up on those that outlast the grace period', async () => {
    const { logger } = capture();
    let sawAbort = false;
    const scheduler = createScheduler({
      pipelines: [{ name: 'polite' }, { name: 'stubborn' }],
      logger,
      run: (r) =>
        r.pipeline === 'polite'
          ? new Promise<void>((resolve) => r.signal.addEventListener('abort', () => ((sawAbort = true), resolve())))
          : new Promise<void>(() => {}),
    });
    void scheduler.runNow('polite');
    void scheduler.runNow('stubborn');
    const result = await scheduler.close(200);
    expect(sawAbort).toBe(true);
    expect(result).toEqual({ settled: false, abandoned: ['stubborn'] });
  });

  it('logs a run that throws and keeps the pipeline schedulable', async () => {
    const { lines, logger } = capture();
    let calls = 0;
    const scheduler = createScheduler({
      pipelines: [{ name: 'flaky' }],
      logger,
      run: async () => {
        calls++;
        throw new Error('boom');
      },
    });
    await scheduler.runNow('flaky');
    await scheduler.runNow('flaky');
    expect(calls).toBe(2);
    expect(lines.filter((l) => l.msg === 'pipeline run threw')).toHaveLength(2);
    await scheduler.close();
  });
});
