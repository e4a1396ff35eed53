/**
 * What the keyset source and the upsert sink need from a database driver. Each driver turns its
 * own failures into ConnectorErrors (unreachable, auth, query) so callers never see raw driver errors.
 */
import type { PlaceholderStyle } from './params.js';

/** A result row as the driver returns it (values not yet JSON-safe). */
export type Row = Record<string, unknown>;

/** Runs one parameterised statement; returns rows for queries and `[]` for writes. */
export interface Executor {
  query(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** A pooled database handle. */
export interface SqlDriver extends Executor {
  readonly kind: 'postgres' | 'mysql' | 'sqlite';
  readonly style: PlaceholderStyle;
  /** Quote an already validated identifier or `schema.table` name with the driver's own escaping. */
  quote(name: string): string;
  /** Every table and view the connection can see, as `schema.table` (for "did you mean" on a missing table). */
  tables(): Promise<string[]>;
  /** The schema (database) unqualified names resolve in. */
  defaultSchema(): Promise<string>;
  /** INSERT … upsert for `rowCount` rows of `columns`, conflicting on `keys`. */
  upsertSql(table: string, columns: readonly string[], keys: readonly string[], rowCount: number): string;
  /** Run `fn` inside one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
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
