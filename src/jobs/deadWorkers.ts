/**
 * Worker ids of this replica whose worker is gone while the process lives on. graphile-worker 0.16
 * ends a worker that cannot release its job ("Failed to release job … committing seppuku", the
 * state server restarted under it) and leaves that job and its lane's queue locked by the dead id
 * for four hours; the heartbeat keeps the id in this replica's row, so no other replica reaps it
 * either. Here each such id is freed (`forceUnlockWorkers`) as soon as the server answers again:
 * the unlock is tried until it succeeds, with a back-off, and every failure is logged.
 */
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { JobStore } from './store.js';

/** Options of `DeadWorkers`. */
export interface DeadWorkersOptions {
  readonly store: JobStore;
  readonly logger: Logger;
  /** Called once the ids' jobs are free (the heartbeat drops them from this replica's row). */
  readonly onFreed?: (workerIds: readonly string[]) => Promise<void>;
  /** First wait after a failed unlock; doubles up to `maxDelayMs`. @default 500 */
  readonly baseDelayMs?: number;
  /** @default 10000 */
  readonly maxDelayMs?: number;
}

/** Frees dead workers' jobs, retrying until the state accepts it. */
export class DeadWorkers {
  readonly #pending = new Set<string>();
  #loop: Promise<void> | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(private readonly options: DeadWorkersOptions) {}

  /** Ids still waiting to be freed. */
  pending(): string[] {
    return [...this.#pending];
  }

  /** A worker died: free what it held, now or once the server answers. */
  add(workerId: string): void {
    if (this.#closed) return;
    this.#pending.add(workerId);
    this.#wake?.();
    this.#loop ??= this.#run().finally(() => {
      this.#loop = undefined;
      // Added while the last round finished: go again.
      if (this.#pending.size > 0 && !this.#closed) this.add([...this.#pending][0]!);
    });
  }

  /** Resolves once every id added so far is freed (tests, and stop() when the server answers). */
  async settled(): Promise<void> {
    while (this.#loop) await this.#loop;
  }

  /**
   * Stop retrying. Ids not freed stay locked in the engine's tables; the next start of a replica
   * frees them (they belong to no live replica then, see `JobStore.freeOrphans`).
   */
  close(): string[] {
    this.#closed = true;
    this.#wake?.();
    return this.pending();
  }

  async #run(): Promise<void> {
    const { store, logger } = this.options;
    let delayMs = this.options.baseDelayMs ?? 500;
    const maxDelayMs = this.options.maxDelayMs ?? 10_000;
    let failures = 0;
    while (this.#pending.size > 0 && !this.#closed) {
      const ids = [...this.#pending];
      try {
        const held = await store.lockedBy(ids);
        const { superseded } = await store.freeWorkers(ids);
        for (const id of ids) this.#pending.delete(id);
        logger.warn({ workers: ids, held, superseded, failures }, held > 0 ? 'freed the jobs of dead workers of this replica: their lanes run again' : 'dead workers of this replica held no jobs');
        if (held > 0) await store.nudge(held).catch(() => undefined);
        await this.options.onFreed?.(ids).catch((err: unknown) => logger.warn({ err: errorLine(err) }, 'could not drop the dead worker ids from this replica\'s row; the next beat writes the row again'));
        delayMs = this.options.baseDelayMs ?? 500;
        failures = 0;
      } catch (err) {
        failures++;
        logger.error({ workers: ids, err: errorLine(err), failures, retryInMs: delayMs }, 'could not free the jobs of dead workers (the state does not answer); trying again');
        await new Promise<void>((resolve) => {
          // Unref'd: housekeeping of a process the daemon's server keeps alive; a process that ends leaves the ids to the next start's orphan sweep.
          const timer = setTimeout(resolve, delayMs);
          timer.unref();
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
        delayMs = Math.min(maxDelayMs, delayMs * 2);
      }
    }
  }
}
