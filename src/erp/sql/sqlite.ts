/**
 * SQLite driver (better-sqlite3). Integers are read as bigint and narrowed to numbers only when safe.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';
import type { ConnectionOrigin } from '../types.js';
import { missingTableHint } from './missing.js';
import { sqlExcerpt, statementCause, textField, type Executor, type Row, type RowRefusal, type SqlDriver } from './driver.js';

/** better-sqlite3 binds numbers, strings, bigints, buffers and null only. */
function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value;
}

/** SQLite's identifier quoting (each part of `schema.table` in double quotes, a quote doubled); better-sqlite3 has no helper for it. */
function quoteSqlite(name: string): string {
  return name.split('.').map((part) => `"${part.replace(/"/g, '""')}"`).join('.');
}

/**
 * Result codes about the row written: every constraint (NOT NULL, UNIQUE, CHECK, FOREIGN KEY, a
 * trigger's RAISE, a STRICT column's type), a datatype mismatch, a value over SQLite's size limit.
 * SQLite enforces no declared length (VARCHAR(16) holds any text), so `tooLong` stays false.
 */
function refusal(err: unknown): RowRefusal | undefined {
  const cause = statementCause(err);
  const code = cause === undefined ? undefined : textField(cause, 'code');
  if (cause === undefined || code === undefined) return undefined;
  if (!(code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG')) return undefined;
  return { dbCode: code, reason: cause.message, tooLong: false };
}

const TABLES_SQL = "SELECT 'main.' || name AS name FROM sqlite_master WHERE type IN ('table', 'view')";

/** Open a SQLite file; it must exist (a typo must not silently create an empty database). */
export async function openSqlite(conn: SqliteConnection, baseDir: string, readonly: boolean, origin?: ConnectionOrigin): Promise<SqlDriver> {
  const file = path.resolve(baseDir, conn.path);
  const named = origin ? ` (connection ${origin.name}${origin.where ? `, ${origin.where}` : ''})` : '';
  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: true, timeout: conn.busyTimeoutMs });
    db.defaultSafeIntegers(true);
  } catch (err) {
    const pathAt = origin?.fields?.path ? `, ${origin.fields.path.where}` : '';
    throw connectorError('sqlite', CONNECTOR_CODES.unreachable, `SQLite database ${file}${named} cannot be opened: ${causeText(err)}. Check \`path\` (relative to the config file's folder${pathAt}) and file permissions.`, { cause: err });
  }
  /** SQLite has no code of its own for a missing table: its message, which SQLite never translates, says it. */
  const explain = (err: unknown): string => {
    const table = /^no such table: (\S+)/.exec((err as Error).message)?.[1];
    if (table === undefined) return '';
    const tables = (db.prepare(TABLES_SQL).all() as { name: unknown }[]).map((r) => String(r.name));
    return ` ${missingTableHint({ kind: 'sqlite', table, searched: ['main'], file, tables, ...(origin ? { origin } : {}) })}`;
  };
  const statements = new Map<string, Database.Statement>();
  let queue: Promise<unknown> = Promise.resolve();

  const run = (sql: string, params: readonly unknown[]): Row[] => {
    try {
      let stmt = statements.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql);
        if (statements.size > 200) statements.clear();
        statements.set(sql, stmt);
      }
      const args = params.map(bindable);
      if (stmt.reader) return stmt.all(...args) as Row[];
      stmt.run(...args);
      return [];
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const busy = code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
      throw connectorError(
        'sqlite',
        busy ? CONNECTOR_CODES.unreachable : CONNECTOR_CODES.queryFailed,
        busy
          ? `SQLite database ${file} is locked by another process: ${causeText(err)}. Retry later or raise busyTimeoutMs.`
          : `SQLite query failed on ${file}${named}: ${causeText(err)}.${explain(err)} SQL: ${sqlExcerpt(sql)}`,
        { cause: err, details: { driverCode: typeof code === 'string' ? code : undefined } },
      );
    }
  };

  const exec: Executor = { query: async (sql, params) => run(sql, params) };

  return {
    kind: 'sqlite',
    style: 'question',
    leadingCursorBound: false,
    quote: quoteSqlite,
    query: exec.query,
    tables: async () => (await exec.query(TABLES_SQL, [])).map((r) => String(r.name)),
    defaultSchema: async () => 'main',
    transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      // One connection: transactions must not interleave, so they queue.
      const next = queue.then(async () => {
        run('BEGIN IMMEDIATE', []);
        try {
          const out = await fn(exec);
          run('COMMIT', []);
          return out;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    refusal,
    async close() {
      await queue;
      db.close();
    },
  };
}
