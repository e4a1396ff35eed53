/**
 * What a stopping daemon checks last: that the state shows none of its runs as `running`. A run
 * whose final write the state refused (it restarted, or is down) is written once more here. What still cannot be written is returned, so `shopsync run` exits non-zero naming it
 * instead of exiting 0 over a state that says the run goes on.
 */
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import { unfinishedRuns } from '../pipeline/finish.js';
import type { StateStore } from '../state/index.js';

/** A run of this process the state may still show as `running`. */
export interface RunLeftRunning {
  readonly runId: number;
  readonly pipeline: string;
  /** Why it could not be written. */
  readonly error: string;
}

/**
 * Write the final status of this daemon's runs that the state has not taken (every run its
 * runtime started is listed until the state took its end: src/pipeline/finish.ts). `settled`: the
 * scheduler and the engine have no run in flight (one still in flight after the grace period is
 * left alone: its process ends, exit 4, and the next start marks it crashed).
 * Only the runtime's own runs are looked at: another runtime of the same process (tests, the demo)
 * may have runs of its own in flight under the same pid.
 */
export async function settleOwnRuns(state: StateStore, logger: Logger, o: { readonly settled: boolean }): Promise<RunLeftRunning[]> {
  const log = logger.child({ component: 'shutdown' });
  const left: RunLeftRunning[] = [];
  for (const run of unfinishedRuns(state)) {
    if (run.status === undefined) {
      // Still in flight: after the grace period that is exit 4's case; otherwise a run nothing waited for (it is not this code's to end).
      if (o.settled) left.push({ runId: run.runId, pipeline: run.pipeline, error: 'it was still in flight when the daemon stopped' });
      continue;
    }
    try {
      await run.write();
      log.warn({ runId: run.runId, pipeline: run.pipeline, status: run.status ?? 'crashed' }, 'wrote the final status of a run that the state had refused');
    } catch (err) {
      left.push({ runId: run.runId, pipeline: run.pipeline, error: errorLine(err) });
    }
  }
  return left;
}
