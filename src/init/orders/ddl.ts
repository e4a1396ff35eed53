/**
 * Creating the staging layout (layout.ts) on PostgreSQL, MariaDB/MySQL and SQLite: the schema or
 * database, the tables with their primary keys, and the trigger that moves
 * `shopsync_delivered_at` when an update changed a column shopsync writes. A re-delivery of the
 * same content and the ERP's own `UPDATE … SET status` leave it as it was, so
 * `shopsync_delivered_at > imported_at` means exactly "the shop changed the order after the ERP
 * imported it". Tables that exist are kept; one that lacks a column of the layout (an older
 * shopsync's, or one made by hand) stops init with the statements that add it.
 */
import { openSqlWriter, type ConnectionInput, type ConnectionOrigin } from '../../erp/index.js';
import type { SqlDriver } from '../../erp/sql/driver.js';
import type { Logger } from '../../log.js';
import type { SqlKind } from '../cursor.js';
import { INIT_CODES, InitError } from '../errors.js';
import { DELIVERED_COLUMN, stagingTables, type ColumnType, type StagingColumn, type StagingLayout, type StagingTable } from './layout.js';

const TYPES: Readonly<Record<SqlKind, Readonly<Record<ColumnType, string>>>> = {
  postgres: { id: 'bigint', text: 'varchar(255)', long: 'text', money: 'numeric(16,4)', time: 'timestamp', stamp: 'timestamptz' },
  mysql: { id: 'bigint', text: 'varchar(255)', long: 'text', money: 'decimal(16,4)', time: 'datetime', stamp: 'datetime(6)' },
  // SQLite keeps times as ISO text (UTC, milliseconds), which compares in time order.
  sqlite: { id: 'INTEGER', text: 'TEXT', long: 'TEXT', money: 'NUMERIC', time: 'TEXT', stamp: 'TEXT' },
};

/** The database's time of now, as `shopsync_delivered_at` holds it (the ERP sets `imported_at` the same way). */
export const NOW_SQL: Readonly<Record<SqlKind, string>> = { postgres: 'now()', mysql: 'CURRENT_TIMESTAMP(6)', sqlite: "strftime('%Y-%m-%d %H:%M:%f', 'now')" };

function quote(kind: SqlKind, name: string): string {
  return name.split('.').map((part) => (kind === 'mysql' ? `\`${part}\`` : `"${part}"`)).join('.');
}

function columnSql(kind: SqlKind, c: StagingColumn, key: readonly string[]): string {
  const type = `${quote(kind, c.name)} ${TYPES[kind][c.type]}`;
  if (c.owner === 'delivered') return `${type} NOT NULL DEFAULT ${kind === 'sqlite' ? `(${NOW_SQL.sqlite})` : NOW_SQL[kind]}`;
  return key.includes(c.name) ? `${type} NOT NULL` : type;
}

/** `CREATE TABLE IF NOT EXISTS` of one staging table with its primary key (the sink upserts on it). */
function tableDdl(kind: SqlKind, t: StagingTable): string {
  return `CREATE TABLE IF NOT EXISTS ${quote(kind, t.name)} (${t.columns.map((c) => columnSql(kind, c, t.key)).join(', ')}, PRIMARY KEY (${t.key.map((k) => quote(kind, k)).join(', ')}))`;
}

/** The trigger's name beside its table (`s.orders` → `s.orders_delivered_at`). */
function triggerName(table: string): string {
  return `${table}_delivered_at`;
}

