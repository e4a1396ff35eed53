/**
 * Another deployment installs the job engine in the same database. graphile-worker 0.16 announces
 * its schema migrations on a database-wide channel and every worker that hears a "breaking" one
 * shuts down, whichever schema it serves: without a restart this replica would stop taking jobs
 * (and the process would exit 57 later) because someone else's deployment started.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startJobEngine } from '../../src/jobs/engine.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import { until } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from './support.js';

const stores: JobStore[] = [];
afterAll(async () => {
  await Promise.all(stores.splice(0).map((s) => s.release()));
});

async function store(schema: string): Promise<JobStore> {
  const s = await JobStore.open({ url: POSTGRES_URL, schema, logger: silentLogger });
  stores.push(s);
  return s;
}

describe.skipIf(!postgresAvailable)('a job engine in another schema of the same database', () => {
  it('does not stop this replica from taking jobs', { timeout: 60_000 }, async () => {
    const jobs = await store(`${freshSchema()}_jobs`);
    const ran: string[] = [];
    const engine = await startJobEngine({
      url: POSTGRES_URL,
      store: jobs,
      concurrency: 1,
      maxAttempts: 3,
      replica: 'r1',
      logger: silentLogger,
      run: async (pipeline) => {
        ran.push(pipeline);
        return { status: 'succeeded' };
      },
      onWorker: async () => undefined,
    });
    try {
      await jobs.enqueueRun('before', { reason: 'manual', maxAttempts: 3 });
      await until(() => ran.includes('before'), 10_000, 50);
      // Another deployment's first start: a fresh jobs schema, migrated from revision 1 (a breaking one).
      await store(`${freshSchema()}_jobs`);
      await jobs.enqueueRun('after', { reason: 'manual', maxAttempts: 3 });
      await until(() => ran.includes('after'), 20_000, 50);
      expect(engine.isRunning()).toBe(true);
      expect(process.exitCode ?? 0).toBe(0);
    } finally {
      await engine.stop(5000);
    }
  });
});
