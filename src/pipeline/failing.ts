/**
 * When a pipeline counts as failing: the one definition behind the dashboard's `?status=failing`
 * (page and `/api/overview`), the failing counts of the overview and the shops page, and
 * `shopsync status --failing`. A pipeline is failing while something it should deliver is not
 * delivered and needs a person, for any of these reasons:
 * - `run-failed`: its last finished run failed or crashed;
 * - `records-failed`: its last finished run left records failed (a `partial` run);
 * - `dead-letters`: dead letters wait (refused records are not delivered until retried or dropped);
 * - `stale`: it runs on a schedule and its last successful run finished longer ago than
 *   `alerts.staleAfterMinutes` (the "silently stopped" case the alerts also watch);
 * - `job-failing`: the replicas gave up on its run job (every attempt failed).
 * A run in progress changes none of these: a pipeline whose last run failed is failing until a run
 * succeeds. A pipeline that never ran is not failing (nothing says since when it should have run);
 * an `aborted` run was stopped by a person and is not a failure either.
 */
import type { RunRecord } from '../state/index.js';

/** Why a pipeline counts as failing. */
export type FailingReasonCode = 'run-failed' | 'records-failed' | 'dead-letters' | 'stale' | 'job-failing';

/** One reason, with a line a person can act on. */
export interface FailingReason {
  readonly code: FailingReasonCode;
  readonly text: string;
}

/** What the definition looks at, as the state and the job engine know it. */
export interface PipelineFacts {
  readonly name: string;
  /** The last finished run (not one still running). */
  readonly lastFinished?: Pick<RunRecord, 'id' | 'status' | 'counts' | 'error'>;
  /** When its last succeeded or partial run finished (ISO). */
  readonly lastSuccessAt?: string;
  readonly deadLetters: number;
  /** Whether it runs on a schedule: only a scheduled pipeline can be stale. */
  readonly scheduled: boolean;
  /** The last error of a run job the replicas gave up on; undefined when none was given up. */
  readonly jobFailing?: string;
}

/** The staleness bound when the config gives none: the default of `alerts.staleAfterMinutes`. */
export const DEFAULT_STALE_AFTER_MINUTES = 120;

/** Pipeline states a status filter accepts (`?status=` and `status --failing`). */
export const STATUS_FILTERS = ['failing', 'ok', 'running'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** Why a pipeline is failing; empty when it is not. `now` and `staleAfterMinutes` decide staleness. */
export function failingReasons(facts: PipelineFacts, options: { readonly now: number; readonly staleAfterMinutes: number }): FailingReason[] {
  const reasons: FailingReason[] = [];
  const last = facts.lastFinished;
  if (last && (last.status === 'failed' || last.status === 'crashed')) {
    const code = typeof last.error?.code === 'string' ? ` [${last.error.code}]` : '';
    reasons.push({ code: 'run-failed', text: `last run #${last.id} ${last.status}${code}` });
  } else if (last && last.counts.failed > 0) {
    reasons.push({ code: 'records-failed', text: `last run #${last.id} left ${last.counts.failed} record(s) failed` });
  }
  if (facts.deadLetters > 0) reasons.push({ code: 'dead-letters', text: `${facts.deadLetters} dead letter(s) wait: retry or drop them` });
  if (facts.scheduled && facts.lastSuccessAt !== undefined) {
    const ageMs = options.now - Date.parse(facts.lastSuccessAt);
    if (ageMs > options.staleAfterMinutes * 60_000) reasons.push({ code: 'stale', text: `no successful run for ${Math.floor(ageMs / 60_000)} min (stale after ${options.staleAfterMinutes})` });
  }
  if (facts.jobFailing !== undefined) reasons.push({ code: 'job-failing', text: `run job given up: ${facts.jobFailing}` });
  return reasons;
}

/** Whether a status filter keeps a pipeline (undefined keeps every one). */
export function matchesStatus(filter: StatusFilter | undefined, view: { readonly failing: boolean; readonly running: boolean }): boolean {
  if (filter === undefined) return true;
  if (filter === 'failing') return view.failing;
  if (filter === 'running') return view.running;
  return !view.failing;
}

/** A status filter from text (a query string, a flag); undefined for none, `invalid` for a word it does not know. */
export function parseStatusFilter(text: string | undefined): StatusFilter | undefined | 'invalid' {
  if (text === undefined || text === '' || text === 'all') return undefined;
  return (STATUS_FILTERS as readonly string[]).includes(text) ? (text as StatusFilter) : 'invalid';
}

/** Failing pipelines first, the rest after, each group in the order given. */
export function failingFirst<T extends { readonly failing: boolean }>(items: readonly T[]): T[] {
  return [...items.filter((i) => i.failing), ...items.filter((i) => !i.failing)];
}
