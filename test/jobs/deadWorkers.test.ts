/**
 * Jobs that graphile-worker 0.16 would leave locked for four hours, against the real PostgreSQL
 * (in-process engines). A worker that cannot release its job ends itself ("committing seppuku"):
 * here the jobs table refuses the release through a trigger, as a restarting server would, and
 * keeps refusing the unlock for a while; the engine frees the dead worker's job once the table
 * accepts it again and a replacement worker runs the job. And a job locked by a worker id that no
 * live replica owns (its replica exited cleanly after the worker died) is freed when an engine starts.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startJobEngine, type JobEngine, type JobOutcome } from '../../src/jobs/engine.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import { until } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable, sql } from './support.js';

const stores: JobStore[] = [];
const engines: JobEngine[] = [];
afterAll(async () => {
  for (const e of engines.splice(0)) await e.stop(1000);
  await Promise.all(stores.splice(0).map((s) => s.release()));
});

async function store(schema: string): Promise<JobStore> {
  const s = await JobStore.open({ url: POSTGRES_URL, schema, logger: silentLogger });
  stores.push(s);
  return s;
}

const succeeded: JobOutcome = { status: 'succeeded' };

/** The lock of every job of the schema: who holds it (null: free). */
async function locks(schema: string): Promise<(string | null)[]> {
  return (await sql<{ locked_by: string | null }>(`SELECT locked_by FROM ${pg.escapeIdentifier(schema)}._private_jobs ORDER BY id`)).map((r) => r.locked_by);
}

async function jobCount(schema: string): Promise<number> {
  return Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema)}._private_jobs`))[0]!.n);
}

describe.skipIf(!postgresAvailable)('a worker that stops on its own', () => {
  it('counts as dead: its job is unlocked once the jobs table accepts it again, and a replacement worker runs the job', { timeout: 60_000 }, async () => {
    const schema = `${freshSchema()}_jobs`;
    const q = pg.escapeIdentifier(schema);
    const jobs = await store(schema);
    const gone: string[] = [];
    const ran: string[] = [];
    const engine = await startJobEngine({
      url: POSTGRES_URL,
      store: jobs,
      concurrency: 1,
      maxAttempts: 5,
      replica: 'alpha',
      logger: silentLogger,
      restartDelayMs: 50,
      onWorker: async () => undefined,
      onWorkersGone: async (ids) => void gone.push(...ids),
      run: async (pipeline) => {
        ran.push(pipeline);
        if (ran.length === 1) {
          // The run ends, and the engine can neither complete nor unlock its job: the server "is away".
          await sql(`CREATE FUNCTION ${q}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the state is away'; END $$`);
          await sql(`CREATE TRIGGER refuse BEFORE DELETE OR UPDATE ON ${q}._private_jobs FOR EACH ROW EXECUTE FUNCTION ${q}.refuse()`);
        }
        return succeeded;
      },
    });
    engines.push(engine);
    await jobs.enqueueRun('products', { reason: 'manual', maxAttempts: 5 });
    await until(() => ran.length === 1, 20_000, 20);
    const [firstWorker] = await until(async () => (await locks(schema))[0] !== null, 20_000, 50).then(() => locks(schema));
    // The worker died ("committing seppuku"); while the table refuses, its job stays locked by it.
    await until(() => !engine.workerIds().includes(firstWorker!), 20_000, 50);
    expect(await locks(schema)).toEqual([firstWorker]);
    expect(gone).toEqual([]);
    await sql(`DROP TRIGGER refuse ON ${q}._private_jobs`);
    await until(async () => (await jobCount(schema)) === 0, 30_000, 100);
    expect(ran).toEqual(['products', 'products']);
    expect(gone).toEqual([firstWorker]);
    expect(engine.isRunning()).toBe(true);
    expect(engine.workerIds()).toHaveLength(1);
    expect(engine.workerIds()).not.toContain(firstWorker);
  });
});

describe.skipIf(!postgresAvailable)('an engine that starts', () => {
  async function lockedByGhost(schema: string, jobs: JobStore): Promise<void> {
    const q = pg.escapeIdentifier(schema);
    await jobs.enqueueRun('products', { reason: 'manual', maxAttempts: 5 });
    await sql(`UPDATE ${q}._private_jobs SET locked_by = 'worker-ghost', locked_at = now()`);
    await sql(`UPDATE ${q}._private_job_queues SET locked_by = 'worker-ghost', locked_at = now()`);
  }

  it('frees a job locked by a worker that no live replica owns and runs it', { timeout: 60_000 }, async () => {
    const schema = `${freshSchema()}_jobs`;
    const jobs = await store(schema);
    await lockedByGhost(schema, jobs);
    const ran: string[] = [];
    const engine = await startJobEngine({
      url: POSTGRES_URL,
      store: jobs,
      concurrency: 1,
      maxAttempts: 5,
      replica: 'alpha',
      logger: silentLogger,
      onWorker: async () => undefined,
      liveWorkers: async () => ['worker-of-a-live-replica'],
      run: async (pipeline) => {
        ran.push(pipeline);
        return succeeded;
      },
    });
    engines.push(engine);
    await until(async () => (await jobCount(schema)) === 0, 30_000, 100);
    expect(ran).toEqual(['products']);
  });

  it('leaves a job alone whose worker a live replica owns', { timeout: 60_000 }, async () => {
    const schema = `${freshSchema()}_jobs`;
    const jobs = await store(schema);
    await lockedByGhost(schema, jobs);
    const ran: string[] = [];
    const engine = await startJobEngine({
      url: POSTGRES_URL,
      store: jobs,
      concurrency: 1,
      maxAttempts: 5,
      replica: 'alpha',
      logger: silentLogger,
      onWorker: async () => undefined,
      liveWorkers: async () => ['worker-ghost'],
      run: async (pipeline) => {
        ran.push(pipeline);
        return succeeded;
      },
    });
    engines.push(engine);
    // The engine is up and its worker has looked for jobs; the ghost's job is still its.
    await until(() => engine.workerIds().length === 1, 20_000, 20);
    await jobs.nudge();
    expect(await locks(schema)).toEqual(['worker-ghost']);
    expect(ran).toEqual([]);
  });
});
