/** Cursors per pipeline and lane. */
import type { CursorValue } from '../erp/types.js';
import type { Db } from './db.js';
import { iso, parseJson, type StoredCursor } from './types.js';

interface CursorRow {
  pipeline: string;
  name: string;
  value: string | null;
  record_key: string | null;
  boundary: string | null;
  updated_at: number;
}

function toCursor(row: CursorRow): StoredCursor {
  const boundary = parseJson<Record<string, unknown>>(row.boundary);
  return {
    pipeline: row.pipeline,
    name: row.name,
    value: parseJson<CursorValue>(row.value) ?? null,
    key: row.record_key,
    ...(boundary ? { boundary } : {}),
    updatedAt: iso(row.updated_at),
  };
}

/** Cursor storage. */
export class Cursors {
  private readonly getStmt;
  private readonly setStmt;
  private readonly delStmt;
  private readonly listStmt;
  private readonly listAllStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], CursorRow>('SELECT * FROM cursors WHERE pipeline = ? AND name = ?');
    this.setStmt = db.prepare(
      `INSERT INTO cursors (pipeline, name, value, record_key, boundary, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, record_key = excluded.record_key, boundary = excluded.boundary, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM cursors WHERE pipeline = ? AND name = ?');
    this.listStmt = db.prepare<[string], CursorRow>('SELECT * FROM cursors WHERE pipeline = ? ORDER BY name');
    this.listAllStmt = db.prepare<[], CursorRow>('SELECT * FROM cursors ORDER BY pipeline, name');
  }

  /** The cursor of a lane (`incremental` unless named). */
  get(pipeline: string, name = 'incremental'): StoredCursor | undefined {
    const row = this.getStmt.get(pipeline, name);
    return row ? toCursor(row) : undefined;
  }

  /** Save a lane's cursor (call inside the transaction that settles the records it covers). */
  set(pipeline: string, name: string, cursor: { value: CursorValue; key: string | null; boundary?: Readonly<Record<string, unknown>> }): void {
    this.setStmt.run(pipeline, name, JSON.stringify(cursor.value), cursor.key, cursor.boundary ? JSON.stringify(cursor.boundary) : null, Date.now());
  }

  /** Forget a lane's cursor (reset a pipeline, finish a backfill). */
  delete(pipeline: string, name = 'incremental'): void {
    this.delStmt.run(pipeline, name);
  }

  /** Every cursor of a pipeline, or of all pipelines. */
  list(pipeline?: string): StoredCursor[] {
    return (pipeline === undefined ? this.listAllStmt.all() : this.listStmt.all(pipeline)).map(toCursor);
  }
}
