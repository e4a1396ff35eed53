/**
 * The job engine's tables as shopsync uses them: adding run jobs, listing them for `status`, the
 * dashboard and metrics, and the repairs the open-source engine leaves to us (freeing a dead
 * replica's jobs, keeping one visible record per failing lane). Adding and unlocking go through
 * graphile-worker's `WorkerUtils`; reading uses its public `jobs` view; the few repairs it has no
 * function for update its `_private_jobs` table (graphile-worker is pinned to 0.16.x for this).
 */
import pg from 'pg';
import { makeWorkerUtils, type Job, type WorkerUtils } from 'graphile-worker';
import { z } from 'zod';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';
import { laneQueue, pipelineOfQueue, RUN_TASK, runJobKey, shopFlag } from './names.js';
import { workerLogger } from './logger.js';
import { ticksTableSql } from './ticks.js';
import { translatePg } from '../state/postgres/faults.js';
import { redactUrl } from '../util/net.js';

/** Where a job stands: waiting, running on a replica, waiting for a retry after a failure, or given up (failing). */
export type JobState = 'queued' | 'running' | 'retrying' | 'failed';
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'retrying', 'failed'];

/** One job as `status`, `jobs list` and the dashboard show it. */
export interface JobInfo {
  readonly id: string;
  /** The pipeline of its lane (undefined for a job shopsync did not add). */
  readonly pipeline?: string;
  readonly state: JobState;
  readonly reason?: string;
  readonly createdAt: string;
  readonly runAt: string;
  /** Milliseconds since it was added (how long the work has waited or run). */
  readonly ageMs: number;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly lastError: string | null;
  /** The worker that runs it (running jobs). */
  readonly lockedBy: string | null;
  readonly lockedAt: string | null;
}

/** Why a run job was added. */
/** `wake`: a trigger (NOTIFY, file, hook, poll) saw a change; coalesced like a tick. */
export type RunReason = 'schedule' | 'manual' | 'handback' | 'lane-busy' | 'wake';

/** The payload of a run job. */
export const runPayloadSchema = z.object({
  pipeline: z.string().min(1),
  reason: z.enum(['schedule', 'manual', 'handback', 'lane-busy', 'wake']).default('manual'),
  /** The replica (or CLI) that added it. */
  by: z.string().optional(),
});
export type RunPayload = z.infer<typeof runPayloadSchema>;

/** Options of `JobStore.open`. */
export interface JobStoreOptions {
  readonly url: string;
  readonly schema: string;
  readonly logger: Logger;
  /** Create or upgrade the engine's schema. @default true */
  readonly migrate?: boolean;
}

/** How `enqueueRun` adds a job. */
export interface EnqueueOptions {
  readonly reason: RunReason;
  readonly by?: string;
  readonly maxAttempts: number;
  /** Run no sooner than this many ms from now (lane busy elsewhere). */
  readonly delayMs?: number;
  /** The pipeline's shop: the job carries its flag, so replicas can hold back a shop that has its share of workers. */
  readonly shop?: string;
}

/** What adding a run did. */
export interface Enqueued {
  /** `added`: a job now waits (new, or the waiting one coalesced); `retry-pending`: a tick left a job waiting for its retry alone; `tick-taken`: another replica claimed this tick (src/jobs/ticks.ts). */
  readonly outcome: 'added' | 'retry-pending' | 'tick-taken';
  readonly jobId?: string;
  /** The request folded into a job of the lane that already waited (no job of its own). */
  readonly coalesced?: boolean;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

interface JobViewRow {
  id: string;
  queue_name: string | null;
  task_identifier: string;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  created_at: Date;
  key: string | null;
  locked_at: Date | null;
  locked_by: string | null;
  age_ms: string | number;
  reason: string | null;
}

/** The job engine's side of a PostgreSQL state. */
export class JobStore {
  /** Calls under way: release() lets them finish before it ends the pool. */
  readonly #inflight = new Set<Promise<unknown>>();
  #released = false;

  private constructor(
    readonly schema: string,
    readonly utils: WorkerUtils,
    private readonly q: string,
  ) {}

