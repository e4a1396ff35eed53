/**
 * Run jobs on graphile-worker against the real PostgreSQL: ticks of several replicas fold into one
 * waiting job per lane, a lane runs on one replica at a time while different lanes run side by
 * side, and a job that keeps failing is given up and shown as failing instead of retrying forever.
 * The engines here are in-process (one per "replica") with a run function that records what ran;
 * test/jobs/replicas.test.ts runs real pipelines in separate processes.
 */
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startJobEngine, type JobEngine } from '../../src/jobs/engine.js';
import { registerJobMetrics } from '../../src/jobs/metrics.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import { replicasOverview } from '../../src/jobs/overview.js';
import { replicasPanel } from '../../src/dashboard/pages/replicas.js';
import type { RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts, openState } from '../../src/state/index.js';
import { sleep, until } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from './support.js';

type Status = RunSummary['status'];
const summary = (pipeline: string, status: Status): RunSummary => ({ runId: 1, pipeline, mode: 'sync', status, counts: emptyCounts(), durationMs: 1, ...(status === 'failed' ? { error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP did not answer' } } : {}) });

const stores: JobStore[] = [];
const engines: JobEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.stop(5000)));
});
afterAll(async () => {
  await Promise.all(stores.splice(0).map((s) => s.release()));
});

async function store(schema: string): Promise<JobStore> {
  const s = await JobStore.open({ url: POSTGRES_URL, schema, logger: silentLogger });
  stores.push(s);
  return s;
}

async function engine(jobs: JobStore, replica: string, run: (pipeline: string, signal: AbortSignal) => Promise<RunSummary>, maxAttempts = 5): Promise<JobEngine> {
  const e = await startJobEngine({ url: POSTGRES_URL, store: jobs, concurrency: 2, maxAttempts, replica, logger: silentLogger, run, onWorker: async () => undefined });
  engines.push(e);
  return e;
}

