/**
 * A run's final write (`runs.finish`) and the runs of this process the state still shows as
 * `running`. A state that restarts under a run refuses that write; left at that, the row says
 * `running` for as long as the process lives (status, alerts and `/readyz` believe it), and a
 * daemon that then exits 0 leaves it so for good. So the write is tried again, with a back-off and
 * a log line each time, until the state takes it; only a shutdown ends the retries, and then the
 * run stays listed here for the daemon, which tries once more and exits non-zero naming it when
 * the state still refuses (src/ops/daemon.ts).
 */
import { errorLine, StateError, SyncError } from '../errors.js';
import type { Logger } from '../log.js';
import { type RunStatus, type StateStore } from '../state/index.js';
import { sleep } from '../util/time.js';

/** A run of this process whose final status has not reached the state. */
export interface UnfinishedRun {
  readonly runId: number;
  readonly pipeline: string;
  /** The status it ended with; undefined while it still runs. */
  readonly status?: Exclude<RunStatus, 'running'>;
  /** The state the run was started in (runs of several runtimes may share a process). */
  readonly state: StateStore;
  /** Try the final write once more (only once `status` is known). */
  write(): Promise<void>;
}

const open = new Map<number, UnfinishedRun>();

/** The state's codes for a server that does not answer now (src/state/postgres/db.ts); driver errors without a code of ours count too. */
const SERVER_AWAY = new Set(['STATE_CONNECTION_LOST', 'STATE_UNREACHABLE']);

/** The runs this process started in `state` whose final status the state has not taken yet. */
export function unfinishedRuns(state: StateStore): UnfinishedRun[] {
  return [...open.values()].filter((r) => r.state === state);
}

/** A run started: listed until its final write lands. `state` is the runtime's store. */
export function runStarted(state: StateStore, runId: number, pipeline: string): void {
  const entry: UnfinishedRun = {
    runId,
    pipeline,
    state,
    write: () => Promise.reject(new StateError('RUN_IN_FLIGHT', `run #${runId} of ${pipeline} has not ended yet; only its own end writes its status`)),
  };
  open.set(runId, entry);
}

/** Options of `finishRun`. */
export interface FinishOptions {
  readonly logger: Logger;
  /** The caller's shutdown: once aborted, a failed write is not tried again here (the daemon tries once more). */
  readonly signal?: AbortSignal;
  /** First wait after a refused write; doubles up to `maxDelayMs`. @default 500 */
  readonly baseDelayMs?: number;
  /** @default 15000 */
  readonly maxDelayMs?: number;
  /** Stop trying after this long (then it throws). @default Infinity */
  readonly giveUpAfterMs?: number;
}

/**
 * Write a run's final status with `write` (the state's `runs.finish` for this run), again and again
 * while the server refuses it (a driver error), until the state takes it; a shutdown ends the
 * retries (then it throws), and so does a typed answer of shopsync's own (a run taken over).
 */
export async function finishRun(runId: number, status: Exclude<RunStatus, 'running'>, write: () => Promise<void>, o: FinishOptions): Promise<void> {
  const entry = open.get(runId);
  if (entry) open.set(runId, { ...entry, status, write: async () => { await write(); open.delete(runId); } });
  let delayMs = o.baseDelayMs ?? 500;
  const giveUpAt = Date.now() + (o.giveUpAfterMs ?? Infinity);
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      open.delete(runId);
      if (attempt > 1) o.logger.warn({ status, attempts: attempt }, 'the state took the run\'s final status after refusing it');
      return;
    } catch (err) {
      // A typed error other than "the server is away" is shopsync's own answer (a closed store, a run no longer this process's): trying again changes nothing.
      if (err instanceof SyncError && !SERVER_AWAY.has(err.code)) throw err;
      if (o.signal?.aborted || Date.now() >= giveUpAt) {
        o.logger.error({ err: errorLine(err), status, attempts: attempt }, o.signal?.aborted ? 'the state refused the run\'s final status and this process is stopping; the daemon tries once more before it exits' : 'the state refused the run\'s final status for too long (finishRetryMs); the run stays `running` there until the next run of its lane marks it crashed');
        throw err;
      }
      o.logger.error({ err: errorLine(err), status, attempts: attempt, retryInMs: delayMs }, 'the state refused the run\'s final status (it stays `running` there until this lands); trying again');
      await sleep(delayMs, o.signal).catch(() => undefined);
      delayMs = Math.min(o.maxDelayMs ?? 15_000, delayMs * 2);
    }
  }
}