  /** Connect (and by default create or upgrade the engine's schema, one replica at a time). */
  static async open(options: JobStoreOptions): Promise<JobStore> {
    if (!SCHEMA_NAME.test(options.schema)) throw new StateError('STATE_SCHEMA_INVALID', `jobs schema \`${options.schema}\` is not a plain identifier; use letters, digits and _ (replicas.jobsSchema)`);
    // A server that takes no writes (read-only, disk full) is said by name, as the state's own errors are.
    if (options.migrate !== false) await migrateUnderLock(options.url, options.schema, options.logger).catch((err: unknown) => Promise.reject(translatePg(err, { url: options.url, schema: options.schema, location: `${redactUrl(options.url)}#${options.schema}` })));
    const utils = await makeWorkerUtils({ connectionString: options.url, schema: options.schema, logger: workerLogger(options.logger), maxPoolSize: 4 });
    return new JobStore(options.schema, utils, pg.escapeIdentifier(options.schema));
  }

  /** Whether the engine's schema exists (a read-only command must not create it). */
  static async exists(url: string, schema: string): Promise<boolean> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const r = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${pg.escapeIdentifier(schema)}.jobs`]);
      return r.rows[0]?.t !== null && r.rows[0]?.t !== undefined;
    } finally {
      await client.end();
    }
  }

  private query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.guard((utils) => utils.withPgClient((client) => client.query<R>(text, values)));
  }

  /**
   * Every use of the engine's pool goes through here: after release() it throws JOBS_RELEASED
   * (typed, so a stopping replica can tell it from a database failure) instead of pg-pool's
   * "Cannot use a pool after calling end on the pool", and release() waits for calls under way.
   */
  guard<T>(use: (utils: WorkerUtils) => Promise<T>): Promise<T> {
    if (this.#released) return Promise.reject(releasedError());
    const call = use(this.utils);
    this.#inflight.add(call);
    const forget = () => this.#inflight.delete(call);
    call.then(forget, forget);
    return call;
  }

  /** Whether release() was called (a stopping replica's store takes no more calls). */
  get released(): boolean {
    return this.#released;
  }

  /**
   * Ask for a run of `pipeline`. One job per lane waits at a time: a tick or a click while one
   * waits updates it (jobKey, preserve_run_at) instead of adding another. A tick leaves a job
   * that waits for its retry alone, so ticks never reset the attempts of a failing lane.
   */
  async enqueueRun(pipeline: string, options: EnqueueOptions): Promise<Enqueued> {
    const key = runJobKey(pipeline);
    const coalesced = options.reason === 'schedule' || options.reason === 'wake';
    if (coalesced) {
      const waiting = await this.query<{ attempts: number; max_attempts: number }>(`SELECT attempts, max_attempts FROM ${this.q}.jobs WHERE key = $1 AND locked_at IS NULL`, [key]);
      const row = waiting.rows[0];
      if (row && row.attempts > 0 && row.attempts < row.max_attempts) return { outcome: 'retry-pending' };
    }
    const payload: RunPayload = { pipeline, reason: options.reason, ...(options.by ? { by: options.by } : {}) };
    const job = await this.guard((utils) => utils.addJob(RUN_TASK, payload, {
      queueName: laneQueue(pipeline),
      jobKey: key,
      // A tick keeps the waiting job's time (coalescing never postpones work); anything else means "now" (or after delayMs).
      jobKeyMode: coalesced ? 'preserve_run_at' : 'replace',
      maxAttempts: options.maxAttempts,
      ...(options.delayMs ? { runAt: new Date(Date.now() + options.delayMs) } : {}),
      ...(options.shop !== undefined ? { flags: [shopFlag(options.shop)] } : {}),
    }));
    // A fresh job has revision 0; the engine bumps it when a request folds into the waiting one.
    return { outcome: 'added', jobId: String(job.id), ...(job.revision > 0 ? { coalesced: true } : {}) };
  }

  /** Whether a job is still there (not yet completed). */
  async has(jobId: string): Promise<boolean> {
    return ((await this.query(`SELECT 1 FROM ${this.q}._private_jobs WHERE id = $1`, [jobId])).rowCount ?? 0) > 0;
  }

  /** Every job, running first, then by age. */
  async list(): Promise<JobInfo[]> {
    const rows = await this.query<JobViewRow>(
      `SELECT j.id::text AS id, j.queue_name, j.task_identifier, j.run_at, j.attempts, j.max_attempts, j.last_error, j.created_at, j.key, j.locked_at, j.locked_by,
              (extract(epoch from now() - j.created_at) * 1000)::bigint AS age_ms, p.payload->>'reason' AS reason
       FROM ${this.q}.jobs j LEFT JOIN ${this.q}._private_jobs p ON p.id = j.id
       ORDER BY (j.locked_at IS NULL), j.created_at, j.id`,
    );
    return rows.rows.map(toJobInfo);
  }

  /** Jobs per state (the `shopsync_jobs` gauge). */
  async counts(): Promise<Record<JobState, number>> {
    const out: Record<JobState, number> = { queued: 0, running: 0, retrying: 0, failed: 0 };
    const rows = await this.query<{ state: JobState; n: string }>(
      `SELECT CASE WHEN locked_at IS NOT NULL THEN 'running' WHEN attempts >= max_attempts THEN 'failed' WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END AS state, count(*) AS n
       FROM ${this.q}.jobs GROUP BY 1`,
    );
    for (const r of rows.rows) out[r.state] = Number(r.n);
    return out;
  }

  /** How many jobs these workers hold (locked). */
  async lockedBy(workerIds: readonly string[]): Promise<number> {
    if (workerIds.length === 0) return 0;
    const r = await this.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.q}._private_jobs WHERE locked_by = ANY($1::text[])`, [workerIds]);
    return Number(r.rows[0]?.n ?? 0);
  }

  /**
   * Free the jobs and queues of dead workers (`forceUnlockWorkers`). A job of theirs that a newer
   * request had already superseded (the engine took its key and gave up its retries) is removed
   * first: the newer job of its lane does the same work, and it must not linger as "failed".
   */
  async freeWorkers(workerIds: readonly string[]): Promise<{ superseded: number }> {
    if (workerIds.length === 0) return { superseded: 0 };
    const gone = await this.query(
      `DELETE FROM ${this.q}._private_jobs j WHERE j.locked_by = ANY($1::text[]) AND j.key IS NULL AND j.attempts >= j.max_attempts
         AND EXISTS (SELECT 1 FROM ${this.q}._private_jobs n WHERE n.job_queue_id = j.job_queue_id AND n.id <> j.id)`,
      [workerIds],
    );
    await this.guard((utils) => utils.forceUnlockWorkers([...workerIds]));
    return { superseded: gone.rowCount ?? 0 };
  }

  /** Worker ids that hold a job or a lane's queue now. */
  async lockingWorkers(): Promise<string[]> {
    const r = await this.query<{ id: string }>(
      `SELECT locked_by AS id FROM ${this.q}._private_jobs WHERE locked_by IS NOT NULL
       UNION SELECT locked_by FROM ${this.q}._private_job_queues WHERE locked_by IS NOT NULL`,
    );
    return r.rows.map((row) => row.id);
  }

  /**
   * Free jobs and queues locked by workers that no live replica owns: a worker that died while
   * its replica lived on ("committing seppuku"), whose id then left the state with that replica's
   * row at a clean exit. `liveWorkers` is asked after the locks were read, so a replica that
   * registers a worker and locks a job in between is never taken for an orphan.
   */
  async freeOrphans(liveWorkers: () => Promise<readonly string[]>): Promise<{ workers: string[]; held: number }> {
    const locking = await this.lockingWorkers();
    if (locking.length === 0) return { workers: [], held: 0 };
    const live = new Set(await liveWorkers());
    const orphans = locking.filter((id) => !live.has(id));
    if (orphans.length === 0) return { workers: [], held: 0 };
    const held = await this.lockedBy(orphans);
    await this.freeWorkers(orphans);
    return { workers: orphans, held };
  }

  /** A lane ran fine: its earlier given-up jobs are history now (the runs table keeps it). */
  async clearFailures(pipeline: string): Promise<void> {
    await this.query(
      `DELETE FROM ${this.q}._private_jobs j USING ${this.q}._private_job_queues q
       WHERE j.job_queue_id = q.id AND q.queue_name = $1 AND j.locked_at IS NULL AND j.attempts >= j.max_attempts`,
      [laneQueue(pipeline)],
    );
  }

  /**
   * A run job failed. Decides what the engine should record:
   * - `superseded`: a newer request took the job's key while it ran (the engine then gives up its
   *   retries); the attempt count and error move to that newer job, with the engine's back-off, so
   *   the lane's failure streak stays counted on one job, and this one completes.
   * - `final`: its last attempt; its key is cleared so it stays as the lane's one visible failed
   *   job (older ones go) while the next tick adds a fresh job.
   * - `retry`: the engine retries it after its back-off.
   */
  async settleFailure(job: Job, message: string): Promise<'superseded' | 'final' | 'retry'> {
    const now = await this.query<{ key: string | null }>(`SELECT key FROM ${this.q}._private_jobs WHERE id = $1`, [job.id]);
    const key = now.rows[0]?.key ?? null;
    if (job.key !== null && key === null && job.attempts < job.max_attempts) {
      await this.query(
        `UPDATE ${this.q}._private_jobs SET attempts = GREATEST(attempts, $2::int), last_error = $3,
           run_at = GREATEST(run_at, now() + exp(least($2::int, 10)) * interval '1 second')
         WHERE key = $1 AND locked_at IS NULL AND attempts < $2::int AND $2::int < max_attempts`,
        [job.key, job.attempts, message],
      );
      return 'superseded';
    }
    if (job.attempts >= job.max_attempts) {
      await this.query(`UPDATE ${this.q}._private_jobs SET key = NULL WHERE id = $1`, [job.id]);
      await this.query(
        `DELETE FROM ${this.q}._private_jobs j WHERE j.job_queue_id = $2 AND j.id <> $1 AND j.locked_at IS NULL AND j.attempts >= j.max_attempts`,
        [job.id, job.job_queue_id],
      );
      return 'final';
    }
    return 'retry';
  }

  /** The newest migration graphile-worker applied to this jobs schema. */
  async latestMigration(): Promise<number> {
    const r = await this.query<{ id: number | null }>(`SELECT max(id) AS id FROM ${this.q}.migrations`);
    return r.rows[0]?.id ?? 0;
  }

  /** Migration `id` of this jobs schema, when it was applied. */
  async migration(id: number): Promise<{ breaking: boolean } | undefined> {
    const r = await this.query<{ breaking: boolean }>(`SELECT breaking FROM ${this.q}.migrations WHERE id = $1`, [id]);
    return r.rows[0];
  }

  /** Wake idle workers of every replica (the engine's own LISTEN channel): a freed or handed-back job is taken at once, not at the next poll. */
  async nudge(count = 1): Promise<void> {
    await this.query(`SELECT pg_notify('jobs:insert', $1)`, [JSON.stringify({ r: Math.random(), count })]);
  }

  /**
   * End the pool. Calls under way finish first (a hand-back being written is not cut off), for at
   * most `waitMs`; calls made afterwards throw JOBS_RELEASED. A second call does nothing.
   */
  async release(waitMs = 10_000): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (this.#inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      });
      await Promise.race([Promise.allSettled([...this.#inflight]), late]);
      clearTimeout(timer);
    }
    await this.utils.release();
  }
}

/** The code of the error a released store throws. */
export const JOBS_RELEASED = 'JOBS_RELEASED';

function releasedError(): StateError {
  return new StateError(JOBS_RELEASED, 'the job store of this replica was released: the replica is stopping and takes no more job calls; a run job left running is freed by the other replicas once this one counts as dead (replicas.deadAfterMs)');
}

function toJobInfo(r: JobViewRow): JobInfo {
  const state: JobState = r.locked_at ? 'running' : r.attempts >= r.max_attempts ? 'failed' : r.attempts > 0 ? 'retrying' : 'queued';
  const pipeline = r.task_identifier === RUN_TASK ? pipelineOfQueue(r.queue_name) : undefined;
  return {
    id: r.id,
    ...(pipeline ? { pipeline } : {}),
    state,
    ...(r.reason ? { reason: r.reason } : {}),
    createdAt: r.created_at.toISOString(),
    runAt: r.run_at.toISOString(),
    ageMs: Math.max(0, Number(r.age_ms)),
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    lastError: r.last_error,
    lockedBy: r.locked_by,
    lockedAt: r.locked_at ? r.locked_at.toISOString() : null,
  };
}

/** Create or upgrade the engine's schema under a session advisory lock: replicas starting together would race its installer. */
async function migrateUnderLock(url: string, schema: string, logger: Logger): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', ['shopsync:jobs-migrate', schema]);
    const utils = await makeWorkerUtils({ connectionString: url, schema, maxPoolSize: 1, logger: workerLogger(logger) });
    try {
      await utils.migrate();
      await client.query(ticksTableSql(schema));
    } finally {
      await utils.release();
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
