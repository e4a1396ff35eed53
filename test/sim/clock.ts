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

class SteppedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...(args as [string | number | Date]));
  }
  static override now(): number {
    return RealDate.now() + offsetMs;
  }
}

/** Move this process's wall clock by `ms` (negative: back). */
export function stepWallClock(ms: number): void {
  offsetMs += ms;
  if (!installed) {
    installed = true;
    globalThis.Date = SteppedDate as DateConstructor;
  }
}

/** How far the wall clock stands from the real one. */
export function wallClockOffsetMs(): number {
  return offsetMs;
}
