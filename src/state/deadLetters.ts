/** Dead letters: failed records kept with their reason until retried or dropped. */
import type { Db } from './db.js';
import { Where } from './where.js';
import { iso, parseJson, type DeadLetter, type DeadLetterOrigin } from './types.js';

interface DeadLetterRow {
  id: number;
  pipeline: string;
  resource: string | null;
  erp_key: string;
  record: string;
  payload: string | null;
  code: string;
  reason: string;
  attempts: number;
  run_id: number | null;
  first_failed_at: number;
  last_failed_at: number;
  origin: string | null;
}

function toDeadLetter(r: DeadLetterRow): DeadLetter {
  const payload = parseJson<unknown>(r.payload);
  const origin = parseJson<DeadLetterOrigin>(r.origin);
  return {
    id: r.id,
    pipeline: r.pipeline,
    ...(r.resource !== null ? { resource: r.resource } : {}),
    erpKey: r.erp_key,
    record: JSON.parse(r.record) as Record<string, unknown>,
    ...(payload !== undefined ? { payload } : {}),
    code: r.code,
    reason: r.reason,
    attempts: r.attempts,
    ...(r.run_id !== null ? { runId: r.run_id } : {}),
    firstFailedAt: iso(r.first_failed_at),
    lastFailedAt: iso(r.last_failed_at),
    ...(origin !== undefined ? { origin } : {}),
  };
}

/** What a failing record leaves behind. */
export type NewDeadLetter = Pick<DeadLetter, 'pipeline' | 'resource' | 'erpKey' | 'record' | 'payload' | 'code' | 'reason' | 'runId' | 'origin'>;

/** Dead-letter storage; one letter per pipeline and ERP key, attempts counted. */
export class DeadLetters {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly getByKeyStmt;
  private readonly delStmt;
  private readonly delByKeyStmt;
  private readonly countStmt;

  constructor(private readonly db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO dead_letters (pipeline, resource, erp_key, record, payload, code, reason, attempts, run_id, first_failed_at, last_failed_at, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT (pipeline, erp_key) DO UPDATE SET resource = excluded.resource, record = excluded.record, payload = excluded.payload,
         code = excluded.code, reason = excluded.reason, attempts = dead_letters.attempts + 1, run_id = excluded.run_id, last_failed_at = excluded.last_failed_at,
         origin = excluded.origin`,
    );
    this.getStmt = db.prepare<[number], DeadLetterRow>('SELECT * FROM dead_letters WHERE id = ?');
    this.getByKeyStmt = db.prepare<[string, string], DeadLetterRow>('SELECT * FROM dead_letters WHERE pipeline = ? AND erp_key = ?');
    this.delStmt = db.prepare('DELETE FROM dead_letters WHERE id = ?');
    this.delByKeyStmt = db.prepare('DELETE FROM dead_letters WHERE pipeline = ? AND erp_key = ?');
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM dead_letters WHERE pipeline = ?');
  }

  /** Add a failed record, or count another attempt of one already here. */
  add(letter: NewDeadLetter): DeadLetter {
    const now = Date.now();
    this.upsertStmt.run(
      letter.pipeline,
      letter.resource ?? null,
      letter.erpKey,
      JSON.stringify(letter.record),
      letter.payload === undefined ? null : JSON.stringify(letter.payload),
      letter.code,
      letter.reason,
      letter.runId ?? null,
      now,
      now,
      letter.origin === undefined ? null : JSON.stringify(letter.origin),
    );
    return this.getByKey(letter.pipeline, letter.erpKey)!;
  }

  /** One dead letter by id. */
  get(id: number): DeadLetter | undefined {
    const row = this.getStmt.get(id);
    return row ? toDeadLetter(row) : undefined;
  }

  /** The dead letter of a record, if it has one. */
  getByKey(pipeline: string, erpKey: string): DeadLetter | undefined {
    const row = this.getByKeyStmt.get(pipeline, erpKey);
    return row ? toDeadLetter(row) : undefined;
  }

  /** Dead letters, newest failure first. */
  list(filter: { pipeline?: string; code?: string; limit?: number; offset?: number } = {}): DeadLetter[] {
    const where = new Where().eq('pipeline', filter.pipeline).eq('code', filter.code);
    const sql = `SELECT * FROM dead_letters ${where} ORDER BY last_failed_at DESC, id DESC LIMIT ? OFFSET ?`;
    return this.db
      .prepare<(string | number)[], DeadLetterRow>(sql)
      .all(...where.params, filter.limit ?? 100, filter.offset ?? 0)
      .map(toDeadLetter);
  }

  /** How many dead letters a pipeline holds. */
  count(pipeline: string): number {
    return this.countStmt.get(pipeline)?.n ?? 0;
  }

  /** Remove a dead letter by id (drop, or settled by a retry); true when it existed. */
  delete(id: number): boolean {
    return this.delStmt.run(id).changes > 0;
  }

  /** Remove a record's dead letter (it has since been delivered). */
  resolve(pipeline: string, erpKey: string): boolean {
    return this.delByKeyStmt.run(pipeline, erpKey).changes > 0;
  }
}
