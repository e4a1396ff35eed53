/** Per-record events: what happened to each record in each run, for history and charts. */
import type { Db } from './db.js';
import { Where } from './where.js';
import { iso, parseJson, readShopId, toMs, type EventOutcome, type NewRecordEvent, type RecordEvent, type StoredIssue } from './types.js';

interface EventRow {
  id: number;
  run_id: number;
  pipeline: string;
  resource: string | null;
  erp_key: string | null;
  shop_id: string | null;
  outcome: string;
  codes: string | null;
  warnings: string | null;
  error: string | null;
  payload_hash: string | null;
  payload: string | null;
  diff: string | null;
  at: number;
}

function toEvent(r: EventRow): RecordEvent {
  const error = parseJson<StoredIssue>(r.error);
  const payload = parseJson<unknown>(r.payload);
  const diff = parseJson<unknown>(r.diff);
  return {
    id: r.id,
    runId: r.run_id,
    pipeline: r.pipeline,
    ...(r.resource !== null ? { resource: r.resource } : {}),
    ...(r.erp_key !== null ? { erpKey: r.erp_key } : {}),
    ...(r.shop_id !== null ? { shopId: readShopId(r.shop_id) } : {}),
    outcome: r.outcome as EventOutcome,
    warnings: parseJson<StoredIssue[]>(r.warnings) ?? [],
    ...(error ? { error } : {}),
    ...(r.payload_hash !== null ? { payloadHash: r.payload_hash } : {}),
    ...(payload !== undefined ? { payload } : {}),
    ...(diff !== undefined ? { diff } : {}),
    at: iso(r.at),
  };
}

/** Filters of `events.list`. */
export interface EventFilter {
  readonly runId?: number;
  readonly pipeline?: string;
  readonly resource?: string;
  readonly erpKey?: string;
  readonly shopId?: string | number;
  readonly outcome?: EventOutcome | readonly EventOutcome[];
  /** Events carrying this warning or error code. */
  readonly code?: string;
  readonly since?: string | number | Date;
  readonly until?: string | number | Date;
  /** @default 100 */
  readonly limit?: number;
  readonly offset?: number;
  /** @default 'asc' for a run's events, 'desc' otherwise */
  readonly order?: 'asc' | 'desc';
}

/** One bucket of `events.countsPerMinute`. */
export interface MinuteCount {
  /** Start of the minute (ISO). */
  readonly minute: string;
  readonly outcome: EventOutcome;
  readonly count: number;
}

/** Event storage and queries. */
export class Events {
  private readonly insertStmt;
  private readonly getStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO events (run_id, pipeline, resource, erp_key, shop_id, outcome, codes, warnings, error, payload_hash, payload, diff, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Append an event (call inside the settling transaction). */
  add(e: NewRecordEvent): number {
    const warnings = e.warnings ?? [];
    const codes = [...warnings.map((w) => w.code), ...(e.error ? [e.error.code] : [])];
    const info = this.insertStmt.run(
      e.runId,
      e.pipeline,
      e.resource ?? null,
      e.erpKey ?? null,
      e.shopId === undefined ? null : String(e.shopId),
      e.outcome,
      codes.length ? ` ${codes.join(' ')} ` : null,
      warnings.length ? JSON.stringify(warnings) : null,
      e.error ? JSON.stringify(e.error) : null,
      e.payloadHash ?? null,
      e.payload === undefined ? null : JSON.stringify(e.payload),
      e.diff === undefined ? null : JSON.stringify(e.diff),
      e.atMs ?? Date.now(),
    );
    return Number(info.lastInsertRowid);
  }

  /** One event with payload and diff. */
  get(id: number): RecordEvent | undefined {
    const row = this.getStmt.get(id);
    return row ? toEvent(row) : undefined;
  }

  /** Events by run, record (ERP key or shop id, across runs), outcome, code or time. */
  list(filter: EventFilter = {}): RecordEvent[] {
    const where = new Where()
      .eq('run_id', filter.runId)
      .eq('pipeline', filter.pipeline)
      .eq('resource', filter.resource)
      .eq('erp_key', filter.erpKey)
      .eq('shop_id', filter.shopId === undefined ? undefined : String(filter.shopId))
      .in('outcome', filter.outcome);
    if (filter.code !== undefined) where.add("codes LIKE ? ESCAPE '\\'", `% ${filter.code.replace(/[\\%_]/g, (c) => `\\${c}`)} %`);
    where.between('at', filter.since, filter.until);
    const order = filter.order ?? (filter.runId !== undefined ? 'asc' : 'desc');
    const sql = `SELECT * FROM events ${where} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`;
    return this.db
      .prepare<(string | number)[], EventRow>(sql)
      .all(...where.params, filter.limit ?? 100, filter.offset ?? 0)
      .map(toEvent);
  }

  /** A record's history across runs, newest first: by ERP key or by shop id. */
  history(resource: string, by: { erpKey: string } | { shopId: string | number }, limit = 100): RecordEvent[] {
    return 'erpKey' in by ? this.list({ resource, erpKey: by.erpKey, limit, order: 'desc' }) : this.list({ resource, shopId: by.shopId, limit, order: 'desc' });
  }

  /** Outcome counts per minute since a time (24 h charts); optionally for one pipeline. */
  countsPerMinute(options: { since: string | number | Date; until?: string | number | Date; pipeline?: string }): MinuteCount[] {
    const params: (string | number)[] = [toMs(options.since), options.until === undefined ? Number.MAX_SAFE_INTEGER : toMs(options.until)];
    let sql = 'SELECT (at / 60000) AS m, outcome, COUNT(*) AS n FROM events WHERE at >= ? AND at < ?';
    if (options.pipeline !== undefined) {
      sql += ' AND pipeline = ?';
      params.push(options.pipeline);
    }
    sql += ' GROUP BY m, outcome ORDER BY m';
    return this.db
      .prepare<(string | number)[], { m: number; outcome: string; n: number }>(sql)
      .all(...params)
      .map((r) => ({ minute: iso(r.m * 60000), outcome: r.outcome as EventOutcome, count: r.n }));
  }

  /** Delete events older than a time (retention); returns how many went. */
  prune(olderThan: string | number | Date): number {
    return this.db.prepare('DELETE FROM events WHERE at < ?').run(toMs(olderThan)).changes;
  }
}
