/**
 * The job engine of one replica: graphile-worker running the pipeline-run task. Any replica may
 * take any job; a lane's queue runs one job at a time across all of them. Every worker registers
 * its id (through `onWorker`, before it takes its first job) so that, should this process die,
 * the others can free what it held.
 */
import { EventEmitter } from 'node:events';
import { run, type Runner, type RunnerOptions, type Task, type WorkerEvents } from 'graphile-worker';
import { errorCode, errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { RunSummary } from '../pipeline/index.js';
import { DeadWorkers } from './deadWorkers.js';
import { workerLogger } from './logger.js';
import { migrateNoticeGuard } from './migrateNotices.js';
import { RUN_TASK, shopFlag } from './names.js';
import { JOBS_RELEASED, runPayloadSchema, type JobStore } from './store.js';

declare global {
  namespace GraphileConfig {
    interface Plugins {
      ShopsyncReplicaPlugin: true;
    }
  }
}

/** What a job's run ended as: a pipeline run's summary, or the outcome of another job of a lane (a reconciliation). */
export type JobOutcome = Pick<RunSummary, 'status' | 'error'> & { readonly runId?: number };

/** Options of `startJobEngine`. */
export interface JobEngineOptions {
  readonly url: string;
  readonly store: JobStore;
  readonly concurrency: number;
  readonly maxAttempts: number;
  /** This replica's name (job payloads say who added them). */
  readonly replica: string;
  readonly logger: Logger;
  /** Run a pipeline once (incremental); stops at its next checkpoint when `signal` aborts. */
  run(job: string, signal: AbortSignal): Promise<JobOutcome>;
  /** Record a new worker id of this replica; awaited before that worker takes a job. */
  onWorker(workerId: string): Promise<void>;
  /**
   * The worker ids of the live replicas (a fresh heartbeat); when given, jobs locked by any other
   * worker id are freed before this engine takes a job (`JobStore.freeOrphans`).
   */
  liveWorkers?(): Promise<readonly string[]>;
  /** Worker ids of this replica that died and whose jobs are freed (drop them from the replica's row). */
  onWorkersGone?(workerIds: readonly string[]): Promise<void>;
  /** How long after a worker died its replacement starts. @default 1000 */
  readonly restartDelayMs?: number;
  /** How long a job waits before asking again when its lane is held by a process outside the engine (`shopsync sync`). @default 5000 */
  readonly laneBusyDelayMs?: number;
  /** The shop of a pipeline (jobs carry it as a flag); undefined: no per-shop share. */
  readonly shopOf?: (pipeline: string) => string | undefined;
  /** Jobs of one shop this replica runs at once: the rest of its workers stay for the other shops' jobs. @default concurrency */
  readonly perShopConcurrency?: number;
}

/** A job this replica runs now. */
export interface ActiveJob {
  readonly jobId: string;
  readonly pipeline: string;
  readonly workerId: string;
  readonly startedAt: string;
}

/** What stopping did. */
export interface EngineStopResult {
  /** Every running job finished or was handed back within the grace period. */
  readonly settled: boolean;
  /** Pipelines whose job was handed back to the other replicas. */
  readonly handedBack: readonly string[];
}

/** A running engine. */
export interface JobEngine {
  /** The ids of this replica's workers. */
  workerIds(): string[];
  /** Jobs running here. */
  active(): ActiveJob[];
  /** False once stopping began or the engine died. */
  isRunning(): boolean;
  /**
   * Stop taking jobs, abort running runs at their next checkpoint, hand their jobs back (same
   * key, due now) so another replica continues at once, and wait up to `graceMs`.
   */
  stop(graceMs: number): Promise<EngineStopResult>;
}

/** Start the engine: install the task, register workers, take jobs. */
export async function startJobEngine(options: JobEngineOptions): Promise<JobEngine> {
  const { store, logger } = options;
  const log = logger.child({ component: 'jobs' });
  const shutdown = new AbortController();
  const workers = new Set<string>();
  const active = new Map<string, ActiveJob>();
  const handedBack = new Set<string>();
  const handedBackJobs = new Set<string>();
  /** The grace period of stop() ran out: runs ending now leave their job alone (see `jobCall`). */
  let graceOver = false;
  /** Resolved when no task runs here: stop() waits for this too, not only for the runners. */
  const idleWaiters: (() => void)[] = [];
  const whenIdle = (): Promise<void> => (active.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)));
  const perShop = options.perShopConcurrency ?? options.concurrency;
  const shopOf = (pipeline: string) => options.shopOf?.(pipeline);
  /** Jobs of each shop running here. */
  const shopLoad = () => {
    const load = new Map<string, number>();
    for (const a of active.values()) {
      const shop = shopOf(a.pipeline);
      if (shop !== undefined) load.set(shop, (load.get(shop) ?? 0) + 1);
    }
    return load;
  };
  // Asked by every worker right before it looks for a job: a shop with its share of workers busy here waits, so another shop's job gets the free worker.
  const forbiddenFlags = () => [...shopLoad()].filter(([, n]) => n >= perShop).map(([shop]) => shopFlag(shop));

  const task: Task = async (raw, helpers) => {
    const { pipeline } = runPayloadSchema.parse(raw);
    const job = helpers.job;
    const workerId = job.locked_by ?? '';
    const jobLog = log.child({ pipeline, jobId: job.id, attempt: job.attempts });
    const shop = shopOf(pipeline);
    /**
     * A job call after the grace period (or after the store was released): the job is left as it
     * is, locked by this replica's worker, and the task never returns, so neither this code nor
     * graphile-worker (completeJob/failJob) touches the released pools; the other replicas free the
     * job once this replica counts as dead (replicas.deadAfterMs), and the lane's lock keeps them
     * from running it while this process still does.
     */
    const jobCall = async <T>(call: () => Promise<T>): Promise<T> => {
      if (!graceOver) {
        try {
          return await call();
        } catch (err) {
          if (errorCode(err) !== JOBS_RELEASED) throw err;
        }
      }
      jobLog.info('run ended after the grace period; its job stays with this replica and the other replicas free it once this one counts as dead');
      return new Promise<never>(() => undefined);
    };
    // Two workers that looked in the same instant may both have taken a job of one shop: the one over its share asks again in a second.
    if (shop !== undefined && (shopLoad().get(shop) ?? 0) >= perShop) {
      await jobCall(() => store.enqueueRun(pipeline, { reason: 'lane-busy', by: options.replica, maxAttempts: options.maxAttempts, delayMs: 1000, shop }));
      jobLog.debug({ shop, perShopConcurrency: perShop }, 'the shop has its share of this replica\'s workers; the job asks again shortly');
      return;
    }
    active.set(job.id, { jobId: job.id, pipeline, workerId, startedAt: new Date().toISOString() });
    const handBack = async (): Promise<void> => {
      await jobCall(() => store.enqueueRun(pipeline, { reason: 'handback', by: options.replica, maxAttempts: options.maxAttempts, ...(shop !== undefined ? { shop } : {}) }));
      handedBack.add(pipeline);
      handedBackJobs.add(job.id);
      jobLog.info('replica stopping: run stopped at its checkpoint, job handed back to the other replicas');
    };
    const fail = async (message: string): Promise<void> => {
      const how = await jobCall(() => store.settleFailure(job, message));
      if (how === 'superseded') {
        jobLog.warn({ err: message }, 'run job failed; a newer job of this lane retries it (failure counted there)');
        return;
      }
      if (how === 'final') jobLog.error({ err: message, attempts: job.attempts }, `run job failed ${job.attempts} times; it stays listed as failing (shopsync jobs list, dashboard, shopsync_jobs{state="failing"}) and the next tick tries again`);
      throw new Error(message);
    };
    try {
      let summary: JobOutcome;
      const signal = helpers.abortSignal ? AbortSignal.any([shutdown.signal, helpers.abortSignal]) : shutdown.signal;
      try {
        summary = await options.run(pipeline, signal);
      } catch (err) {
        if (shutdown.signal.aborted) return await handBack();
        if (errorCode(err) === 'LOCK_HELD') {
          // Held outside the engine (a `shopsync sync`, or a dead replica whose session the server has not ended yet): ask again shortly, without counting an attempt.
          const delayMs = options.laneBusyDelayMs ?? 5000;
          await jobCall(() => store.enqueueRun(pipeline, { reason: 'lane-busy', by: options.replica, maxAttempts: options.maxAttempts, delayMs, ...(shop !== undefined ? { shop } : {}) }));
          jobLog.info({ err: errorLine(err), delayMs }, 'lane busy in another process; the job asks again shortly');
          return;
        }
        if (errorCode(err) === 'RUN_TAKEN_OVER') {
          // This replica was counted dead (frozen) and its job went to another, which ran the lane: the job is
          // not ours to settle. Throwing makes the engine fail it, which it does only while this worker still
          // locks it (a no-op now); completing it would delete the job by id, the taker's included.
          jobLog.warn({ err: errorLine(err) }, 'run job taken over by another replica while this one could not answer; leaving the job to it');
          throw err;
        }
        return await fail(`[${errorCode(err)}] ${errorLine(err)}`);
      }
      if (summary.status === 'aborted' && shutdown.signal.aborted) return await handBack();
      if (summary.status === 'failed') return await fail(`${summary.runId !== undefined ? `run #${summary.runId}` : 'the job'} failed: [${summary.error?.code ?? 'RUN_FAILED'}] ${summary.error?.message ?? ''}`);
      await jobCall(() => store.clearFailures(pipeline));
    } finally {
      active.delete(job.id);
      if (active.size === 0) for (const wake of idleWaiters.splice(0)) wake();
    }
  };

  const runOptions: RunnerOptions = {
      connectionString: options.url,
      schema: store.schema,
      concurrency: options.concurrency,
      maxPoolSize: options.concurrency + 2,
      noHandleSignals: true,
      // The engine must never abort a run on its own: stop() aborts runs itself, after handing back.
      gracefulShutdownAbortTimeout: 24 * 3600_000,
      taskList: { [RUN_TASK]: task },
      forbiddenFlags,
      logger: workerLogger(logger),
      preset: {
        plugins: [
          {
            name: 'ShopsyncReplicaPlugin',
            version: '1.0.0',
            description: 'records each worker id in the replicas table before the worker takes a job',
            worker: {
              hooks: {
                async startWorker(_ctx, event) {
                  workers.add(event.worker.workerId);
                  await options.onWorker(event.worker.workerId);
                },
              },
            },
          },
        ],
      },
  };
  let stopping = false;
  const dead = new DeadWorkers({
    store,
    logger: log,
    ...(options.onWorkersGone ? { onFreed: options.onWorkersGone } : {}),
  });

  /**
   * The engine is one or more runners ("generations"): the first with `concurrency` workers, then
   * one per loss, with as many workers as were lost. A worker that ends without stop() is dead:
   * graphile-worker ends one that cannot release its job after a state restart ("committing
   * seppuku") and never replaces it, and ends them all on a "breaking migration" notice (one that
   * names a real newer migration of this jobs schema: ./migrateNotices.ts). Its id is freed (DeadWorkers) and
   * a replacement starts; a runner with no live worker left is stopped, so its pool goes too.
   */
  interface Generation {
    runner?: Runner;
    readonly live: Set<string>;
    retired: boolean;
  }
  const generations = new Set<Generation>();
  let lost = 0;
  let replacing: NodeJS.Timeout | undefined;
  const liveCount = () => [...generations].reduce((n, g) => n + g.live.size, 0);

  const retire = (gen: Generation): void => {
    if (gen.retired || !gen.runner) return;
    gen.retired = true;
    generations.delete(gen);
    // Already stopping on its own (a migration notice) is fine: "Runner is already stopped".
    gen.runner.stop().catch(() => undefined);
  };

  const workerDied = (gen: Generation, workerId: string, error: unknown): void => {
    gen.live.delete(workerId);
    workers.delete(workerId);
    if (stopping) return;
    log.error({ workerId, ...(error !== undefined ? { err: errorLine(error) } : {}) }, 'a worker of the job engine stopped on its own (graphile-worker ends a worker that cannot release its job, e.g. while the state restarts); it counts as dead: its jobs are freed and a replacement starts');
    dead.add(workerId);
    lost++;
    if (gen.live.size === 0) retire(gen);
    scheduleReplacement();
  };

  const scheduleReplacement = (delayMs = options.restartDelayMs ?? 1000): void => {
    if (replacing || stopping) return;
    // Unref'd: the daemon's server keeps the process alive; a process that ends needs no replacement.
    replacing = setTimeout(() => {
      replacing = undefined;
      if (stopping || lost === 0) return;
      const count = lost;
      lost = 0;
      startGeneration(count).then(
        () => log.info({ workers: count }, 'replacement workers of the job engine take jobs'),
        (err: unknown) => {
          lost += count;
          log.error({ err: errorLine(err), workers: count, retryInMs: 5000 }, 'the job engine could not start replacement workers (the state does not answer, or this jobs schema moved on: see /readyz); trying again');
          scheduleReplacement(5000);
        },
      );
    }, delayMs);
    replacing.unref();
  };

  const startGeneration = async (concurrency: number): Promise<void> => {
    const gen: Generation = { live: new Set(), retired: false };
    const events: WorkerEvents = new EventEmitter() as WorkerEvents;
    events.on('pool:listen:success', ({ client }) => guardNotices(client));
    events.on('worker:create', ({ worker }) => gen.live.add(worker.workerId));
    events.on('worker:stop', ({ worker, error }) => workerDied(gen, worker.workerId, error));
    events.on('job:complete', ({ job }) => {
      // The handed-back job's lane was locked until now: wake the other replicas instead of letting them wait for their next poll.
      if (handedBackJobs.delete(job.id)) {
        store.nudge().catch((err: unknown) => {
          // Released meanwhile (a stop whose grace ran out): the others find the job at their next poll.
          if (errorCode(err) !== JOBS_RELEASED) log.warn({ err: errorLine(err) }, 'could not wake the other replicas');
        });
      }
    });
    const runner = await run({ ...runOptions, concurrency, maxPoolSize: concurrency + 2, events });
    gen.runner = runner;
    if (stopping) return void runner.stop().catch(() => undefined);
    generations.add(gen);
    runner.promise.catch((err: unknown) => log.error({ err: errorLine(err) }, 'the job engine stopped with an error'));
    void runner.promise.finally(() => {
      generations.delete(gen);
      // The engine's notice handler also set the process's exit code; this process did not fail.
      if (!stopping && process.exitCode === 57) process.exitCode = undefined;
    });
    // Lost before run() returned: nothing is left to stop it later.
    if (gen.live.size === 0) retire(gen);
  };

  // Jobs held by workers that no live replica owns stay locked for four hours otherwise: free them before taking any.
  if (options.liveWorkers) {
    const freed = await store.freeOrphans(options.liveWorkers);
    if (freed.workers.length > 0) log.warn({ workers: freed.workers, held: freed.held }, 'freed jobs locked by workers no live replica owns (a worker that died while its replica lived on); their lanes run again');
  }
  // Only a notice about a migration newer than this reaches graphile-worker (./migrateNotices.ts).
  const guardNotices = migrateNoticeGuard({ store, baseline: await store.latestMigration(), logger: log });
  await startGeneration(options.concurrency);

  return {
    workerIds: () => [...workers],
    active: () => [...active.values()],
    isRunning: () => !stopping && liveCount() > 0,
    async stop(graceMs) {
      stopping = true;
      clearTimeout(replacing);
      const unfreed = dead.close();
      if (unfreed.length > 0) log.warn({ workers: unfreed }, 'stopping with dead workers whose jobs could not be freed yet (the state does not answer); the next start of a replica frees them');
      // First stop taking jobs (synchronously inside stop()), then abort: a worker that finishes
      // a handed-back job must not take that same job again.
      // A runner whose pool a migration notice already shut down returns from stop() at once, while its
      // job still runs: settled means every task here has returned, not only every runner.
      const stopped = Promise.all(
        [...generations].map((g) => g.runner?.stop().catch((err: unknown) => log.warn({ err: errorLine(err) }, 'stopping the job engine failed'))),
      ).then(whenIdle);
      const inFlight = [...active.values()].map((a) => a.pipeline);
      shutdown.abort();
      if (inFlight.length > 0) log.info({ pipelines: inFlight, graceMs }, 'stopping: runs stop at their next checkpoint and their jobs go back to the other replicas');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const result = await Promise.race([stopped.then(() => 'stopped' as const), timeout]);
      clearTimeout(timer);
      if (result === 'timeout') {
        graceOver = true;
        log.warn({ pipelines: [...active.values()].map((a) => a.pipeline) }, 'grace period over; these jobs are freed once this replica counts as dead');
      }
      return { settled: result === 'stopped', handedBack: [...handedBack] };
    },
  };
}
