/**
 * What a sink table's catalog says: its unique keys (primary key, unique indexes without a
 * predicate or an expression) and its columns with their types. Read from each database's own
 * catalog (pg_index/pg_attribute, information_schema on MariaDB, pragma functions on SQLite), so
 * the sink can refuse at start a key that has no unique index and `doctor` can say what is missing.
 */
import type { SqlDriver } from './driver.js';

/** One unique key of a table: its columns in index order. */
export interface UniqueKey {
  readonly name: string;
  readonly columns: readonly string[];
  readonly primary: boolean;
}

/** How a column's type can hold values: `number` (integers, decimals, floats), `text`, or `other` (dates, JSON, bytes, booleans…). */
export type ColumnKind = 'number' | 'text' | 'other';

/** One column of a table. */
export interface TableColumn {
  readonly name: string;
  /** The type as the database names it (`character varying`, `int4`, `VARCHAR`). */
  readonly type: string;
  readonly kind: ColumnKind;
  /** Declared length of a character column, when it has one. */
  readonly maxLength?: number;
}

const NUMBER_TYPES = /^(int|integer|int2|int4|int8|smallint|bigint|tinyint|mediumint|numeric|decimal|real|double|double precision|float|float4|float8)\b/i;
const TEXT_TYPES = /^(text|varchar|character varying|char|character|bpchar|nvarchar|nchar|tinytext|mediumtext|longtext|clob|string)\b/i;

/** A type name's kind, by its name: SQLite takes any declared name, so its affinity rules are followed loosely. */
export function kindOf(type: string): ColumnKind {
  const t = type.trim();
  if (NUMBER_TYPES.test(t)) return 'number';
  if (TEXT_TYPES.test(t) || /char|text|clob/i.test(t)) return 'text';
  if (/int/i.test(t)) return 'number';
  return 'other';
}

function split(table: string): { schema?: string; name: string } {
  const dot = table.indexOf('.');
  return dot < 0 ? { name: table } : { schema: table.slice(0, dot), name: table.slice(dot + 1) };
}

/** The unique keys of `table` as the database enforces them. */
export async function uniqueKeys(driver: SqlDriver, table: string): Promise<UniqueKey[]> {
  if (driver.kind === 'postgres') {
    const rows = await driver.query(
      `SELECT c.relname AS name, i.indisprimary AS "primary", string_agg(a.attname, ',' ORDER BY k.ord) AS columns
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indrelid = $1::regclass AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
        GROUP BY c.relname, i.indisprimary`,
      [driver.quote(table)],
    );
    return rows.map((r) => ({ name: String(r.name), primary: r.primary === true, columns: String(r.columns).split(',') }));
  }
  if (driver.kind === 'mysql') {
    const { schema, name } = split(table);
    // A prefix index (SUB_PART) is unique on the prefix only: not a key of the whole column.
    const rows = await driver.query(
      `SELECT INDEX_NAME AS name, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',') AS columns, SUM(SUB_PART IS NOT NULL) AS prefixed
         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ${schema === undefined ? 'DATABASE()' : '?'} AND TABLE_NAME = ? AND NON_UNIQUE = 0
        GROUP BY INDEX_NAME`,
      schema === undefined ? [name] : [schema, name],
    );
    return rows.filter((r) => Number(r.prefixed) === 0).map((r) => ({ name: String(r.name), primary: String(r.name) === 'PRIMARY', columns: String(r.columns).split(',') }));
  }
  const { schema = 'main', name } = split(table);
  const out: UniqueKey[] = [];
  // An INTEGER PRIMARY KEY is the rowid: it has no entry in the index list.
  const pk = (await driver.query('SELECT name, pk FROM pragma_table_info(?, ?) WHERE pk > 0 ORDER BY pk', [name, schema])).map((r) => String(r.name));
  if (pk.length > 0) out.push({ name: 'PRIMARY KEY', primary: true, columns: pk });
  for (const index of await driver.query('SELECT name, origin FROM pragma_index_list(?, ?) WHERE "unique" = 1 AND partial = 0', [name, schema])) {
    if (index.origin === 'pk') continue;
    const columns = (await driver.query('SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno', [String(index.name), schema])).map((r) => r.name);
    if (columns.some((c) => c === null)) continue; // an expression index
    out.push({ name: String(index.name), primary: false, columns: columns.map(String) });
  }
  return out;
}

/** The columns of `table`. */
export async function tableColumns(driver: SqlDriver, table: string): Promise<TableColumn[]> {
  const column = (name: unknown, type: unknown, length: unknown): TableColumn => {
    const max = length === null || length === undefined ? undefined : Number(length);
    return { name: String(name), type: String(type), kind: kindOf(String(type)), ...(max !== undefined && Number.isFinite(max) && max > 0 ? { maxLength: max } : {}) };
  };
  if (driver.kind === 'postgres') {
    const rows = await driver.query(
      `SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type,
              CASE WHEN t.typname IN ('varchar', 'bpchar') AND a.atttypmod > 4 THEN a.atttypmod - 4 END AS max_length
         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
        WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [driver.quote(table)],
    );
    return rows.map((r) => column(r.name, r.type, r.max_length));
  }
  if (driver.kind === 'mysql') {
    const { schema, name } = split(table);
    const rows = await driver.query(
      `SELECT COLUMN_NAME AS name, DATA_TYPE AS type, CHARACTER_MAXIMUM_LENGTH AS max_length FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = ${schema === undefined ? 'DATABASE()' : '?'} AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      schema === undefined ? [name] : [schema, name],
    );
    // TEXT columns report 65535 bytes: a bound no value of an order field comes near, so it is no length to check.
    return rows.map((r) => column(r.name, r.type, /text/i.test(String(r.type)) ? null : r.max_length));
  }
  const { schema = 'main', name } = split(table);
  // SQLite does not enforce a declared length: VARCHAR(16) holds any text.
  return (await driver.query('SELECT name, type FROM pragma_table_info(?, ?) ORDER BY cid', [name, schema])).map((r) => column(r.name, r.type, null));
}

/** The unique key covering exactly `columns` (in any order), if the table has one. */
export function keyCovering(keys: readonly UniqueKey[], columns: readonly string[]): UniqueKey | undefined {
  const wanted = new Set(columns.map((c) => c.toLowerCase()));
  return keys.find((k) => k.columns.length === wanted.size && k.columns.every((c) => wanted.has(c.toLowerCase())));
}
