/**
 * Runs left `running` by a process that ended without finishing them (killed, crashed, out of
 * memory, the machine went down). Marking them is the lane owner's job; telling about them is
 * the event stream's, so the run-failed alert reaches a person with how far the run got.
 */
import { hostname } from 'node:os';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';
import { processAlive, type LockHandle, type RunCounts, type RunRecord, type RunStatus, type StateStore } from '../state/index.js';
import type { SyncEvents } from './events.js';

/**
 * The owner token of a run started (or taken over) under a lane lock: host, pid and the lock's own
 * id, so a takeover's warning says who took the run, and a process that held the lane twice (pid
 * reuse, a second acquire) is not mistaken for the first holder.
 */
export function runOwner(lock: Pick<LockHandle, 'owner'>): string {
  return `${hostname()}:${process.pid}:${lock.owner}`;
}

/** Mark the lane's runs still `running` as crashed (the lane's lock must be ours, `by` its `runOwner`); emits `run-crashed` for each. */
export async function markCrashedRuns(state: StateStore, lane: string, pipeline: string, events?: SyncEvents, by?: string): Promise<number> {
  const left = events ? (await state.runs.list({ pipeline, status: 'running', limit: 1000 })).filter((r) => r.lane === lane) : [];
  const marked = await state.runs.markCrashed(lane, by);
  if (marked > 0) for (const run of left) events?.emit({ type: 'run-crashed', run });
  return marked;
}

/**
 * A run that another process took over while this one could not answer (frozen, its sessions
 * ended): that process marked it crashed and runs the lane now. Whatever this process did is not
 * the run's outcome: the caller reports no result for it, commits nothing more, and the job it ran
 * for is the taker's.
 */
export class RunTakenOverError extends StateError {
  constructor(
    readonly runId: number,
    readonly takenBy: string | null,
    readonly statusNow: RunStatus | undefined,
  ) {
    super(
      'RUN_TAKEN_OVER',
      `run #${runId} was taken over${takenBy ? ` by ${takenBy}` : ''} while this process could not answer (it is ${statusNow ?? 'gone'} in the state); its outcome here is not recorded, and the lane runs on there`,
      { details: { runId, takenBy, status: statusNow ?? null } },
    );
  }
}

/**
 * The final write of this process's own run. When the run is no longer its own (a takeover marked
 * it crashed), logs that at warn and throws `RunTakenOverError`: the run must not be reported as
 * finished by this process.
 */
export async function finishOwnRun(
  state: StateStore,
  run: { readonly id: number; readonly owner: string },
  status: Exclude<RunStatus, 'running'>,
  counts: Readonly<RunCounts>,
  error: Readonly<Record<string, unknown>> | undefined,
  logger: Logger,
): Promise<void> {
  const done = await state.runs.finish(run.id, status, counts, error, run.owner);
  if (done.finished) return;
  logger.warn(
    // The logger names the run (runId) already.
    { takenBy: done.owner, statusNow: done.status ?? null, wouldHaveBeen: status, owner: run.owner },
    'the run was taken over by another process while this one could not answer; its final status is left as the taker wrote it',
  );
  throw new RunTakenOverError(run.id, done.owner, done.status);
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
