/**
 * The daemon's clock: one loop for every scheduled pipeline. A pipeline never runs twice at
 * once — a tick that arrives while the previous run is still going is skipped and logged — and
 * closing stops the clock, asks in-flight runs to stop at their next checkpoint and waits for
 * them within a grace period.
 *
 * The loop is ours, not node-cron's timers: node-cron 4 arms one timer for "next slot − now" and,
 * when the wall clock steps back by N after that, sleeps through N of slots (an hour's step: an
 * hour without runs, nothing logged). Ours sleeps at most `maxSleepMs` at a time, reads the wall
 * clock on every wake and asks the watchdog (src/clock) whether it stepped: a step back re-arms
 * every schedule from the new time; a step forward (or a process that stalled) leaves slots
 * behind, which run once, coalesced, as the latest of them, the others counted as missed.
 *
 * Wake-ups (triggers: NOTIFY, file watcher, hook, polling) are coalesced, unlike ticks: the first
 * one starts a run after the pipeline's debounce, those during the debounce join it, and those
 * while a run is going ask for exactly one follow-up run, which starts one debounce after it ends
 * — a change committed after the run read past it is then never left waiting for the next tick.
 */
import { ClockWatchdog, describeStep, systemClock, type ClockSources, type ClockStep } from '../clock/watchdog.js';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';
import { cronSlots, latestDue, scheduleZone, type CronSlots } from './slots.js';

export { scheduleZone } from './slots.js';

/** Longest sleep of the loop: how late a step of the wall clock is noticed at most. @default 1000 */
export const MAX_SLEEP_MS = 1000;

/** A pipeline as the scheduler sees it. */
export interface SchedulablePipeline {
  readonly name: string;
  /** Cron expression; absent = runs only on demand. */
  readonly schedule?: string;
  /** IANA zone of the expression. @default the scheduler's `timezone` */
  readonly timezone?: string;
  /** How long wake-ups gather before the run starts. @default 200 */
  readonly debounceMs?: number;
}

/** Why a run started. */
export interface RunRequest {
  readonly pipeline: string;
  readonly reason: 'schedule' | 'manual' | 'wake';
  /** The tick that triggered the run (schedule) or the time it was asked for (manual). */
  readonly at: Date;
  /** Aborted when the scheduler closes: stop at the next checkpoint. */
  readonly signal: AbortSignal;
}

/** Options of `createScheduler`. */
export interface SchedulerOptions {
  readonly pipelines: readonly SchedulablePipeline[];
  /** Runs one pipeline; rejections are logged, never thrown at the clock. */
  readonly run: (request: RunRequest) => Promise<void>;
  readonly logger: Logger;
  /** Zone for pipelines without their own. @default the machine's zone */
  readonly timezone?: string;
  /** Called when a tick is skipped because the previous run has not finished. */
  readonly onSkip?: (pipeline: string, tick: Date) => void;
  /** Called with the slots a step forward or a stall passed over (their run was the one coalesced tick). */
  readonly onMissed?: (pipeline: string, slots: number) => void;
  /** Called on every step of the wall clock the watchdog noticed. */
  readonly onClockStep?: (step: ClockStep) => void;
  /** The clocks read (tests step a clock of their own). @default the process's */
  readonly clock?: ClockSources;
  /** Longest sleep between two looks at the clock. @default MAX_SLEEP_MS */
  readonly maxSleepMs?: number;
}

/** What closing achieved. */
export interface CloseResult {
  /** Every in-flight run finished within the grace period. */
  readonly settled: boolean;
  /** Pipelines still running when the grace period ended. */
  readonly abandoned: readonly string[];
}

