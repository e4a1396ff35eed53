/**
 * Runs left `running` by a process that ended without finishing them (killed, crashed, out of
 * memory, the machine went down). Marking them is the lane owner's job; telling about them is
 * the event stream's, so the run-failed alert reaches a person with how far the run got.
 */
import { hostname } from 'node:os';
import { processAlive, type RunRecord, type StateStore } from '../state/index.js';
import type { SyncEvents } from './events.js';

/** Mark the lane's runs still `running` as crashed (the lane's lock must be ours); emits `run-crashed` for each. */
export async function markCrashedRuns(state: StateStore, lane: string, pipeline: string, events?: SyncEvents): Promise<number> {
  const left = events ? (await state.runs.list({ pipeline, status: 'running', limit: 1000 })).filter((r) => r.lane === lane) : [];
  const marked = await state.runs.markCrashed(lane);
  if (marked > 0) for (const run of left) events?.emit({ type: 'run-crashed', run });
  return marked;
}

/** How far a run got, in words: `read 300, created 20, updated 0, failed 0`. */
export function progressOf(run: Pick<RunRecord, 'counts'>): string {
  const c = run.counts;
  return `read ${c.read}, created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, failed ${c.failed}, dead-lettered ${c.deadLettered}`;
}

/**
 * A run as a reader should see it: one still `running` on this host whose process is gone is
 * crashed, even before the next run or the daemon's sweep marks it so.
 */
export function asSeen(run: RunRecord): RunRecord {
  if (run.status !== 'running' || run.host !== hostname() || run.pid === undefined || processAlive(run.pid)) return run;
  return { ...run, status: 'crashed', error: { code: 'RUN_CRASHED', message: `the process running it (pid ${run.pid}) ended without finishing it after ${progressOf(run)}; the next run marks it crashed and continues from its last checkpoint` } };
}
