/** Runs: one row per pipeline execution, with counters kept current while it runs. */
import { hostname } from 'node:os';
import type { Db } from './db.js';
import { Where } from './where.js';
import { iso, parseJson, toMs, type RunCounts, type RunMode, type RunRecord, type RunStatus } from './types.js';

interface RunRow {
  id: number;
  pipeline: string;
  mode: string;
  lane: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  pid: number | null;
  host: string | null;
  range_json: string | null;
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  dead_lettered: number;
  unreadable: number;
  warnings: number;
  requests: number;
  error: string | null;
}

/** Zeroed counters. */
export function emptyCounts(): RunCounts {
  return { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deadLettered: 0, unreadable: 0, warnings: 0, requests: 0 };
}

function toRun(r: RunRow): RunRecord {
  const range = parseJson<Record<string, unknown>>(r.range_json);
  const error = parseJson<Record<string, unknown>>(r.error);
  return {
    id: r.id,
    pipeline: r.pipeline,
    mode: r.mode as RunMode,
    lane: r.lane,
    status: r.status as RunStatus,
    startedAt: iso(r.started_at),
    ...(r.finished_at !== null ? { finishedAt: iso(r.finished_at) } : {}),
    ...(r.pid !== null ? { pid: r.pid } : {}),
    ...(r.host !== null ? { host: r.host } : {}),
    ...(range ? { range } : {}),
    counts: { read: r.read, created: r.created, updated: r.updated, unchanged: r.unchanged, failed: r.failed, deadLettered: r.dead_lettered, unreadable: r.unreadable, warnings: r.warnings, requests: r.requests },
    ...(error ? { error } : {}),
  };
}

/** Filters of `runs.list`. */
export interface RunFilter {
  readonly pipeline?: string;
  readonly status?: RunStatus | readonly RunStatus[];
  readonly mode?: RunMode;
  /** Runs that had at least one record with this outcome. */
  readonly outcome?: 'failed' | 'dead-lettered' | 'warnings';
  readonly since?: string | number | Date;
  readonly until?: string | number | Date;
  /** @default 50 */
  readonly limit?: number;
  readonly offset?: number;
}

/** Run bookkeeping. */
export class Runs {
  private readonly insertStmt;
  private readonly countsStmt;
  private readonly finishStmt;
  private readonly getStmt;
  private readonly crashStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO runs (pipeline, mode, lane, status, started_at, pid, host, range_json) VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`,
    );
    this.countsStmt = db.prepare(
      `UPDATE runs SET read = ?, created = ?, updated = ?, unchanged = ?, failed = ?, dead_lettered = ?, unreadable = ?, warnings = ?, requests = ? WHERE id = ?`,
    );
    this.finishStmt = db.prepare(`UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ?`);
    this.getStmt = db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?');
    this.crashStmt = db.prepare(
      `UPDATE runs SET status = 'crashed', finished_at = ?, error = ? WHERE lane = ? AND status = 'running'`,
    );
  }

  /** Record a started run; returns its id. */
  start(run: { pipeline: string; mode: RunMode; lane: string; range?: Readonly<Record<string, unknown>> }): number {
    const info = this.insertStmt.run(run.pipeline, run.mode, run.lane, Date.now(), process.pid, hostname(), run.range ? JSON.stringify(run.range) : null);
    return Number(info.lastInsertRowid);
  }

  /** Store the current counters (call inside the settling transaction). */
  saveCounts(id: number, c: Readonly<RunCounts>): void {
    this.countsStmt.run(c.read, c.created, c.updated, c.unchanged, c.failed, c.deadLettered, c.unreadable, c.warnings, c.requests, id);
  }

  /** Close a run with its final status. */
  finish(id: number, status: Exclude<RunStatus, 'running'>, counts: Readonly<RunCounts>, error?: Readonly<Record<string, unknown>>): void {
    this.db.transaction(() => {
      this.saveCounts(id, counts);
      this.finishStmt.run(status, Date.now(), error ? JSON.stringify(error) : null, id);
    })();
  }

  /** One run. */
  get(id: number): RunRecord | undefined {
    const row = this.getStmt.get(id);
    return row ? toRun(row) : undefined;
  }

  /** Mark runs of a lane still `running` as crashed (call once the lane's lock is ours). */
  markCrashed(lane: string): number {
    const error = JSON.stringify({ code: 'RUN_CRASHED', message: 'the process running this run stopped without finishing it' });
    return this.crashStmt.run(Date.now(), error, lane).changes;
  }

  /** Runs, newest first, filtered for the dashboard and the CLI. */
  list(filter: RunFilter = {}): RunRecord[] {
    const where = new Where().eq('pipeline', filter.pipeline).in('status', filter.status).eq('mode', filter.mode);
    if (filter.outcome === 'failed') where.add('failed > 0');
    if (filter.outcome === 'dead-lettered') where.add('dead_lettered > 0');
    if (filter.outcome === 'warnings') where.add('warnings > 0');
    where.between('started_at', filter.since, filter.until);
    const sql = `SELECT * FROM runs ${where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`;
    return this.db
      .prepare<(string | number)[], RunRow>(sql)
      .all(...where.params, filter.limit ?? 50, filter.offset ?? 0)
      .map(toRun);
  }

  /** The latest finished run of each pipeline (health: "a sync that silently stopped"). */
  latestByPipeline(): RunRecord[] {
    return this.db
      .prepare<[], RunRow>('SELECT r.* FROM runs r JOIN (SELECT pipeline, MAX(id) AS id FROM runs GROUP BY pipeline) m ON r.id = m.id ORDER BY r.pipeline')
      .all()
      .map(toRun);
  }
}
