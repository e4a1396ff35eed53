/**
 * One replica of `shopsync run` on a PostgreSQL state: the job engine, the heartbeat and reaper,
 * and what the daemon asks of them (enqueue a tick, run now, readiness, the overview, stop).
 */
import type { LoadedConfig } from '../config/index.js';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../ops/runtime.js';
import type { CheckResult } from '../ops/readiness.js';
import { sleep } from '../util/time.js';
import { startJobEngine, type EngineStopResult, type JobEngine, type JobOutcome } from './engine.js';
import { replicaName, startHeartbeat, type Heartbeat } from './heartbeat.js';
import { registerJobMetrics } from './metrics.js';
import { jobsSchemaOf } from './names.js';
import { replicasOverview, type ReplicasOverview } from './overview.js';
import { JobStore, type Enqueued, type RunReason } from './store.js';
import { TickClaims } from './ticks.js';

/** A running replica. */
export interface Replica {
  readonly name: string;
  readonly jobs: JobStore;
  readonly engine: JobEngine;
  readonly heartbeat: Heartbeat;
  /**
   * Ask for a run (a tick: coalesced into the lane's waiting job). A tick given with `tick` is
   * claimed first, so of all replicas ticking it only one adds the job (`tick-taken` for the rest).
   */
  enqueue(pipeline: string, reason: RunReason, options?: { readonly tick?: Date }): Promise<Enqueued>;
  /** Ask for a run now and wait until a replica has run it (or `timeoutMs` passed). */
  runNow(pipeline: string, timeoutMs?: number): Promise<void>;
  /** /readyz: the engine takes jobs and the heartbeat reaches the state. */
  readiness(): CheckResult;
  overview(): Promise<ReplicasOverview>;
  /** Hand running jobs back and leave; the row stays (to be reaped) when runs outlived `graceMs`. */
  stop(graceMs: number): Promise<EngineStopResult>;
}

/** Start this process as a replica: engine schema, heartbeat, workers, metrics. */
export async function startReplica(runtime: Runtime, loaded: LoadedConfig, logger: Logger, runJob?: (job: string, signal: AbortSignal) => Promise<JobOutcome>): Promise<Replica> {
  const location = loaded.state;
  if (location.kind !== 'postgres') throw new Error('replicas need a PostgreSQL state');
  const settings = loaded.config.replicas;
  const name = replicaName();
  const log = logger.child({ replica: name });
  const jobs = await JobStore.open({ url: location.url, schema: jobsSchemaOf(loaded), logger: log });
  // A job's name is its pipeline's, or `<pipeline>#complete` / `#reconcile`: the same shop.
  const shopOf = (job: string) => loaded.config.pipelines.find((p) => p.name === job.split('#')[0])?.shop;
  let heartbeat: Heartbeat | undefined;
  try {
    heartbeat = await startHeartbeat({ state: runtime.state, jobs, name, heartbeatMs: settings.heartbeatMs, deadAfterMs: settings.deadAfterMs, logger: log });
    const beating = heartbeat;
    const engine = await startJobEngine({
      url: location.url,
      store: jobs,
      concurrency: settings.concurrency,
      maxAttempts: settings.maxAttempts,
      replica: name,
      logger: log,
      run: runJob ?? ((pipeline, signal) => runtime.run(pipeline, { mode: 'sync', signal })),
      onWorker: (workerId) => beating.addWorker(workerId),
      onWorkersGone: (workerIds) => beating.removeWorkers(workerIds),
      liveWorkers: () => beating.liveWorkers(),
      shopOf,
      perShopConcurrency: perShopConcurrency(loaded),
    });
    runtime.metrics.registry.setDefaultLabels({ replica: name });
    registerJobMetrics(runtime.metrics.registry, () => jobs.counts());
    const ticks = new TickClaims(jobs);
    const enqueue = async (pipeline: string, reason: RunReason, options: { readonly tick?: Date } = {}): Promise<Enqueued> => {
      const tick = reason === 'schedule' ? options.tick : undefined;
      if (tick && !(await ticks.claim(pipeline, tick, name))) return { outcome: 'tick-taken' };
      const added = await jobs.enqueueRun(pipeline, { reason, by: name, maxAttempts: settings.maxAttempts, ...(shopOf(pipeline) !== undefined ? { shop: shopOf(pipeline) } : {}) });
      if (tick) await ticks.settle(pipeline, tick, added.outcome === 'retry-pending' ? 'retry-pending' : added.coalesced ? 'coalesced' : 'added');
      return added;
    };
    return {
      name,
      jobs,
      engine,
      heartbeat: beating,
      enqueue,
      async runNow(pipeline, timeoutMs = 600_000) {
        runtime.pipeline(pipeline);
        const { jobId } = await enqueue(pipeline, 'manual');
        log.info({ pipeline, jobId }, 'run asked for now: job added, any replica may take it');
        const deadline = Date.now() + timeoutMs;
        while (jobId !== undefined && Date.now() < deadline && (await jobs.has(jobId))) await sleep(250);
      },
      readiness() {
        if (!engine.isRunning()) return { ok: false, detail: `replica ${name}: the job engine is not taking jobs` };
        return beating.healthy();
      },
      overview: () => replicasOverview(runtime.state, jobs, settings.deadAfterMs),
      async stop(graceMs) {
        const result = await engine.stop(graceMs);
        // Only a replica whose jobs are all back may remove its row; otherwise the others reap it once it is silent.
        // A state that does not answer keeps the row: it goes silent and the others (or the next start) reap it.
        await beating.stop({ keepRow: !result.settled }).catch((err: unknown) => log.warn({ err: errorLine(err) }, 'could not remove this replica\'s row; it is reaped once silent'));
        await jobs.release();
        return result;
      },
    };
  } catch (err) {
    await heartbeat?.stop().catch(() => undefined);
    await jobs.release().catch(() => undefined);
    throw err;
  }
}

/**
 * How many jobs of one shop a replica runs at once: `replicas.perShopConcurrency`, or with several
 * shops one worker fewer than `replicas.concurrency`, so one shop's long runs never take every
 * worker and another shop's change always finds one (docs/shops.md, "Bulkheads").
 */
export function perShopConcurrency(loaded: LoadedConfig): number {
  const { concurrency, perShopConcurrency: configured } = loaded.config.replicas;
  if (configured !== undefined) return Math.min(configured, concurrency);
  const shops = new Set(loaded.config.pipelines.map((p) => p.shop)).size;
  return shops > 1 ? Math.max(1, concurrency - 1) : concurrency;
}
