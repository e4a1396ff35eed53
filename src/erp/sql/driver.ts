/**
 * What the keyset source and the upsert sink need from a database driver. Each driver turns its
 * own failures into ConnectorErrors (unreachable, auth, query) so callers never see raw driver errors.
 */
import { ConnectorError } from '../../errors.js';
import { CONNECTOR_CODES } from '../errors.js';
import type { PlaceholderStyle } from './params.js';

/** A result row as the driver returns it (values not yet JSON-safe). */
export type Row = Record<string, unknown>;

/** Runs one parameterised statement; returns rows for queries and `[]` for writes. */
export interface Executor {
  query(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** What the database said about a row it refused: a data error of that row, not of the connection, the schema or the SQL. */
export interface RowRefusal {
  /** The database's own code: `SQLSTATE 22001`, `ER_DATA_TOO_LONG (1406)`, `SQLITE_CONSTRAINT_CHECK`. */
  readonly dbCode: string;
  /** The database's reason, in its words. */
  readonly reason: string;
  /** The column, when the database names it in a field of its error. */
  readonly column?: string;
  /** The constraint, when the database names it in a field of its error. */
  readonly constraint?: string;
  /** A value is longer than its column's declared length (PostgreSQL does not say which column). */
  readonly tooLong: boolean;
}

/** A pooled database handle. */
export interface SqlDriver extends Executor {
  readonly kind: 'postgres' | 'mysql' | 'sqlite';
  readonly style: PlaceholderStyle;
  /**
   * Whether keyset pages lead the row value `(cursor, key…) > (…)` with `cursor >= :cursor`: MariaDB
   * makes the row value an index range only with it, while SQLite's planner then ranges on the
   * cursor alone and walks every tie of the cursor value from its start on every page (a bulk
   * import under one timestamp read in quadratic time). @default true
   */
  readonly leadingCursorBound?: boolean;
  /** Quote an already validated identifier or `schema.table` name with the driver's own escaping. */
  quote(name: string): string;
  /** Every table and view the connection can see, as `schema.table` (for "did you mean" on a missing table). */
  tables(): Promise<string[]>;
  /** The schema (database) unqualified names resolve in. */
  defaultSchema(): Promise<string>;
  /** Run `fn` inside one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** What the database said when `err` (a failed write) is a data error of the row written; undefined for any other failure. */
  refusal(err: unknown): RowRefusal | undefined;
  close(): Promise<void>;
}

/** Placeholder list `(…), (…)` for a multi-row VALUES clause. */
export function valuesClause(style: PlaceholderStyle, columnCount: number, rowCount: number): string {
  const rows: string[] = [];
  let n = 0;
  for (let r = 0; r < rowCount; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columnCount; c++) cells.push(style === 'dollar' ? `$${++n}` : '?');
    rows.push(`(${cells.join(', ')})`);
  }
  return rows.join(', ');
}

/** Node network error codes that mean "the server is not there (any more)". */
export const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);

/** Shorten SQL for error messages. */
export function sqlExcerpt(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

/** The driver's own error behind a failed statement; undefined for anything else (unreachable, refused login, our own checks). */
export function statementCause(err: unknown): (Error & Readonly<Record<string, unknown>>) | undefined {
  if (!(err instanceof ConnectorError) || err.code !== CONNECTOR_CODES.queryFailed) return undefined;
  return err.cause instanceof Error ? (err.cause as Error & Readonly<Record<string, unknown>>) : undefined;
}

/** A string field of a driver error, when it has one. */
export function textField(err: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = err[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
