/**
 * Introspecting an SQL source: the declared column types and primary key of a table (from the
 * catalog), and sample rows of the table or query as the SQL source will read them.
 */
import type { SqlDriver } from '../../erp/index.js';
import { jsonSafeRow } from '../../erp/values.js';

/** A table's or query's columns and sample rows. */
export interface SqlSample {
  readonly records: readonly Record<string, unknown>[];
  /** Column name → declared type, in table order (tables only). */
  readonly declared: ReadonlyMap<string, string>;
  readonly primaryKey: readonly string[];
}

/** The SELECT a table stands for. */
export function tableQuery(driver: Pick<SqlDriver, 'quote'>, table: string): string {
  return `SELECT * FROM ${driver.quote(table)}`;
}

function placeholders(driver: SqlDriver, n: number): string[] {
  return Array.from({ length: n }, (_, i) => (driver.style === 'dollar' ? `$${i + 1}` : '?'));
}

/** Declared types and primary key of a table, from the database's catalog. */
async function catalog(driver: SqlDriver, table: string): Promise<{ declared: Map<string, string>; primaryKey: string[] }> {
  const declared = new Map<string, string>();
  if (driver.kind === 'sqlite') {
    const rows = await driver.query('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid', [table.split('.').pop()]);
    for (const r of rows) declared.set(String(r.name), String(r.type));
    return { declared, primaryKey: rows.filter((r) => Number(r.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk)).map((r) => String(r.name)) };
  }
  const parts = table.split('.');
  const schema = parts.length > 1 ? (parts[0] as string) : await driver.defaultSchema();
  const name = parts[parts.length - 1] as string;
  const [p1, p2] = placeholders(driver, 2);
  const cols = await driver.query(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = ${p1} AND table_name = ${p2} ORDER BY ordinal_position`, [schema, name]);
  for (const r of cols) declared.set(String(r.name), String(r.type));
  const keys = await driver.query(
    `SELECT kcu.column_name AS name FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = ${p1} AND tc.table_name = ${p2} ORDER BY kcu.ordinal_position`,
    [schema, name],
  );
  return { declared, primaryKey: keys.map((r) => String(r.name)) };
}

/** Sample rows (JSON-safe, as the SQL source delivers them) and, for a table, its catalog. */
export async function sampleSql(driver: SqlDriver, what: { table?: string; query?: string }, limit: number): Promise<SqlSample> {
  const base = (what.table ? tableQuery(driver, what.table) : (what.query as string)).trim().replace(/;+$/, '');
  const rows = await driver.query(`SELECT * FROM (${base}) shopsync_q LIMIT ${Math.floor(limit)}`, []);
  const { declared, primaryKey } = what.table ? await catalog(driver, what.table) : { declared: new Map<string, string>(), primaryKey: [] };
  return { records: rows.map(jsonSafeRow), declared, primaryKey };
}
