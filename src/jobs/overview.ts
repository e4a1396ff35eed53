/** Replicas and jobs side by side, as `status`, `jobs list` and the dashboard show them. */
import type { ReplicaInfo, StateStore } from '../state/index.js';
import type { JobInfo, JobStore } from './store.js';

/**
 * How a replica row stands: `alive` beat within `deadAfterMs`; `silent` stopped beating while its
 * workers hold jobs (those lanes wait until a live replica reaps it); `gone` stopped beating and
 * holds nothing: a replica that is no longer there (rows a restore brought back, or one that exited
 * without removing its row), removed by the next live replica without anything to free.
 */
export type ReplicaState = 'alive' | 'silent' | 'gone';

/** A replica with what it runs. */
export interface ReplicaView extends ReplicaInfo {
  /** Beat within `deadAfterMs`. */
  readonly alive: boolean;
  readonly state: ReplicaState;
  /** Pipelines of the jobs its workers hold. */
  readonly running: readonly string[];
}

/** A job with the replica that runs it. */
export interface JobView extends JobInfo {
  readonly replica?: string;
}

/** Everything about the replicas of a state. */
export interface ReplicasOverview {
  readonly replicas: readonly ReplicaView[];
  readonly jobs: readonly JobView[];
}

/** Read replicas and jobs and tie each running job to its replica by worker id. */
export async function replicasOverview(state: StateStore, jobs: JobStore, deadAfterMs: number): Promise<ReplicasOverview> {
  const [rows, list] = await Promise.all([state.replicas.list(), jobs.list()]);
  const byWorker = new Map<string, ReplicaInfo>();
  for (const r of rows) for (const w of r.workerIds) byWorker.set(w, r);
  const jobViews: JobView[] = list.map((j) => {
    const replica = j.lockedBy ? byWorker.get(j.lockedBy)?.name : undefined;
    return replica ? { ...j, replica } : j;
  });
  const replicas: ReplicaView[] = rows.map((r) => {
    const running = list.filter((j) => j.lockedBy !== null && r.workerIds.includes(j.lockedBy)).map((j) => j.pipeline ?? `job ${j.id}`);
    const alive = r.heartbeatAgeMs <= deadAfterMs;
    return { ...r, alive, state: replicaState(alive, running.length), running };
  });
  return { replicas, jobs: jobViews };
}

/** `alive`, `silent` (not beating, holds jobs) or `gone` (not beating, holds nothing). */
export function replicaState(alive: boolean, jobsHeld: number): ReplicaState {
  return alive ? 'alive' : jobsHeld > 0 ? 'silent' : 'gone';
}

/** A duration for a table cell: 850ms, 12s, 4m 05s, 2h 10m. */
export function ageText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
