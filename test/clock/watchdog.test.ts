import { describe, expect, it } from 'vitest';
import { ClockWatchdog, describeDuration, describeStep, type ClockSources } from '../../src/clock/watchdog.js';

/** A wall clock and a monotonic clock the test moves: `pass` moves both, `step` only the wall. */
function clocks(startWall = Date.UTC(2026, 11, 1, 10, 0, 0)) {
  let wall = startWall;
  let mono = 0;
  const sources: ClockSources = { wallMs: () => wall, monotonicMs: () => mono };
  return {
    sources,
    pass(ms: number) {
      wall += ms;
      mono += ms;
    },
    step(ms: number) {
      wall += ms;
    },
  };
}

describe('ClockWatchdog', () => {
  it('reports nothing while the wall clock moves with the monotonic one, however long the wait between looks', () => {
    const c = clocks();
    const dog = new ClockWatchdog(c.sources);
    for (const ms of [1, 1000, 5000, 3_600_000]) {
      c.pass(ms);
      expect(dog.check()).toBeUndefined();
    }
  });

  it('reports a step back with its size, once', () => {
    const c = clocks();
    const dog = new ClockWatchdog(c.sources);
    c.pass(500);
    c.step(-3_600_000);
    c.pass(500);
    expect(dog.check()).toMatchObject({ stepMs: -3_600_000, direction: 'back' });
    c.pass(1000);
    expect(dog.check()).toBeUndefined();
  });

  it('reports a step forward', () => {
    const c = clocks();
    const dog = new ClockWatchdog(c.sources);
    c.step(7_200_000);
    const step = dog.check();
    expect(step).toMatchObject({ stepMs: 7_200_000, direction: 'forward' });
    expect(step!.actual.getTime() - step!.expected.getTime()).toBe(7_200_000);
  });

  it('takes disagreements below the threshold for noise (NTP slewing, timer jitter)', () => {
    const c = clocks();
    const dog = new ClockWatchdog(c.sources, 1000);
    c.pass(1000);
    c.step(999);
    expect(dog.check()).toBeUndefined();
    c.step(-999);
    expect(dog.check()).toBeUndefined();
    c.step(1000);
    expect(dog.check()).toMatchObject({ stepMs: 1000 });
  });

  it('says how large a step was in words', () => {
    expect(describeStep(-3_600_000)).toBe('1 h 0 min 0 s back');
    expect(describeStep(7_202_000)).toBe('2 h 0 min 2 s forward');
    expect(describeStep(-600_000)).toBe('10 min 0 s back');
    expect(describeDuration(1500)).toBe('2 s');
    expect(describeDuration(250)).toBe('250 ms');
  });
});
