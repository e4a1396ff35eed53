/**
 * What the overview, `/api/overview` and the shops page know of each pipeline: its running and
 * last finished run, last success, dead letters and whether it is failing (src/pipeline/failing.ts).
 * Read for a whole page at once: one query for every running run, one for every cursor, then a
 * few indexed queries per pipeline in parallel (200 pipelines with 30 days of runs: docs/benchmarks.md, "Dashboard of a fleet").
 */
import type { ReplicasOverview } from '../jobs/overview.js';
import { DEFAULT_STALE_AFTER_MINUTES, failingFirst, failingReasons, matchesStatus, shopPauseOf, type FailingReason, type ShopPause, type StatusFilter } from '../pipeline/failing.js';
import { DEFAULT_SHOP, type RunRecord, type RunStatus, type ShopStreak, type StateStore, type StoredCursor } from '../state/index.js';
import type { DashboardPipeline } from './types.js';

/** How the overview describes a pipeline's state: running while a run is open, else paused (its shop is), failing or idle. */
export type PipelineState = 'idle' | 'running' | 'paused' | 'failing';

/** One pipeline as the dashboard shows it. */
export interface PipelineView {
  readonly pipeline: DashboardPipeline;
  readonly shop: string;
  readonly running?: RunRecord;
  /** The last finished run. */
  readonly last?: RunRecord;
  /** When the last succeeded or partial run finished (ISO). */
  readonly lastSuccessAt?: string;
  readonly deadLetters: number;
  /** Open conflicts: guarded fields the shop's people changed, waiting for a person (issue 46). */
  readonly conflicts: number;
  /** Its cursors by lane (`incremental`, the watermark lane, backfills). */
  readonly cursors: ReadonlyMap<string, StoredCursor>;
  /** Why it is failing; empty when it is not. */
  readonly reasons: readonly FailingReason[];
  readonly failing: boolean;
  /** Its shop's pause (failingShops): the daemons skip its scheduled and triggered runs. */
  readonly paused?: ShopPause;
  readonly state: PipelineState;
}

/** Where the views are read from. */
export interface ViewSource {
  readonly state: StateStore;
  readonly pipelines: readonly DashboardPipeline[];
  readonly replicas?: () => Promise<ReplicasOverview>;
  readonly staleAfterMinutes?: number;
  readonly now: Date;
}

/** A page's filters: one shop, one status. */
export interface ViewFilter {
  readonly shop?: string;
  readonly status?: StatusFilter;
}

const FINISHED: RunStatus[] = ['succeeded', 'partial', 'failed', 'aborted', 'crashed'];
const SUCCESSES: RunStatus[] = ['succeeded', 'partial'];

/** The shop of a pipeline (`default` when it names none). */
export const shopOfPipeline = (p: DashboardPipeline): string => p.shop ?? DEFAULT_SHOP;

/** The views of the pipelines the filter keeps, failing first; `replicas` as read on the way (the overview shows them). */
export async function pipelineViews(source: ViewSource, filter: ViewFilter = {}): Promise<{ views: PipelineView[]; replicas?: ReplicasOverview; streaks: readonly ShopStreak[] }> {
  const { state } = source;
  const pipelines = source.pipelines.filter((p) => filter.shop === undefined || shopOfPipeline(p) === filter.shop);
  const [runningRuns, allCursors, replicas, streaks, locks] = await Promise.all([state.runs.list({ status: 'running', limit: 1000 }), state.cursors.list(), source.replicas?.(), state.streaks.list(), state.locks.list()]);
  const holderOf = new Map(locks.map((l) => [l.name, l]));
  const streakOf = new Map(streaks.map((s) => [s.shop, s]));
  const cursorsOf = new Map<string, Map<string, StoredCursor>>();
  for (const c of allCursors) {
    let lanes = cursorsOf.get(c.pipeline);
    if (!lanes) cursorsOf.set(c.pipeline, (lanes = new Map()));
    lanes.set(c.name, c);
  }
  const runningOf = new Map<string, RunRecord>();
  // Newest first: the first one met is the pipeline's current run.
  for (const run of runningRuns) if (!runningOf.has(run.pipeline)) runningOf.set(run.pipeline, run);
  // A lane whose job the replicas gave up on counts as failing even when its last run is older than the job's failures.
  const givenUp = new Map<string, string>();
  for (const j of replicas?.jobs ?? []) if (j.state === 'failed' && j.pipeline !== undefined) givenUp.set(j.pipeline, j.lastError ?? `${j.attempts}/${j.maxAttempts} attempts failed`);
  const options = { now: source.now.getTime(), staleAfterMinutes: source.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES };
  const conflictsOf = await state.conflicts.openCounts();
  const views = await Promise.all(
    pipelines.map(async (p): Promise<PipelineView> => {
      const [[last], deadLetters, [lastSync]] = await Promise.all([
        state.runs.list({ pipeline: p.name, status: FINISHED, limit: 1 }),
        state.deadLetters.count(p.name),
        p.schedule ? state.runs.list({ pipeline: p.name, mode: 'sync', limit: 1 }) : Promise.resolve([]),
      ]);
      const success = last && SUCCESSES.includes(last.status) ? last : (await state.runs.list({ pipeline: p.name, status: SUCCESSES, limit: 1 }))[0];
      const running = runningOf.get(p.name);
      const lastSuccessAt = success?.finishedAt;
      const jobFailing = givenUp.get(p.name);
      const paused = shopPauseOf(streakOf.get(shopOfPipeline(p)));
      // Overdue and stuck: the last sync run's start against the schedule's slots, a running run against its lane's holder.
      const holder = running ? holderOf.get(running.lane) : undefined;
      const timing = {
        ...(p.schedule ? { schedule: { expression: p.schedule, ...(p.timezone ? { timezone: p.timezone } : {}) } } : {}),
        ...(lastSync ? { lastStartedAt: lastSync.startedAt } : {}),
        ...(running ? { running: { id: running.id, startedAt: running.startedAt, ...(holder ? { holderBeatAt: holder.heartbeatAt } : {}) } } : {}),
      };
      const reasons = failingReasons({ name: p.name, ...(last ? { lastFinished: last } : {}), ...(lastSuccessAt ? { lastSuccessAt } : {}), deadLetters, scheduled: p.schedule !== undefined, ...(jobFailing !== undefined ? { jobFailing } : {}), ...(paused ? { shopPaused: paused } : {}), ...timing }, options);
      const failing = reasons.length > 0;
      return { pipeline: p, shop: shopOfPipeline(p), ...(running ? { running } : {}), ...(last ? { last } : {}), ...(lastSuccessAt ? { lastSuccessAt } : {}), deadLetters, conflicts: conflictsOf.get(p.name) ?? 0, cursors: cursorsOf.get(p.name) ?? new Map(), reasons, failing, ...(paused ? { paused } : {}), state: running ? 'running' : paused ? 'paused' : failing ? 'failing' : 'idle' };
    }),
  );
  const kept = views.filter((v) => matchesStatus(filter.status, { failing: v.failing, running: v.running !== undefined }));
  return { views: failingFirst(kept), ...(replicas ? { replicas } : {}), streaks };
}
