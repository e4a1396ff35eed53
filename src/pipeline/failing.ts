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
 * - `job-failing`: the replicas gave up on its run job (every attempt failed);
 * - `shop-paused`: its shop was paused after failing for long (`failingShops`, src/ops/shopStreaks.ts):
 *   its scheduled and triggered runs are skipped until `shopsync shops resume <shop>`;
 * - `overdue`: it runs on a schedule and no run of it started for `OVERDUE_SLOTS` of the schedule's
 *   slots since its last one started, whatever the cause (a stuck run, a stopped scheduler or job
 *   engine, a stepped clock); a paused shop's pipelines are skipped on purpose and are not overdue;
 * - `stuck`: a run of it is still `running` after that many slots and no live process holds its
 *   lane (no lock, or a lock whose holder stopped beating): nobody will finish or mark it.
 * A run in progress changes none of these: a pipeline whose last run failed is failing until a run
 * succeeds. A pipeline that never ran is not failing (nothing says since when it should have run);
 * an `aborted` run was stopped by a person and is not a failure either.
 */
import { slotsBetween } from '../scheduler/slots.js';
import type { RunRecord, ShopStreak } from '../state/index.js';

/** Why a pipeline counts as failing. */
export type FailingReasonCode = 'run-failed' | 'records-failed' | 'dead-letters' | 'stale' | 'job-failing' | 'shop-paused' | 'overdue' | 'stuck';

/** Slots of its schedule a pipeline may miss in a row before it is overdue. */
export const OVERDUE_SLOTS = 3;
/**
 * How late a slot's run may start and still count as on time: the job engine polls every 2 s, a
 * busy lane asks again after 5 s, a replica restarting takes seconds. Without it an every-second
 * schedule would flicker overdue at every slow start.
 */
export const OVERDUE_GRACE_MS = 60_000;
/** A lane lock whose holder has not beaten this long counts as held by nobody (runs beat every 15 s; SQLite's stale bound). */
export const HOLDER_SILENT_MS = 120_000;

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
  /** Its shop's pause (`shop_streaks`), when the shop is paused. */
  readonly shopPaused?: ShopPause;
  /** Its cron schedule and the zone it runs in: only a pipeline with one can be overdue or stuck. */
  readonly schedule?: { readonly expression: string; readonly timezone?: string };
  /** When its last sync run started (ISO; the one running counts): the slots after it are the runs it missed. */
  readonly lastStartedAt?: string;
  /** Its run still `running` and its lane's holder: `holderBeatAt` is the holder's last heartbeat (ISO), absent when nobody holds the lane. */
  readonly running?: { readonly id: number; readonly startedAt: string; readonly holderBeatAt?: string };
}

/** The slots a scheduled pipeline missed since `since`, when there are `OVERDUE_SLOTS` of them (each past its grace); else undefined. */
export function missedSlots(schedule: NonNullable<PipelineFacts['schedule']>, since: string | number, now: number): Date[] | undefined {
  const from = new Date(since);
  if (Number.isNaN(from.getTime())) return undefined;
  const slots = slotsBetween(schedule.expression, schedule.timezone, from, new Date(now - OVERDUE_GRACE_MS), OVERDUE_SLOTS);
  return slots.length >= OVERDUE_SLOTS ? slots : undefined;
}

/** A paused shop as the failing definition needs it. */
export interface ShopPause {
  readonly shop: string;
  /** When it was paused, epoch ms. */
  readonly pausedAt: number;
  readonly reason: string | null;
}

/** How to lift a shop's pause: one command, the same in every place that shows the pause. */
export const resumeCommand = (shop: string): string => `shopsync shops resume ${shop}`;

/** A shop's failure streak and pause as `status --json`, `GET /shops` and the dashboard show them. */
export interface ShopStreakView {
  /** Paused after failing for long: since when, why, and the command that resumes it; null while not paused. */
  readonly paused: { readonly since: string; readonly reason: string | null; readonly resume: string } | null;
  /** Runs of the shop that failed in a row for a reason of the shop's; null while none did. */
  readonly streak: { readonly failedRuns: number; readonly since: string | null; readonly lastError: string | null } | null;
}

/** The view of a shop's `shop_streaks` row (undefined: no streak, not paused). */
export function shopStreakView(shop: string, s: Pick<ShopStreak, 'failures' | 'failingSince' | 'lastError' | 'pausedAt' | 'pausedReason'> | undefined): ShopStreakView {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    paused: s && s.pausedAt !== null ? { since: new Date(s.pausedAt).toISOString(), reason: s.pausedReason, resume: resumeCommand(shop) } : null,
    streak: s && s.failures > 0 ? { failedRuns: s.failures, since: iso(s.failingSince), lastError: s.lastError } : null,
  };
}

/** The pause of a `shop_streaks` row, for `PipelineFacts.shopPaused`. */
export function shopPauseOf(s: Pick<ShopStreak, 'shop' | 'pausedAt' | 'pausedReason'> | undefined): ShopPause | undefined {
  return s && s.pausedAt !== null ? { shop: s.shop, pausedAt: s.pausedAt, reason: s.pausedReason } : undefined;
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
  const schedule = facts.schedule;
  if (schedule && facts.lastStartedAt !== undefined && !facts.shopPaused) {
    const missed = missedSlots(schedule, facts.lastStartedAt, options.now);
    if (missed) reasons.push({ code: 'overdue', text: `no run started since ${facts.lastStartedAt}: ${OVERDUE_SLOTS} or more slots of \`${schedule.expression}\` passed without one (the first at ${missed[0]!.toISOString()}); a stuck run, a stopped scheduler or job engine, or a stepped clock` });
  }
  const run = facts.running;
  if (schedule && run && missedSlots(schedule, run.startedAt, options.now)) {
    const beatAge = run.holderBeatAt === undefined ? undefined : options.now - Date.parse(run.holderBeatAt);
    if (beatAge === undefined || beatAge > HOLDER_SILENT_MS) {
      const holder = beatAge === undefined ? 'no process holds its lane' : `its lane's holder has not beaten for ${Math.round(beatAge / 1000)} s`;
      reasons.push({ code: 'stuck', text: `run #${run.id} is still running since ${run.startedAt} and ${holder}: nothing will finish it until a run of the lane (or the daemon's sweep) marks it crashed` });
    }
  }
  const pause = facts.shopPaused;
  if (pause) reasons.push({ code: 'shop-paused', text: `shop ${pause.shop} paused since ${new Date(pause.pausedAt).toISOString()}${pause.reason ? ` (${pause.reason})` : ''}: its scheduled runs are skipped; \`${resumeCommand(pause.shop)}\` resumes it` });
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
