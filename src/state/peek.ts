/**
 * Count the rows of a state without opening it. `openState` creates what is missing (the SQLite
 * file, the PostgreSQL schema) and applies migrations; a dry run (`state copy --dry-run`) must
 * write nothing, so it looks with plain read-only queries: a place that holds no state yet counts
 * as empty, and a table an older state does not have yet counts as 0.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describeLocation, type StateLocation } from './location.js';
import { connectionError } from './postgres/db.js';
import { STATE_TABLES, type StateTable, type TableCounts } from './store.js';

/** What a peek found: where, whether a state is there, and its rows per table. */
export interface PeekedState {
  readonly location: string;
  readonly backend: StateLocation['kind'];
  /** False when the file or schema does not exist (a copy would create it). */
  readonly exists: boolean;
  readonly counts: TableCounts;
}

const empty = (): Record<StateTable, number> => Object.fromEntries(STATE_TABLES.map((t) => [t, 0])) as Record<StateTable, number>;

/** Rows per table of the state at `location`, read-only: creates no file, schema or table. */
export async function peekState(location: StateLocation): Promise<PeekedState> {
  const base = { location: describeLocation(location), backend: location.kind };
  if (location.kind === 'sqlite') {
    if (!existsSync(location.path)) return { ...base, exists: false, counts: empty() };
    const db = new Database(location.path, { readonly: true, fileMustExist: true });
    try {
      const present = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name));
      const counts = empty();
      for (const t of STATE_TABLES) if (present.has(t)) counts[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      return { ...base, exists: true, counts };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const schema = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [location.schema]);
    if ((schema.rowCount ?? 0) === 0) return { ...base, exists: false, counts: empty() };
    const tables = await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [location.schema]);
    const present = new Set(tables.rows.map((r) => r.table_name));
    const counts = empty();
    const q = pg.escapeIdentifier(location.schema);
    for (const t of STATE_TABLES) if (present.has(t)) counts[t] = Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${q}.${t}`)).rows[0]?.n ?? 0);
    return { ...base, exists: true, counts };
  } catch (err) {
    throw connectionError(err, location.url, location.origin) ?? err;
  } finally {
    await client.end().catch(() => undefined);
  }
}
