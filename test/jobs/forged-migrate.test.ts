/**
 * Any role that can connect to the jobs database can NOTIFY graphile-worker's database-wide
 * `worker:migrate` channel. A notice is acted on only when it names a real migration row of this
 * deployment's jobs schema that is newer than the one the engine started on: a forged one stops no
 * worker, so the job engine does not flap and /readyz stays green (issue 42, finding 13).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startJobEngine, type JobEngine } from '../../src/jobs/engine.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import { sleep, until } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable, sql } from './support.js';

const stores: JobStore[] = [];
const roles: string[] = [];
afterAll(async () => {
  await Promise.all(stores.splice(0).map((s) => s.release()));
  for (const r of roles.splice(0)) await sql(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(r)}`);
});

async function engineOn(schema: string, ran: string[]): Promise<{ engine: JobEngine; jobs: JobStore }> {
  const jobs = await JobStore.open({ url: POSTGRES_URL, schema, logger: silentLogger });
  stores.push(jobs);
  const engine = await startJobEngine({
    url: POSTGRES_URL,
    store: jobs,
    concurrency: 2,
    maxAttempts: 3,
    replica: 'r1',
    logger: silentLogger,
    restartDelayMs: 100,
    run: async (pipeline) => {
      ran.push(pipeline);
      return { status: 'succeeded' };
    },
    onWorker: async () => undefined,
  });
  return { engine, jobs };
}

/** A login of its own in the same database, with no privilege on shopsync's schemas: a co-tenant. */
async function cotenant(): Promise<pg.Client> {
  const role = `cotenant_${randomBytes(4).toString('hex')}`;
  roles.push(role);
  await sql(`CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN`);
  const url = new URL(POSTGRES_URL);
  url.username = role;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

describe.skipIf(!postgresAvailable)('worker:migrate notices', () => {
  it('ignores a forged breaking-migration notice from another role of the database: no worker stops and the engine never stops running', { timeout: 60_000 }, async () => {
    const ran: string[] = [];
    const { engine, jobs } = await engineOn(`${freshSchema()}_jobs`, ran);
    const other = await cotenant();
    let wentDown = false;
    const watch = setInterval(() => {
      if (!engine.isRunning()) wentDown = true;
    }, 5);
    try {
      await jobs.enqueueRun('before', { reason: 'manual', maxAttempts: 3 });
      await until(() => ran.includes('before'), 10_000, 50);
      const workers = engine.workerIds();
      // A revision no schema has, and one every jobs schema has (not newer than this one's): both forged.
      await other.query(`NOTIFY "worker:migrate", '{"migrationNumber":9999,"breaking":true}'`);
      await other.query(`NOTIFY "worker:migrate", '{"migrationNumber":1,"breaking":true}'`);
      await sleep(1500);
      expect(wentDown).toBe(false);
      expect(engine.workerIds()).toEqual(workers);
      await jobs.enqueueRun('after', { reason: 'manual', maxAttempts: 3 });
      await until(() => ran.includes('after'), 10_000, 50);
      expect(process.exitCode ?? 0).toBe(0);
    } finally {
      clearInterval(watch);
      await other.end();
      await engine.stop(5000);
    }
  });

  it('still stops its workers for a real newer breaking migration of its own jobs schema', { timeout: 60_000 }, async () => {
    const ran: string[] = [];
    const schema = `${freshSchema()}_jobs`;
    const { engine } = await engineOn(schema, ran);
    try {
      // What a newer shopsync's graphile-worker does when it migrates this schema: a row, then the notice, in one transaction.
      const q = pg.escapeIdentifier(schema);
      const [{ next }] = (await sql<{ next: number }>(`SELECT max(id) + 1 AS next FROM ${q}.migrations`)) as [{ next: number }];
      await sql(`WITH m AS (INSERT INTO ${q}.migrations (id, breaking) VALUES ($1, true)) SELECT pg_notify('worker:migrate', $2)`, [next, JSON.stringify({ migrationNumber: next, breaking: true })]);
      await until(() => !engine.isRunning(), 10_000, 20);
    } finally {
      await engine.stop(5000);
      process.exitCode = undefined;
    }
  });
});
