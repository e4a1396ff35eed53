/**
 * Wall-clock steps of this process. shopsync's engine reads the time through `Date` (Date.now,
 * new Date()) itself, with no clock to inject, so a step replaces the global Date with one that
 * runs `offset` ahead of the real one; the monotonic clock (setTimeout, performance.now) is not
 * touched, as on a host whose wall clock NTP steps. Installed on the first step, offset 0 after
 * each history.
 */
const RealDate = Date;
let offsetMs = 0;
let installed = false;

// A Proxy, not a subclass: Dates made before the step stay `instanceof Date`, and `Date()` called
// without `new` still works, as libraries expect of the global.
const SteppedDate = new Proxy(RealDate, {
  construct(target, args: unknown[], newTarget) {
    return Reflect.construct(target, args.length === 0 ? [RealDate.now() + offsetMs] : args, newTarget);
  },
  apply() {
    return new RealDate(RealDate.now() + offsetMs).toString();
  },
  get(target, prop, receiver) {
    if (prop === 'now') return () => RealDate.now() + offsetMs;
    return Reflect.get(target, prop, receiver) as unknown;
  },
});

/** Move this process's wall clock by `ms` (negative: back). */
export function stepWallClock(ms: number): void {
  offsetMs += ms;
  if (!installed) {
    installed = true;
    globalThis.Date = SteppedDate;
  }
}

/** How far the wall clock stands from the real one. */
export function wallClockOffsetMs(): number {
  return offsetMs;
}

/**
 * Put the real Date back (offset 0). A test file that stepped the clock calls it when it is done:
 * vitest's workers run other files after it in the same process (test/support/noLeaks.ts fails a
 * file that leaves the global Date replaced), and they would read a clock days ahead.
 */
export function restoreWallClock(): void {
  offsetMs = 0;
  if (installed) {
    globalThis.Date = RealDate;
    installed = false;
  }
}
