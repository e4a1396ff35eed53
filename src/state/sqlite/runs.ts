/** Runs (SQLite): one row per pipeline execution, with counters kept current while it runs. */
import { hostname } from 'node:os';
import { CRASHED_ERROR, toRun, type RunRow } from '../rows.js';
import { COUNT_COLUMNS, countValues, runWhere } from '../filters.js';
import type { RunFilter, RunFinish, RunLatencyRow, RunStore } from '../store.js';
import type { RunCounts, RunMode, RunRecord, RunStatus } from '../types.js';
import { Where } from '../where.js';
import { cached, type Db } from './db.js';

/**
 * Run bookkeeping. SQLite is a file on one machine, so its stamps come from that machine's clock
 * (every writer shares it); `finished_at` is still kept from preceding `started_at` when the clock
 * stepped back in between.
 */
export class SqliteRuns implements RunStore {
  private readonly insertStmt;
  private readonly countsStmt;
  private readonly finishStmt;
  private readonly getStmt;
  private readonly crashStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
  ) {
    this.insertStmt = db.prepare(`INSERT INTO runs (pipeline, shop, mode, lane, status, started_at, pid, host, range_json, owner) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`);
    this.countsStmt = db.prepare(`UPDATE runs SET ${COUNT_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`);
    // Only the owner's own running run: a run a takeover marked crashed stays crashed.
    this.finishStmt = db.prepare(`UPDATE runs SET status = ?, finished_at = max(started_at, ?), error = ? WHERE id = ? AND status = 'running' AND owner IS ?`);
    this.getStmt = db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?');
    this.crashStmt = db.prepare(`UPDATE runs SET status = 'crashed', finished_at = max(started_at, ?), error = ?, owner = ? WHERE lane = ? AND status = 'running'`);
  }

  async start(run: { pipeline: string; mode: RunMode; lane: string; range?: Readonly<Record<string, unknown>>; owner?: string }): Promise<number> {
    const info = this.insertStmt.run(run.pipeline, this.shop, run.mode, run.lane, Date.now(), process.pid, hostname(), run.range ? JSON.stringify(run.range) : null, run.owner ?? null);
    return Number(info.lastInsertRowid);
  }

  async saveCounts(id: number, c: Readonly<RunCounts>): Promise<void> {
    this.saveCountsNow(id, c);
  }

  /** The write itself (inside `write`). */
  saveCountsNow(id: number, c: Readonly<RunCounts>): void {
    this.countsStmt.run(...countValues(c), id);
  }

  async finish(id: number, status: Exclude<RunStatus, 'running'>, counts: Readonly<RunCounts>, error?: Readonly<Record<string, unknown>>, owner?: string): Promise<RunFinish> {
    return this.db.transaction((): RunFinish => {
      if (this.finishStmt.run(status, Date.now(), error ? JSON.stringify(error) : null, id, owner ?? null).changes === 1) {
        this.saveCountsNow(id, counts);
        return { finished: true };
      }
      const now = this.getStmt.get(id);
      return { finished: false, status: now ? (now.status as RunStatus) : undefined, owner: now?.owner ?? null };
    })();
  }

  async get(id: number): Promise<RunRecord | undefined> {
    const row = this.getStmt.get(id);
    return row ? toRun(row) : undefined;
  }

  async markCrashed(lane: string, by?: string): Promise<number> {
    return this.crashStmt.run(Date.now(), CRASHED_ERROR, by ?? null, lane).changes;
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    const where = runWhere(filter, new Where());
    return cached<(string | number)[], RunRow>(this.db, `SELECT * FROM runs ${where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...where.params, filter.limit ?? 50, filter.offset ?? 0)
      .map(toRun);
  }

  async saveLatency(id: number, latency: unknown): Promise<void> {
    cached<[string, number]>(this.db, 'UPDATE runs SET latency_json = ? WHERE id = ?').run(JSON.stringify(latency), id);
  }

  async latencySince(since: number): Promise<RunLatencyRow[]> {
    return cached<[number], { id: number; pipeline: string; shop: string; latency_json: string }>(this.db, 'SELECT id, pipeline, shop, latency_json FROM runs WHERE started_at >= ? AND latency_json IS NOT NULL')
      .all(since)
      .map((r) => ({ runId: Number(r.id), pipeline: r.pipeline, shop: r.shop, latencyJson: r.latency_json }));
  }

  async latestByPipeline(): Promise<RunRecord[]> {
    return cached<[], RunRow>(this.db, 'SELECT r.* FROM runs r JOIN (SELECT pipeline, MAX(id) AS id FROM runs GROUP BY pipeline) m ON r.id = m.id ORDER BY r.pipeline')
      .all()
      .map(toRun);
  }
}
