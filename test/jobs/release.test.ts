/**
 * A replica's job store after release(), and a run that ends after the grace period, against the
 * real PostgreSQL (in-process engines; test/jobs/shutdown.test.ts runs whole replica processes).
 * A released store refuses calls with the typed JOBS_RELEASED instead of pg-pool's "Cannot use a
 * pool after calling end on the pool", and a call under way when release() began still lands. A
 * run that outlives stop()'s grace period makes no job call when it ends: its job stays locked by
 * this replica's worker, for the other replicas to free once this one counts as dead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startJobEngine } from '../../src/jobs/engine.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import type { RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts } from '../../src/state/index.js';
import { until } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from './support.js';

const open: JobStore[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((s) => s.release()));
});

async function store(schema: string): Promise<JobStore> {
  const s = await JobStore.open({ url: POSTGRES_URL, schema, logger: silentLogger });
  open.push(s);
  return s;
}

const aborted = (pipeline: string): RunSummary => ({ runId: 1, pipeline, mode: 'sync', status: 'aborted', counts: emptyCounts(), durationMs: 1 });

describe.skipIf(!postgresAvailable)('a released job store', () => {
  it('lets a call under way finish, then refuses every call with JOBS_RELEASED', async () => {
    const schema = `${freshSchema()}_jobs`;
    const jobs = await store(schema);
    const observer = await store(schema);
    const adding = jobs.enqueueRun('products', { reason: 'manual', maxAttempts: 5 });
    await jobs.release();
    await expect(adding).resolves.toMatchObject({ outcome: 'added' });
    expect((await observer.list()).map((j) => j.pipeline)).toEqual(['products']);
    await expect(jobs.enqueueRun('orders', { reason: 'handback', maxAttempts: 5 })).rejects.toMatchObject({ code: 'JOBS_RELEASED' });
    await expect(jobs.clearFailures('products')).rejects.toMatchObject({ code: 'JOBS_RELEASED' });
    await expect(jobs.nudge()).rejects.toMatchObject({ code: 'JOBS_RELEASED' });
    await jobs.release();
  });
});

describe.skipIf(!postgresAvailable)('a run that outlives the grace period', () => {
  it('leaves its job locked by this replica and calls neither the store nor the engine when it ends after the store was released', async () => {
    const schema = `${freshSchema()}_jobs`;
    const jobs = await store(schema);
    const observer = await store(schema);
    let finish!: () => void;
    let started = false;
    const engine = await startJobEngine({
      url: POSTGRES_URL,
      store: jobs,
      concurrency: 1,
      maxAttempts: 5,
      replica: 'alpha',
      logger: silentLogger,
      onWorker: async () => undefined,
      // Ignores the abort until told: a request on the wire that takes longer than the grace period.
      run: (pipeline) => {
        started = true;
        return new Promise<RunSummary>((resolve) => (finish = () => resolve(aborted(pipeline))));
      },
    });
    await jobs.enqueueRun('products', { reason: 'manual', maxAttempts: 5 });
    await until(() => started, 20_000, 20);
    const stopped = await engine.stop(100);
    expect(stopped).toEqual({ settled: false, handedBack: [] });
    await jobs.release();
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      finish();
      // Time for a hand-back, completeJob or failJob, were any attempted.
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    const [job] = await observer.list();
    expect(job).toMatchObject({ pipeline: 'products', state: 'running', attempts: 1, lastError: null });
    expect(engine.workerIds()).toContain(job!.lockedBy);
  });
});
