/**
 * One run per scheduled tick, however many replicas tick. Every replica keeps its own clock
 * (schedules may have seconds, which the engine's crontab cannot express), so a tick reaches every
 * replica within milliseconds of the others. The lane's job key folds their ticks into one job only
 * while that job waits; once the first replica's job has started (or finished), another replica's
 * enqueue of the same tick would add a second run. So a tick is claimed first: the scheduled instant
 * (node-cron hands over the matched slot, whole seconds; truncated again here so clocks that differ
 * by milliseconds agree) is inserted into `<jobs schema>.ticks` with ON CONFLICT DO NOTHING, and
 * only the replica whose insert landed adds the job. The row also records what became of the tick
 * (a new job, folded into a job that already waited, or left to a pending retry), so `ticks` is
 * the witness of "one tick, one run". Claims older than `TICK_RETENTION_MS` are pruned.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { JobStore } from './store.js';

/** How long claims are kept: far longer than any clock skew between replicas, short enough to stay small (every-second schedules). */
export const TICK_RETENTION_MS = 15 * 60_000;
/** How often a replica prunes old claims. */
const PRUNE_EVERY_MS = 60_000;

/** What a claimed tick became. `coalesced`: a job of the lane already waited (its lane still busy), so this tick adds no run of its own. */
export type TickOutcome = 'added' | 'coalesced' | 'retry-pending';

/** The DDL of the claims table (run under the jobs schema's migration lock). */
export function ticksTableSql(schema: string): string {
  const q = pg.escapeIdentifier(schema);
  return `CREATE TABLE IF NOT EXISTS ${q}.ticks (
    job text NOT NULL,
    tick timestamptz NOT NULL,
    claimed_by text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    outcome text,
    PRIMARY KEY (job, tick)
  )`;
}

/** The scheduled instant of a tick, in whole seconds (cron's finest unit). */
export function tickInstant(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

/** Claims of scheduled ticks in the jobs schema. */
export class TickClaims {
  private lastPrune = -Infinity;
  private readonly q: string;

  constructor(private readonly jobs: JobStore) {
    this.q = pg.escapeIdentifier(jobs.schema);
  }

  /** Claim `job`'s tick `at` for replica `by`; true for exactly one replica per tick. */
  async claim(job: string, at: Date, by: string): Promise<boolean> {
    const tick = tickInstant(at);
    const r = await this.jobs.guard((utils) => utils.withPgClient((c) => c.query(`INSERT INTO ${this.q}.ticks (job, tick, claimed_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [job, tick, by])));
    // Monotonic: a wall clock stepped back must not postpone pruning for the size of the step.
    if (performance.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = performance.now();
      await this.prune();
    }
    return (r.rowCount ?? 0) === 1;
  }

  /** Record what the claimed tick became. */
  async settle(job: string, at: Date, outcome: TickOutcome): Promise<void> {
    await this.jobs.guard((utils) => utils.withPgClient((c) => c.query(`UPDATE ${this.q}.ticks SET outcome = $3 WHERE job = $1 AND tick = $2`, [job, tickInstant(at), outcome])));
  }

  /** Remove claims older than `olderThanMs`; returns how many went. */
  async prune(olderThanMs = TICK_RETENTION_MS): Promise<number> {
    const r = await this.jobs.guard((utils) => utils.withPgClient((c) => c.query(`DELETE FROM ${this.q}.ticks WHERE tick < now() - $1 * interval '1 millisecond'`, [olderThanMs])));
    return r.rowCount ?? 0;
  }
}