describe.skipIf(!postgresAvailable)('run jobs on the job engine (PostgreSQL)', () => {
  it('folds the ticks of three replicas into one waiting job per lane, and into one follow-up job while the lane runs', async () => {
    const schema = `${freshSchema()}_jobs`;
    const [a, b, c] = [await store(schema), await store(schema), await store(schema)];
    for (let i = 0; i < 5; i++) for (const s of [a, b, c]) expect((await s.enqueueRun('products', { reason: 'schedule', maxAttempts: 5 })).outcome).toBe('added');
    await a.enqueueRun('orders', { reason: 'schedule', maxAttempts: 5 });
    expect((await a.list()).map((j) => [j.pipeline, j.state])).toEqual([
      ['products', 'queued'],
      ['orders', 'queued'],
    ]);

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const e = await engine(a, 'r1', async (pipeline) => {
      ran.push(pipeline);
      if (pipeline === 'products' && ran.filter((p) => p === 'products').length === 1) await gate;
      return summary(pipeline, 'succeeded');
    });
    await until(() => e.active().some((j) => j.pipeline === 'products'), 10_000, 20);
    // While the lane's job runs, the engine takes the key from it: ticks add one follow-up job, then fold into it.
    for (let i = 0; i < 5; i++) for (const s of [a, b, c]) await s.enqueueRun('products', { reason: 'schedule', maxAttempts: 5 });
    const during = (await a.list()).filter((j) => j.pipeline === 'products');
    expect(during.map((j) => j.state).sort()).toEqual(['queued', 'running']);
    release();
    await until(async () => (await a.list()).length === 0, 10_000, 50);
    expect(ran.filter((p) => p === 'products')).toHaveLength(2);
    expect(ran.filter((p) => p === 'orders')).toHaveLength(1);
  });

  it('runs one job of a lane at a time across three replicas, and different lanes at the same time', async () => {
    const schema = `${freshSchema()}_jobs`;
    const replicas = [await store(schema), await store(schema), await store(schema)];
    const runs: { pipeline: string; replica: string; start: number; end: number }[] = [];
    for (const [i, s] of replicas.entries()) {
      await engine(s, `r${i + 1}`, async (pipeline) => {
        const start = performance.now();
        await sleep(120);
        runs.push({ pipeline, replica: `r${i + 1}`, start, end: performance.now() });
        return summary(pipeline, 'succeeded');
      });
    }
    const until2 = Date.now() + 3000;
    for (let n = 0; Date.now() < until2; n++) {
      const s = replicas[n % 3]!;
      await Promise.all([s.enqueueRun('lane-a', { reason: 'schedule', maxAttempts: 5 }), s.enqueueRun('lane-b', { reason: 'manual', maxAttempts: 5 })]);
      await sleep(40);
    }
    await until(async () => (await replicas[0]!.list()).length === 0, 10_000, 50);
    for (const lane of ['lane-a', 'lane-b']) {
      const mine = runs.filter((r) => r.pipeline === lane).sort((x, y) => x.start - y.start);
      expect(mine.length).toBeGreaterThanOrEqual(5);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.start, `${lane} run ${i} started before run ${i - 1} ended`).toBeGreaterThanOrEqual(mine[i - 1]!.end);
    }
    const a = runs.filter((r) => r.pipeline === 'lane-a');
    const b = runs.filter((r) => r.pipeline === 'lane-b');
    expect(a.some((x) => b.some((y) => x.start < y.end && y.start < x.end)), 'the two lanes never ran at the same time').toBe(true);
    expect(new Set(runs.map((r) => r.replica)).size).toBeGreaterThanOrEqual(2);
  });

  it('gives up a job that failed maxAttempts times and shows it as failing (gauge, list, dashboard) until the lane runs fine again; ticks leave a job waiting for its retry alone', async () => {
    const stateSchema = freshSchema();
    const schema = `${stateSchema}_jobs`;
    const state = await openState({ kind: 'postgres', url: POSTGRES_URL, schema: stateSchema });
    const jobs = await store(schema);
    const registry = new Registry();
    registerJobMetrics(registry, () => jobs.counts());
    let healthy = false;
    let attempts = 0;
    await engine(
      jobs,
      'r1',
      async (pipeline) => {
        attempts++;
        return summary(pipeline, healthy ? 'succeeded' : 'failed');
      },
      2,
    );
    await jobs.enqueueRun('stock', { reason: 'manual', maxAttempts: 2 });
    await until(async () => (await jobs.list())[0]?.state === 'retrying', 10_000, 50);
    const retrying = (await jobs.list())[0]!;
    expect(retrying).toMatchObject({ pipeline: 'stock', attempts: 1, maxAttempts: 2 });
    expect(retrying.lastError).toContain('SOURCE_UNREACHABLE');
    // A tick while the job waits for its retry does not reset its attempts.
    expect((await jobs.enqueueRun('stock', { reason: 'schedule', maxAttempts: 2 })).outcome).toBe('retry-pending');
    expect((await jobs.list())[0]!.attempts).toBe(1);
    // Skip the engine's back-off (e^1 s) rather than wait for it.
    await jobs.utils.rescheduleJobs([retrying.id], { runAt: new Date() });
    await until(async () => (await jobs.list())[0]?.state === 'failed', 10_000, 50);
    expect(attempts).toBe(2);
    expect(await jobs.counts()).toMatchObject({ failed: 1, queued: 0, running: 0 });
    expect(await registry.metrics()).toContain('shopsync_jobs{state="failing"} 1');
    const panel = replicasPanel(await replicasOverview(state, jobs, 15_000)).toString();
    expect(panel).toContain('1 job has failed 2 times and is no longer retried: stock.');
    expect(panel).toMatch(/data-job-state="failing">.*SOURCE_UNREACHABLE/s);
    await state.close();
    await sleep(300);
    expect(attempts).toBe(2);

    // The next tick asks again (a fresh job); the failed one stays listed while it fails, and goes once a run succeeds.
    healthy = true;
    expect((await jobs.enqueueRun('stock', { reason: 'schedule', maxAttempts: 2 })).outcome).toBe('added');
    await until(async () => (await jobs.list()).length === 0, 10_000, 50);
    expect(attempts).toBe(3);
    expect(await registry.metrics()).toContain('shopsync_jobs{state="failing"} 0');
  });

  it('moves the failure of a job superseded while it ran onto the newer job, and drops a dead worker\'s superseded job when freeing it', async () => {
    const schema = `${freshSchema()}_jobs`;
    const jobs = await store(schema);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const e = await engine(jobs, 'r1', async (pipeline) => {
      calls++;
      if (calls === 1) await gate;
      return summary(pipeline, 'failed');
    });
    await jobs.enqueueRun('prices', { reason: 'manual', maxAttempts: 5 });
    await until(() => e.active().length === 1, 10_000, 20);
    await jobs.enqueueRun('prices', { reason: 'schedule', maxAttempts: 5 });
    // Stop taking jobs (so the newer job stays queued), then let the running one fail.
    const stopping = e.stop(5000);
    engines.splice(engines.indexOf(e), 1);
    release();
    await stopping;
    // The stopped engine still finished its job: it failed, was superseded, so the newer job carries the streak.
    await until(async () => (await jobs.list()).length === 1 && (await jobs.list())[0]!.state !== 'running', 10_000, 50);
    expect((await jobs.list()).map((j) => [j.pipeline, j.state, j.attempts])).toEqual([['prices', 'retrying', 1]]);
    expect((await jobs.list())[0]!.lastError).toContain('SOURCE_UNREACHABLE');

    // A dead worker holding a job that a tick then superseded: freeing the worker removes the orphan and leaves the newer job to run.
    const q = `"${schema}"`;
    await jobs.enqueueRun('stock', { reason: 'manual', maxAttempts: 5 });
    await jobs.utils.withPgClient((c) =>
      c.query(`WITH j AS (UPDATE ${q}._private_jobs SET locked_by = 'worker-dead', locked_at = now(), attempts = attempts + 1 WHERE key = 'run:stock' RETURNING job_queue_id)
               UPDATE ${q}._private_job_queues SET locked_by = 'worker-dead', locked_at = now() WHERE id IN (SELECT job_queue_id FROM j)`),
    );
    await jobs.enqueueRun('stock', { reason: 'schedule', maxAttempts: 5 });
    expect((await jobs.list()).filter((j) => j.pipeline === 'stock').map((j) => j.state).sort()).toEqual(['queued', 'running']);
    expect(await jobs.freeWorkers(['worker-dead'])).toEqual({ superseded: 1 });
    expect((await jobs.list()).filter((j) => j.pipeline === 'stock').map((j) => [j.state, j.lockedBy])).toEqual([['queued', null]]);
    const queues = await jobs.utils.withPgClient((c) => c.query<{ locked_by: string | null }>(`SELECT locked_by FROM ${q}._private_job_queues WHERE queue_name = 'lane:stock'`));
    expect(queues.rows).toEqual([{ locked_by: null }]);
  });
});
