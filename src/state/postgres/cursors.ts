/** Cursors per pipeline and lane (PostgreSQL). */
import type pg from 'pg';
import { toCursor, type CursorRow } from '../rows.js';
import type { CursorStore, CursorWrite } from '../store.js';
import type { StoredCursor } from '../types.js';
import { execute, one, query } from './db.js';

/** Cursor storage. */
export class PgCursors implements CursorStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, name = 'incremental'): Promise<StoredCursor | undefined> {
    const row = await one<CursorRow>(this.pool, 'SELECT * FROM cursors WHERE pipeline = $1 AND name = $2', [pipeline, name]);
    return row ? toCursor(row) : undefined;
  }

  async list(pipeline?: string): Promise<StoredCursor[]> {
    const rows = pipeline === undefined ? await query<CursorRow>(this.pool, 'SELECT * FROM cursors ORDER BY pipeline, name') : await query<CursorRow>(this.pool, 'SELECT * FROM cursors WHERE pipeline = $1 ORDER BY name', [pipeline]);
    return rows.map(toCursor);
  }

  async set(pipeline: string, name: string, cursor: CursorWrite): Promise<void> {
    await execute(
      this.pool,
      `INSERT INTO cursors (pipeline, name, value, record_key, boundary, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (pipeline, name) DO UPDATE SET value = excluded.value, record_key = excluded.record_key, boundary = excluded.boundary, updated_at = excluded.updated_at`,
      [pipeline, name, JSON.stringify(cursor.value), cursor.key, cursor.boundary ? JSON.stringify(cursor.boundary) : null, Date.now()],
    );
  }

  async delete(pipeline: string, name = 'incremental'): Promise<void> {
    await execute(this.pool, 'DELETE FROM cursors WHERE pipeline = $1 AND name = $2', [pipeline, name]);
  }
}
