/** Runs (PostgreSQL): one row per pipeline execution, with counters kept current while it runs. */
import { hostname } from 'node:os';
import type pg from 'pg';
import { CRASHED_ERROR, toRun, type RunRow } from '../rows.js';
import { COUNT_COLUMNS, countValues, runWhere } from '../filters.js';
import type { RunFilter, RunFinish, RunLatencyRow, RunStore } from '../store.js';
import type { RunCounts, RunMode, RunRecord, RunStatus } from '../types.js';
import { Where } from '../where.js';
import { execute, one, query } from './db.js';

const SET_COUNTS = COUNT_COLUMNS.map((c, i) => `${c} = $${i + 1}`).join(', ');
const AFTER_COUNTS = COUNT_COLUMNS.length;

/**
 * The database's clock in epoch ms. Runs are stamped by the server, not by each replica's own
 * clock: a replica whose clock runs two hours ahead must not write runs into the future, and the
 * runs of one lane written by different replicas must compare. `clock_timestamp()`, not `now()`:
 * the moment of the write, not of a transaction's start.
 */
const DB_NOW = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/** Run bookkeeping. */
export class PgRuns implements RunStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly shop: string,
  ) {}

  async start(run: { pipeline: string; mode: RunMode; lane: string; range?: Readonly<Record<string, unknown>>; owner?: string }): Promise<number> {
    const row = await one<{ id: number }>(
      this.pool,
      `INSERT INTO runs (pipeline, shop, mode, lane, status, started_at, pid, host, range_json, owner) VALUES ($1, $2, $3, $4, 'running', ${DB_NOW}, $5, $6, $7, $8) RETURNING id`,
      [run.pipeline, this.shop, run.mode, run.lane, process.pid, hostname(), run.range ? JSON.stringify(run.range) : null, run.owner ?? null],
    );
    return row!.id;
  }

  async saveCounts(id: number, c: Readonly<RunCounts>): Promise<void> {
    await execute(this.pool, `UPDATE runs SET ${SET_COUNTS} WHERE id = $${AFTER_COUNTS + 1}`, [...countValues(c), id]);
  }

  async finish(id: number, status: Exclude<RunStatus, 'running'>, counts: Readonly<RunCounts>, error?: Readonly<Record<string, unknown>>, owner?: string): Promise<RunFinish> {
    // One statement: counters and status land together, and only on the owner's own running run
    // (a run a takeover marked crashed stays crashed; its counts stay those of its last checkpoint).
    const n = AFTER_COUNTS;
    const changed = await execute(
      this.pool,
      `UPDATE runs SET ${SET_COUNTS}, status = $${n + 1}, finished_at = GREATEST(started_at, ${DB_NOW}), error = $${n + 2}
       WHERE id = $${n + 3} AND status = 'running' AND owner IS NOT DISTINCT FROM $${n + 4}::text`,
      [...countValues(counts), status, error ? JSON.stringify(error) : null, id, owner ?? null],
    );
    if (changed === 1) return { finished: true };
    const now = await one<{ status: string; owner: string | null }>(this.pool, 'SELECT status, owner FROM runs WHERE id = $1', [id]);
    return { finished: false, status: now ? (now.status as RunStatus) : undefined, owner: now?.owner ?? null };
  }

  async get(id: number): Promise<RunRecord | undefined> {
    const row = await one<RunRow>(this.pool, 'SELECT * FROM runs WHERE id = $1', [id]);
    return row ? toRun(row) : undefined;
  }

  async markCrashed(lane: string, by?: string): Promise<number> {
    return execute(this.pool, `UPDATE runs SET status = 'crashed', finished_at = GREATEST(started_at, ${DB_NOW}), error = $1, owner = $2 WHERE lane = $3 AND status = 'running'`, [CRASHED_ERROR, by ?? null, lane]);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    const where = runWhere(filter, new Where(true));
    const sql = `SELECT * FROM runs ${where} ORDER BY started_at DESC, id DESC LIMIT ${where.next(0)} OFFSET ${where.next(1)}`;
    return (await query<RunRow>(this.pool, sql, [...where.params, filter.limit ?? 50, filter.offset ?? 0])).map(toRun);
  }

  async saveLatency(id: number, latency: unknown): Promise<void> {
    await execute(this.pool, 'UPDATE runs SET latency_json = $1 WHERE id = $2', [JSON.stringify(latency), id]);
  }

  async latencySince(since: number): Promise<RunLatencyRow[]> {
    const rows = await query<{ id: number; pipeline: string; shop: string; latency_json: string }>(this.pool, 'SELECT id, pipeline, shop, latency_json FROM runs WHERE started_at >= $1 AND latency_json IS NOT NULL', [since]);
    return rows.map((r) => ({ runId: Number(r.id), pipeline: r.pipeline, shop: r.shop, latencyJson: r.latency_json }));
  }

  async latestByPipeline(): Promise<RunRecord[]> {
    return (await query<RunRow>(this.pool, 'SELECT r.* FROM runs r JOIN (SELECT pipeline, MAX(id) AS id FROM runs GROUP BY pipeline) m ON r.id = m.id ORDER BY r.pipeline')).map(toRun);
  }
}
