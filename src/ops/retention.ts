/**
 * The daemon's retention clock: prunes the state every `state.retention.everyMinutes` (first a
 * minute after start), never two prunes at once, and waits for a prune in progress on close.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { PruneReport, StateStore } from '../state/index.js';

/** A running retention clock. */
export interface RetentionClock {
  /** Prune now (also what the clock calls); resolves with the report. */
  pruneNow(): Promise<PruneReport>;
  /** Stop the clock and wait for a prune in progress. */
  stop(): Promise<void>;
}

/** The retention policy of a config. */
export function policyOf(config: Config): { eventsDays: number; payloadsDays: number; runsDays: number; batchSize: number } {
  const r = config.state.retention;
  return { eventsDays: r.eventsDays, payloadsDays: r.payloadsDays, runsDays: r.runsDays, batchSize: r.batchSize };
}

/** Start pruning `state` on the config's schedule (no clock when everyMinutes is 0). */
export function startRetention(state: StateStore, config: Config, logger: Logger, firstAfterMs = 60_000): RetentionClock {
  const log = logger.child({ component: 'retention' });
  const every = config.state.retention.everyMinutes * 60_000;
  let running: Promise<PruneReport> | undefined;
  const pruneNow = (): Promise<PruneReport> => {
    running ??= state.retention.prune(policyOf(config)).finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = () => {
    pruneNow().catch((err: unknown) => log.error({ err }, 'pruning the state failed; the next tick tries again'));
  };
  const timers: NodeJS.Timeout[] = [];
  if (every > 0) {
    const first = setTimeout(() => {
      tick();
      const interval = setInterval(tick, every);
      interval.unref();
      timers.push(interval);
    }, Math.min(firstAfterMs, every));
    first.unref();
    timers.push(first);
  }
  return {
    pruneNow,
    async stop() {
      for (const t of timers) clearTimeout(t);
      await running?.catch(() => undefined);
    },
  };
}