/** Statements that make `shopsync_delivered_at` follow every change of a shop column of the orders table. */
function triggerDdl(kind: SqlKind, t: StagingTable): string[] {
  const shopColumns = t.columns.filter((c) => c.owner === 'shop').map((c) => c.name);
  const q = (name: string) => quote(kind, name);
  const name = triggerName(t.name);
  const delivered = q(DELIVERED_COLUMN);
  if (kind === 'postgres') {
    const changed = shopColumns.map((c) => `NEW.${q(c)} IS DISTINCT FROM OLD.${q(c)}`).join(' OR ');
    const bare = q(name.slice(name.lastIndexOf('.') + 1));
    return [
      // It runs with the privileges of whoever updates the table (the ERP's import too): a fixed search_path and qualified calls, so nothing planted in a schema on the path runs in its place.
      `CREATE OR REPLACE FUNCTION ${q(name)}() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$ BEGIN IF ${changed} THEN NEW.${delivered} := pg_catalog.now(); END IF; RETURN NEW; END $$`,
      `DROP TRIGGER IF EXISTS ${bare} ON ${q(t.name)}`,
      `CREATE TRIGGER ${bare} BEFORE UPDATE ON ${q(t.name)} FOR EACH ROW EXECUTE FUNCTION ${q(name)}()`,
    ];
  }
  if (kind === 'mysql') {
    const same = shopColumns.map((c) => `NEW.${q(c)} <=> OLD.${q(c)}`).join(' AND ');
    return [
      `DROP TRIGGER IF EXISTS ${q(name)}`,
      `CREATE TRIGGER ${q(name)} BEFORE UPDATE ON ${q(t.name)} FOR EACH ROW IF NOT (${same}) THEN SET NEW.${delivered} = ${NOW_SQL.mysql}; END IF`,
    ];
  }
  const changed = shopColumns.map((c) => `NEW.${q(c)} IS NOT OLD.${q(c)}`).join(' OR ');
  const keyMatch = t.key.map((k) => `${q(k)} = NEW.${q(k)}`).join(' AND ');
  return [
    `DROP TRIGGER IF EXISTS ${q(name)}`,
    // SQLite has no BEFORE-UPDATE assignment to NEW: the row is touched after the update (recursive triggers are off by default).
    `CREATE TRIGGER ${q(name)} AFTER UPDATE ON ${q(t.name)} FOR EACH ROW WHEN ${changed} BEGIN UPDATE ${q(t.name)} SET ${delivered} = ${NOW_SQL.sqlite} WHERE ${keyMatch}; END`,
  ];
}

/** Every statement init runs, in order: the schema (database), the tables, the trigger. */
export function stagingDdl(layout: StagingLayout): string[] {
  const { kind } = layout;
  const schema = layout.schema ? [kind === 'postgres' ? `CREATE SCHEMA IF NOT EXISTS ${quote(kind, layout.schema)}` : `CREATE DATABASE IF NOT EXISTS ${quote(kind, layout.schema)}`] : [];
  return [...schema, ...stagingTables(layout).map((t) => tableDdl(kind, t)), ...triggerDdl(kind, layout.orders)];
}

/** The columns a table has, lower-cased (information_schema, or SQLite's pragma). */
async function columnsOf(driver: SqlDriver, kind: SqlKind, table: string): Promise<Set<string>> {
  const [schema, name] = table.includes('.') ? (table.split('.') as [string, string]) : [undefined, table];
  let rows;
  if (kind === 'sqlite') rows = await driver.query('SELECT name AS c FROM pragma_table_info(?)', [name]);
  else if (kind === 'postgres') rows = await driver.query('SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', [schema ?? (await driver.defaultSchema()), name]);
  else rows = await driver.query('SELECT column_name AS c FROM information_schema.columns WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?', [schema ?? null, name]);
  return new Set(rows.map((r) => String(r.c ?? r.C ?? r.COLUMN_NAME).toLowerCase()));
}

/** A staging table that exists without a column of the layout: what is missing, and the statements that add it. */
export async function missingColumns(driver: SqlDriver, layout: StagingLayout): Promise<string[]> {
  const problems: string[] = [];
  for (const t of stagingTables(layout)) {
    const have = await columnsOf(driver, layout.kind, t.name);
    const lacking = t.columns.filter((c) => !have.has(c.name.toLowerCase()));
    if (lacking.length === 0) continue;
    const add = lacking.map((c) => `ALTER TABLE ${quote(layout.kind, t.name)} ADD COLUMN ${columnSql(layout.kind, c, [])}`);
    problems.push(`${t.name} has no column ${lacking.map((c) => c.name).join(', ')} (${add.join('; ')})`);
  }
  return problems;
}

/** Create the staging layout in the ERP database (tables that exist are kept, and checked for the layout's columns). */
export async function createStaging(layout: StagingLayout, connection: ConnectionInput, ctx: { logger: Logger; baseDir: string; origin?: ConnectionOrigin }): Promise<void> {
  const driver = await openSqlWriter(connection, ctx);
  try {
    for (const statement of stagingDdl(layout)) await driver.query(statement, []);
    const problems = await missingColumns(driver, layout);
    if (problems.length > 0) {
      throw new InitError(INIT_CODES.staging, `the staging tables exist but lack columns the orders pull writes or the ERP side reads: ${problems.join('; ')}. Add them with the statements given (nothing of the tables' rows is lost), or drop the staging tables if nothing in them is still to be imported, then run init again`);
    }
  } finally {
    await driver.close();
  }
}
