import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createScheduler, type RunRequest } from '../../src/scheduler/index.js';
import { cronSlots, latestDue, MAX_COUNTED_SLOTS } from '../../src/scheduler/slots.js';
import type { ClockSources, ClockStep } from '../../src/clock/watchdog.js';

/**
 * The scheduler on a clock of the test's own: wall and monotonic time only move when the test
 * moves them, so what runs depends on the clock's story, never on the machine's speed. The loop's
 * real timers only decide how soon it looks (every few ms here).
 */
function steppedScheduler(schedule = '*/3 * * * * *') {
  let wall = Date.UTC(2026, 11, 1, 10, 0, 0, 500);
  let mono = 0;
  const clock: ClockSources = { wallMs: () => wall, monotonicMs: () => mono };
  const ticks: Date[] = [];
  const steps: ClockStep[] = [];
  const missed: number[] = [];
  const scheduler = createScheduler({
    pipelines: [{ name: 'stock', schedule }],
    logger: silentLogger,
    timezone: 'UTC',
    clock,
    maxSleepMs: 5,
    onClockStep: (s) => steps.push(s),
    onMissed: (_p, n) => missed.push(n),
    run: async (r: RunRequest) => {
      ticks.push(r.at);
    },
  });
  /** Let `ms` pass on both clocks and wait until the loop has looked at the clock since. */
  const pass = async (ms: number) => {
    wall += ms;
    mono += ms;
    await new Promise((r) => setTimeout(r, 30));
  };
  const step = async (ms: number) => {
    wall += ms;
    await new Promise((r) => setTimeout(r, 30));
  };
  return { scheduler, ticks, steps, missed, pass, step, wall: () => wall };
}

describe('the schedule when the wall clock steps', () => {
  it('keeps ticking after the clock steps back an hour, from the new time', async () => {
    const s = steppedScheduler();
    s.scheduler.start();
    await s.pass(3000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(1));
    await s.step(-3_600_000);
    await vi.waitFor(() => expect(s.steps).toHaveLength(1));
    expect(s.steps[0]).toMatchObject({ direction: 'back', stepMs: -3_600_000 });
    expect(s.scheduler.nextRun('stock')!.getTime() - s.wall()).toBeLessThanOrEqual(3000);
    for (let i = 0; i < 3; i++) await s.pass(3000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(4));
    // The ticks after the step are the new time's slots, an hour before the first one.
    expect(s.ticks[1].getTime()).toBeLessThan(s.ticks[0].getTime());
    expect(s.missed).toEqual([]);
    await s.scheduler.close();
  });

  it('runs the slots a step forward passed over once, as the latest of them, and counts the others as missed', async () => {
    const s = steppedScheduler('0 * * * * *');
    s.scheduler.start();
    await s.pass(60_000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(1));
    await s.step(7_200_000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(2));
    expect(s.steps).toMatchObject([{ direction: 'forward', stepMs: 7_200_000 }]);
    // 2 h of minute slots: 120, one of which ran.
    expect(s.missed).toEqual([119]);
    expect(s.ticks[1].getTime()).toBeLessThanOrEqual(s.wall());
    expect(s.wall() - s.ticks[1].getTime()).toBeLessThan(60_000);
    await s.pass(60_000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(3));
    await s.scheduler.close();
  });

  it('reports no step and misses no slot while both clocks move together', async () => {
    const s = steppedScheduler('* * * * * *');
    s.scheduler.start();
    for (let i = 0; i < 5; i++) await s.pass(1000);
    await vi.waitFor(() => expect(s.ticks).toHaveLength(5));
    expect(s.steps).toEqual([]);
    expect(s.missed).toEqual([]);
    await s.scheduler.close();
  });
});

describe('cron slots', () => {
  it('finds the latest slot due and counts those passed over, without walking an every-second schedule for hours', () => {
    const slots = cronSlots('* * * * * *', 'UTC');
    const from = new Date(Date.UTC(2026, 11, 1, 10, 0, 0));
    const near = latestDue(slots, from, new Date(from.getTime() + 4500));
    expect(near).toEqual({ slot: new Date(from.getTime() + 4000), skipped: 4, capped: false });
    const far = latestDue(slots, from, new Date(from.getTime() + 7_200_000));
    expect(far.slot).toEqual(new Date(from.getTime() + 7_200_000));
    expect(far).toMatchObject({ skipped: MAX_COUNTED_SLOTS, capped: true });
  });
});
