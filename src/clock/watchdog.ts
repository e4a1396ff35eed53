/**
 * Notices steps of the wall clock (an NTP step, a VM resumed, someone running `date -s`). Timers
 * run on the monotonic clock, which never steps; anything that turns a wall-clock instant into a
 * timer delay ("next slot − now") is wrong by the size of a step taken after it was computed. The
 * watchdog compares how far the wall clock and the monotonic clock moved since its last look: a
 * busy event loop delays both alike, so only a step (or a slew far beyond NTP's 500 ppm) makes
 * them disagree.
 */
import { performance } from 'node:perf_hooks';

/** Where the watchdog reads time: the wall clock and a monotonic one, both in milliseconds. */
export interface ClockSources {
  /** Wall-clock time (Unix ms), which may step. */
  wallMs(): number;
  /** Monotonic time (ms since an arbitrary origin), which never steps. */
  monotonicMs(): number;
}

/** The process's own clocks. */
export const systemClock: ClockSources = { wallMs: () => Date.now(), monotonicMs: () => performance.now() };

/** Disagreements below this are timer and scheduling noise, not steps. @default 1000 */
export const STEP_THRESHOLD_MS = 1000;

/** A step of the wall clock between two looks. */
export interface ClockStep {
  /** Signed size: negative when the clock went back. */
  readonly stepMs: number;
  readonly direction: 'back' | 'forward';
  /** Wall time the clock would show without the step, and what it shows. */
  readonly expected: Date;
  readonly actual: Date;
}

/** Looks at both clocks on every `check()` and reports a step between two looks. */
export class ClockWatchdog {
  #lastWall: number;
  #lastMono: number;

  constructor(
    private readonly sources: ClockSources = systemClock,
    /** Smallest disagreement reported as a step. */
    private readonly thresholdMs: number = STEP_THRESHOLD_MS,
  ) {
    this.#lastWall = sources.wallMs();
    this.#lastMono = sources.monotonicMs();
  }

  /** The step since the last check, if the wall clock moved `thresholdMs` or more unlike the monotonic one. */
  check(): ClockStep | undefined {
    const wall = this.sources.wallMs();
    const mono = this.sources.monotonicMs();
    const expected = this.#lastWall + (mono - this.#lastMono);
    this.#lastWall = wall;
    this.#lastMono = mono;
    const stepMs = Math.round(wall - expected);
    if (Math.abs(stepMs) < this.thresholdMs) return undefined;
    return { stepMs, direction: stepMs < 0 ? 'back' : 'forward', expected: new Date(expected), actual: new Date(wall) };
  }
}

/** "1 h 0 min 2 s back": a step's size for log lines and doctor. */
export function describeStep(stepMs: number): string {
  const direction = stepMs < 0 ? 'back' : 'forward';
  return `${describeDuration(Math.abs(stepMs))} ${direction}`;
}

/** A duration in h/min/s (whole seconds; below a second in ms). */
export function describeDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return [h ? `${h} h` : '', h || min ? `${min} min` : '', `${s} s`].filter(Boolean).join(' ');
}
