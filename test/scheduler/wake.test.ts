import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createScheduler, type RunRequest } from '../../src/scheduler/index.js';
import { sleep } from '../../src/util/time.js';

const logger = pino({ level: 'silent' });

describe('scheduler.wake', () => {
  it('turns a burst of 1,000 wake-ups into one run and at most one follow-up', async () => {
    const runs: RunRequest[] = [];
    const scheduler = createScheduler({
      pipelines: [{ name: 'stock', debounceMs: 50 }],
      logger,
      run: async (req) => {
        runs.push(req);
        await sleep(100);
      },
    });
    scheduler.start();
    for (let i = 0; i < 1000; i++) {
      scheduler.wake('stock', 'notify');
      if (i % 100 === 0) await sleep(10);
    }
    await sleep(600);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.length).toBeLessThanOrEqual(2);
    expect(runs.every((r) => r.reason === 'wake')).toBe(true);
    await scheduler.close();
  });

  it('runs once more after a run that was woken while it ran, so a change it read past is not left for the next tick', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const scheduler = createScheduler({
      pipelines: [{ name: 'stock', debounceMs: 10 }],
      logger,
      run: async (req) => {
        runs.push(req.reason);
        if (runs.length === 1) await gate;
      },
    });
    scheduler.start();
    const first = scheduler.runNow('stock');
    scheduler.wake('stock', 'notify');
    scheduler.wake('stock', 'notify');
    release();
    await first;
    await sleep(100);
    expect(runs).toEqual(['manual', 'wake']);
    await scheduler.close();
  });

  it('ignores wake-ups for unknown pipelines and after closing', async () => {
    const runs: string[] = [];
    const scheduler = createScheduler({ pipelines: [{ name: 'stock', debounceMs: 10 }], logger, run: async (req) => void runs.push(req.pipeline) });
    scheduler.start();
    scheduler.wake('nope', 'hook');
    scheduler.wake('stock', 'hook');
    await scheduler.close();
    await sleep(50);
    expect(runs).toEqual([]);
  });
});
