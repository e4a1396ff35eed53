/**
 * A row the ERP table refused (too long, a constraint, a wrong type): the SINK_ROW_REFUSED error
 * that names the record, the table, the column and the database's reason, and says how to fix it.
 * The pipeline splits a refused batch until the record is alone, so this message is what its dead
 * letter says.
 */
import type { ConnectorError } from '../../errors.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import type { ErpRecord } from '../types.js';
import type { RowRefusal, SqlDriver } from './driver.js';

/** One row as the sink bound it: column names and their values, in the same order. */
export interface WrittenRow {
  readonly columns: readonly string[];
  readonly values: readonly unknown[];
}

/** What the sink was writing when the database refused: the table, its rows, and the batch's records. */
export interface RefusedWrite {
  readonly table: string;
  readonly rows: readonly WrittenRow[];
  readonly records: readonly ErpRecord[];
  readonly keys: readonly string[];
}

/** A column whose declared length a value exceeds. */
interface Overlong {
  readonly column: string;
  readonly limit: number;
  readonly length: number;
}

/** Length in characters (code points), as VARCHAR(n) counts them on PostgreSQL and MariaDB. */
function charLength(value: unknown): number | undefined {
  if (typeof value === 'string') return [...value].length;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).length;
  return undefined;
}

/**
 * The columns of `table` that a value of `rows` is too long for, from the catalog. PostgreSQL's
 * "value too long for type character varying(16)" names no column; a wide import table may have
 * dozens of VARCHAR(16). Only asked after a refusal, so a normal batch pays nothing for it.
 */
async function overlongColumns(driver: SqlDriver, table: string, rows: readonly WrittenRow[]): Promise<Overlong[]> {
  if (driver.kind === 'sqlite' || rows.length === 0) return [];
  const parts = table.split('.');
  const schema = parts.length > 1 ? (parts[0] as string) : await driver.defaultSchema();
  const name = parts[parts.length - 1] as string;
  const [p1, p2] = driver.style === 'dollar' ? ['$1', '$2'] : ['?', '?'];
  const limits = new Map<string, number>();
  const found = await driver.query(
    `SELECT column_name AS column_name, character_maximum_length AS max_length FROM information_schema.columns WHERE table_schema = ${p1} AND table_name = ${p2} AND character_maximum_length IS NOT NULL`,
    [schema, name],
  );
  for (const r of found) limits.set(String(r.column_name), Number(r.max_length));
  const out = new Map<string, Overlong>();
  for (const row of rows) {
    row.columns.forEach((column, i) => {
      const limit = limits.get(column);
      const length = charLength(row.values[i]);
      if (limit === undefined || length === undefined || length <= limit) return;
      if ((out.get(column)?.length ?? 0) < length) out.set(column, { column, limit, length });
    });
  }
  return [...out.values()];
}

/** The record's key as the ERP table knows it: `Shop_BestellNr=1005`. */
function keyText(record: ErpRecord, keys: readonly string[]): string {
  return keys.map((k) => `${k}=${typeof record[k] === 'string' ? (record[k] as string) : JSON.stringify(record[k])}`).join(', ');
}

/** Build the SINK_ROW_REFUSED error for a write the database refused with `refusal`. */
export async function rowRefusedError(driver: SqlDriver, refusal: RowRefusal, write: RefusedWrite, cause: unknown): Promise<ConnectorError> {
  const { table, records, keys } = write;
  const reason = `${refusal.reason} [${refusal.dbCode}]`;
  const only = records.length === 1 ? records[0] : undefined;
  if (only === undefined) {
    // The database does not say which row of a multi-row statement it refused; the pipeline splits the batch to find out.
    return connectorError(driver.kind, CONNECTOR_CODES.rowRefused, `${table} refused a row of a batch of ${records.length} records: ${reason}; nothing of this batch was written.`, {
      cause,
      details: { table, dbCode: refusal.dbCode, reason: refusal.reason },
    });
  }
  const overlong = refusal.tooLong && refusal.column === undefined ? await overlongColumns(driver, table, write.rows).catch(() => []) : [];
  const column = refusal.column ?? (overlong.length === 1 ? overlong[0]?.column : undefined);
  const where = [
    ...(refusal.column === undefined ? [] : [`column ${refusal.column}`]),
    ...overlong.map((o) => `column ${o.column} holds ${o.limit} characters, the value has ${o.length}`),
    ...(refusal.constraint === undefined ? [] : [`constraint ${refusal.constraint}`]),
  ];
  const fix = refusal.tooLong
    ? `Widen ${column === undefined ? 'the column' : `column ${column}`} of ${table} (or shorten the value in the shop or the mapping)`
    : `Fix ${table} (the column's type or the constraint) or the record in the shop or the mapping`;
  const erpKey = keys.length === 1 ? String(only[keys[0] as string]) : JSON.stringify(keys.map((k) => only[k]));
  return connectorError(
    driver.kind,
    CONNECTOR_CODES.rowRefused,
    `${table} refused the row ${keyText(only, keys)}${where.length > 0 ? ` (${where.join('; ')})` : ''}: ${reason}. Nothing of this record was written. ${fix}, then run \`shopsync dlq retry --all -p <pipeline>\`.`,
    {
      cause,
      erpKey,
      details: { table, dbCode: refusal.dbCode, reason: refusal.reason, ...(column === undefined ? {} : { column }), ...(refusal.constraint === undefined ? {} : { constraint: refusal.constraint }) },
    },
  );
}
