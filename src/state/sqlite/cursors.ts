/** Cursors per pipeline and lane (SQLite). */
import type { CursorStore, CursorWrite } from '../store.js';
import { toCursor, type CursorRow } from '../rows.js';
import type { StoredCursor } from '../types.js';
import type { Db } from './db.js';

/** Cursor storage. */
export class SqliteCursors implements CursorStore {
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

  async get(pipeline: string, name = 'incremental'): Promise<StoredCursor | undefined> {
    const row = this.getStmt.get(pipeline, name);
    return row ? toCursor(row) : undefined;
  }

  async list(pipeline?: string): Promise<StoredCursor[]> {
    return (pipeline === undefined ? this.listAllStmt.all() : this.listStmt.all(pipeline)).map(toCursor);
  }

  async set(pipeline: string, name: string, cursor: CursorWrite): Promise<void> {
    this.setNow(pipeline, name, cursor);
  }

  /** The write itself (inside `write`). */
  setNow(pipeline: string, name: string, cursor: CursorWrite): void {
    this.setStmt.run(pipeline, name, JSON.stringify(cursor.value), cursor.key, cursor.boundary ? JSON.stringify(cursor.boundary) : null, Date.now());
  }

  async delete(pipeline: string, name = 'incremental'): Promise<void> {
    this.delStmt.run(pipeline, name);
  }
}