/** A running schedule. */
export interface Scheduler {
  /** Start the clock. */
  start(): void;
  /** When the pipeline runs next (null = not scheduled or closed). */
  nextRun(pipeline: string): Date | null;
  /** Whether a run of the pipeline is in flight. */
  isRunning(pipeline: string): boolean;
  /** Ask for a run because the source changed: coalesced (one run, at most one follow-up); ignored once closed. */
  wake(pipeline: string, cause: string): void;
  /** Run a pipeline now (dashboard, startup); rejects with RUN_IN_PROGRESS when it is already running. */
  runNow(pipeline: string): Promise<void>;
  /** Stop ticking, abort in-flight runs at their next checkpoint, wait up to `graceMs` for them. */
  close(graceMs?: number): Promise<CloseResult>;
}

/** Create the schedule (call `start()` to begin ticking). */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const log = options.logger.child({ component: 'scheduler' });
  const known = new Map(options.pipelines.map((p) => [p.name, p]));
  const clock = options.clock ?? systemClock;
  const maxSleepMs = options.maxSleepMs ?? MAX_SLEEP_MS;
  /** Each scheduled pipeline's slots and the next one it waits for. */
  const armed = new Map<string, { slots: CronSlots; next: Date }>();
  let watchdog: ClockWatchdog | undefined;
  let loopTimer: NodeJS.Timeout | undefined;
  const running = new Map<string, Promise<void>>();
  const controller = new AbortController();
  /** Pipelines woken while running: one follow-up each when the run ends. */
  const followUps = new Set<string>();
  /** Debounce timers of woken, idle pipelines. */
  const gathering = new Map<string, NodeJS.Timeout>();
  let closed = false;

  function launch(pipeline: string, reason: RunRequest['reason'], at: Date): Promise<void> {
    const request: RunRequest = { pipeline, reason, at, signal: controller.signal };
    const done = Promise.resolve()
      .then(() => options.run(request))
      .catch((err: unknown) => {
        log.error({ pipeline, err }, 'pipeline run threw');
      })
      .finally(() => {
        running.delete(pipeline);
        // The follow-up gathers for the debounce too: under a steady stream of changes a run that
        // started the moment the last one ended would carry only the few changes of its run time.
        if (followUps.delete(pipeline) && !closed) wake(pipeline, 'follow-up');
      });
    running.set(pipeline, done);
    return done;
  }

  function wake(pipeline: string, cause: string): void {
    if (closed || !known.has(pipeline)) return;
    if (running.has(pipeline)) {
      if (!followUps.has(pipeline)) log.debug({ pipeline, cause }, 'woken while running: one follow-up run when it ends');
      followUps.add(pipeline);
      return;
    }
    if (gathering.has(pipeline)) return;
    const timer = setTimeout(() => {
      gathering.delete(pipeline);
      if (closed) return;
      if (running.has(pipeline)) {
        followUps.add(pipeline);
        return;
      }
      log.debug({ pipeline, cause }, 'woken');
      void launch(pipeline, 'wake', new Date());
    }, known.get(pipeline)?.debounceMs ?? 200);
    gathering.set(pipeline, timer);
  }

  function tick(pipeline: string, date: Date): void {
    if (closed) return;
    if (running.has(pipeline)) {
      log.warn({ pipeline, tick: date.toISOString() }, 'skipped scheduled run: the previous run of this pipeline is still in progress');
      options.onSkip?.(pipeline, date);
      return;
    }
    log.debug({ pipeline, tick: date.toISOString() }, 'scheduled tick');
    void launch(pipeline, 'schedule', date);
  }

  /** One look at the clock: re-arm after a step back, then tick every pipeline whose slot has come. */
  function poll(): void {
    const step = watchdog?.check();
    const now = new Date(clock.wallMs());
    if (step) {
      log.warn(
        { stepMs: step.stepMs, expected: step.expected.toISOString(), actual: step.actual.toISOString() },
        `the wall clock stepped ${describeStep(step.stepMs)}: ${step.direction === 'back' ? 'every schedule re-armed from the new time' : 'slots it passed over run once, coalesced'}`,
      );
      options.onClockStep?.(step);
      if (step.direction === 'back') for (const a of armed.values()) a.next = a.slots.nextAfter(now);
    }
    for (const [pipeline, a] of armed) {
      if (a.next.getTime() > now.getTime()) continue;
      const due = latestDue(a.slots, a.next, now);
      // After now, not after the slot run: a walk cut short (MAX_COUNTED_SLOTS) must not leave due slots for the next look.
      a.next = a.slots.nextAfter(now);
      if (due.skipped > 0) {
        log.warn({ pipeline, missed: due.skipped, tick: due.slot.toISOString() }, `${due.capped ? 'at least ' : ''}${due.skipped} scheduled slot(s) passed while the clock stepped or the process stalled: one run for them, at the latest`);
        options.onMissed?.(pipeline, due.skipped);
      }
      tick(pipeline, due.slot);
    }
  }

  /** Sleep until the earliest slot, at most `maxSleepMs`: timers run on the monotonic clock, slots on the wall clock. */
  function arm(): void {
    if (closed || armed.size === 0) return;
    const earliest = Math.min(...[...armed.values()].map((a) => a.next.getTime()));
    const delay = Math.min(maxSleepMs, Math.max(1, earliest - clock.wallMs()));
    // Not unref'd: the schedule is what keeps a daemon with nothing else to do alive.
    loopTimer = setTimeout(() => {
      loopTimer = undefined;
      if (closed) return;
      try {
        poll();
      } catch (err) {
        log.error({ err }, 'the schedule loop failed; it looks again at its next wake');
      }
      arm();
    }, delay);
  }

  return {
    start() {
      if (closed) throw new StateError('SCHEDULER_CLOSED', 'the scheduler was closed');
      const now = new Date(clock.wallMs());
      for (const p of options.pipelines) {
        if (!p.schedule || armed.has(p.name)) continue;
        const timezone = p.timezone ?? options.timezone;
        const slots = cronSlots(p.schedule, timezone);
        const next = slots.nextAfter(now);
        armed.set(p.name, { slots, next });
        log.info({ pipeline: p.name, schedule: p.schedule, timezone: scheduleZone(timezone), nextRun: next.toISOString() }, 'scheduled');
      }
      if (loopTimer === undefined) {
        watchdog ??= new ClockWatchdog(clock);
        arm();
      }
    },
    nextRun(pipeline) {
      if (closed) return null;
      return armed.get(pipeline)?.next ?? null;
    },
    isRunning(pipeline) {
      return running.has(pipeline);
    },
    wake,
    async runNow(pipeline) {
      if (!known.has(pipeline)) throw new StateError('UNKNOWN_PIPELINE', `no pipeline named "${pipeline}"; known: ${[...known.keys()].join(', ')}`);
      if (closed) throw new StateError('SCHEDULER_CLOSED', 'shopsync is shutting down');
      if (running.has(pipeline)) throw new StateError('RUN_IN_PROGRESS', `pipeline "${pipeline}" is already running`);
      await launch(pipeline, 'manual', new Date());
    },
    async close(graceMs = 30_000) {
      closed = true;
      for (const timer of gathering.values()) clearTimeout(timer);
      gathering.clear();
      followUps.clear();
      clearTimeout(loopTimer);
      loopTimer = undefined;
      armed.clear();
      // A run launched in this same turn is called on a later microtask: let it start, so it hears the abort.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const inFlight = [...running.keys()];
      controller.abort();
      if (inFlight.length === 0) return { settled: true, abandoned: [] };
      log.info({ pipelines: inFlight, graceMs }, 'waiting for in-flight runs to checkpoint');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), graceMs);
      });
      const result = await Promise.race([Promise.all(running.values()).then(() => 'settled' as const), timeout]);
      clearTimeout(timer);
      const abandoned = [...running.keys()];
      if (result === 'timeout') log.warn({ pipelines: abandoned }, 'grace period over; these runs will be marked crashed on the next start');
      return { settled: result === 'settled', abandoned };
    },
  };
}

/** The next time a cron expression fires after now (for `status` without a running daemon). */
export function nextOccurrence(expression: string, timezone?: string): Date | null {
  return cronSlots(expression, timezone).nextAfter(new Date());
}
