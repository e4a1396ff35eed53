/**
 * A PostgreSQL state restored from a backup, as docs/operations.md says to take it: `pg_dump` of the
 * state schema and of its jobs schema (`<schema>_jobs`), `pg_restore` of both. The backup was taken
 * while a replica ran, so it holds that replica's row; the replica has since stopped cleanly. After
 * the restore its row must not pose as a silent replica (a crashed one whose lanes wait): it holds
 * no job, so it shows as `gone`, and the first live replica removes it. A restored row whose worker
 * does hold a job is `silent` until reaped, and reaping frees that job.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHeartbeat } from '../../src/jobs/heartbeat.js';
import { replicasOverview } from '../../src/jobs/overview.js';
import { JobStore } from '../../src/jobs/store.js';
import { silentLogger } from '../../src/log.js';
import { openState } from '../../src/state/index.js';
import { tempDir } from '../support/tmp.js';
import { sleep } from '../support/wait.js';
import { freshSchema, POSTGRES_URL, postgresAvailable, sql } from './support.js';

const tools = spawnSync('pg_dump', ['--version']).status === 0 && spawnSync('pg_restore', ['--version']).status === 0;
if (!tools) console.warn('[test/jobs/restore] pg_dump/pg_restore not found: the restore test is skipped');

const DEAD_AFTER_MS = 400;

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

describe.skipIf(!postgresAvailable || (!tools && process.env.CI !== 'true'))('a PostgreSQL state restored from pg_dump', () => {
  it('shows replicas that stopped after the backup as gone, not silent, and the first live replica removes their rows', { timeout: 60_000 }, async () => {
    const schema = freshSchema('shopsync_rst');
    const location = { kind: 'postgres' as const, url: POSTGRES_URL, schema };
    const state = await openState(location);
    const jobs = await JobStore.open({ url: POSTGRES_URL, schema: `${schema}_jobs`, logger: silentLogger });
    try {
      // Two replicas at backup time: `idle` holds nothing; `busy` holds a job (as if the backup caught it mid-run).
      const idle = await startHeartbeat({ state, jobs, name: 'idle', heartbeatMs: 60_000, deadAfterMs: DEAD_AFTER_MS, logger: silentLogger });
      await idle.addWorker('worker-idle');
      const busy = await startHeartbeat({ state, jobs, name: 'busy', heartbeatMs: 60_000, deadAfterMs: DEAD_AFTER_MS, logger: silentLogger });
      await busy.addWorker('worker-busy');
      const { jobId } = await jobs.enqueueRun('products', { reason: 'manual', maxAttempts: 5 });
      await sql(`UPDATE ${schema}_jobs._private_jobs SET locked_by = 'worker-busy', locked_at = now() WHERE id = $1`, [jobId]);
      expect((await replicasOverview(state, jobs, DEAD_AFTER_MS)).replicas.map((r) => [r.name, r.state])).toEqual([['idle', 'alive'], ['busy', 'alive']]);

      // The backup, as documented: both schemas shopsync owns.
      const file = join(tempDir('shopsync-restore-'), 'state.dump');
      run('pg_dump', ['--dbname', POSTGRES_URL, `--schema=${schema}`, `--schema=${schema}_jobs`, '--format=custom', `--file=${file}`]);
      // Both stop cleanly (their rows go), the schemas are lost, the backup comes back.
      await idle.stop();
      await busy.stop();
      await jobs.release();
      await state.close();
      await sql(`DROP SCHEMA ${schema} CASCADE`);
      await sql(`DROP SCHEMA ${schema}_jobs CASCADE`);
      run('pg_restore', ['--dbname', POSTGRES_URL, file]);
    } catch (err) {
      await jobs.release().catch(() => undefined);
      await state.close().catch(() => undefined);
      throw err;
    }

    const restored = await openState(location);
    const restoredJobs = await JobStore.open({ url: POSTGRES_URL, schema: `${schema}_jobs`, logger: silentLogger });
    try {
      await sleep(DEAD_AFTER_MS + 100);
      const seen = await replicasOverview(restored, restoredJobs, DEAD_AFTER_MS);
      expect(seen.replicas.map((r) => [r.name, r.alive, r.state])).toEqual([
        ['idle', false, 'gone'],
        ['busy', false, 'silent'],
      ]);
      expect(seen.jobs.map((j) => [j.pipeline, j.state, j.replica])).toEqual([['products', 'running', 'busy']]);

      // The first live replica removes both rows and frees the job the restored row held.
      const live = await startHeartbeat({ state: restored, jobs: restoredJobs, name: 'live', heartbeatMs: 60_000, deadAfterMs: DEAD_AFTER_MS, logger: silentLogger });
      try {
        expect((await live.reap()).sort()).toEqual(['busy', 'idle']);
        const after = await replicasOverview(restored, restoredJobs, DEAD_AFTER_MS);
        expect(after.replicas.map((r) => [r.name, r.state])).toEqual([['live', 'alive']]);
        expect(after.jobs.map((j) => [j.pipeline, j.state])).toEqual([['products', 'queued']]);
      } finally {
        await live.stop();
      }
    } finally {
      await restoredJobs.release();
      await restored.close();
    }
  });
});
