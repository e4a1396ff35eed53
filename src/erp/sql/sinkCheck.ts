/**
 * `doctor` for a SQL sink: what it needs from its tables, checked without writing anything, and
 * what it will do. A unique key covering exactly the sink's key (parent and each child table), the
 * columns the mapping writes present with types that can hold them (as far as the catalog tells
 * cheaply: text into a numeric column, a date format longer than a character column), the right to
 * insert, update and delete, tried in a transaction that is rolled back.
 */
import { errorLine } from '../../errors.js';
import { keyList, type SqlSinkConfig } from './config.js';
import { keyCovering, tableColumns, uniqueKeys, type TableColumn } from './catalog.js';
import type { Executor, SqlDriver } from './driver.js';
import { notUniqueError } from './ownership.js';

/** One field the mapping writes: its name, its declared type, and (for a list of child rows) its fields. */
export interface MappedField {
  readonly name: string;
  /** The mapping's `type:` (integer, decimal, number, boolean, flag, date, datetime, string). */
  readonly type?: string;
  /** The longest text the field can be, when the mapping tells (a date's output format). */
  readonly length?: number;
  readonly fields?: readonly MappedField[];
}

/** One finding of the sink check. */
export interface SinkCheck {
  /** `key`, `columns`, `write`, `plan`. */
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

const NUMERIC_FIELDS = new Set(['integer', 'decimal', 'number', 'boolean', 'flag']);

/** Thrown inside the probe transaction so it rolls back. */
class RolledBack extends Error {}

/** Problems of `fields` written into `table` with `columns`: a column missing, or a type that cannot hold the value. */
function columnProblems(table: string, columns: readonly TableColumn[], fields: readonly MappedField[]): string[] {
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  const out: string[] = [];
  for (const field of fields) {
    const column = byName.get(field.name.toLowerCase());
    if (!column) {
      out.push(`${table} has no column ${field.name}`);
      continue;
    }
    const numeric = field.type !== undefined && NUMERIC_FIELDS.has(field.type);
    if (column.kind === 'number' && !numeric) out.push(`${table}.${column.name} is ${column.type}, but the mapping writes ${field.type ?? 'text'} into it`);
    if (column.maxLength !== undefined && field.length !== undefined && field.length > column.maxLength) out.push(`${table}.${column.name} holds ${column.maxLength} characters, the mapping writes ${field.length}`);
  }
  return out;
}

/** A statement that needs the privilege and touches no row. */
async function probeWrites(driver: SqlDriver, tx: Executor, table: string, key: readonly string[], columns: readonly string[], deletes: boolean): Promise<void> {
  const q = (c: string) => driver.quote(c);
  const cols = (columns.length > 0 ? columns : key).map(q).join(', ');
  await tx.query(`INSERT INTO ${q(table)} (${cols}) SELECT ${cols} FROM ${q(table)} WHERE 1 = 0`, []);
  await tx.query(`UPDATE ${q(table)} SET ${q(key[0] as string)} = ${q(key[0] as string)} WHERE 1 = 0`, []);
  if (deletes) await tx.query(`DELETE FROM ${q(table)} WHERE 1 = 0`, []);
}

/** Check a SQL sink's tables (already known to exist) against what it needs, and say what it will do. */
export async function inspectSqlSink(driver: SqlDriver, cfg: SqlSinkConfig, fields: readonly MappedField[] | undefined, pipeline?: string): Promise<SinkCheck[]> {
  const out: SinkCheck[] = [];
  const keys = keyList(cfg.key);
  const tables = [
    { table: cfg.table, key: keys, child: undefined as string | undefined },
    ...cfg.children.map((c) => ({ table: c.table, key: keyList(c.key), child: c.field })),
  ];
  const keyIssues: string[] = [];
  const keyNotes: string[] = [];
  for (const t of tables) {
    const found = await uniqueKeys(driver, t.table);
    const covering = keyCovering(found, t.key);
    if (covering) keyNotes.push(`${t.table}: ${covering.primary ? 'primary key' : `unique index ${covering.name}`} (${covering.columns.join(', ')})`);
    else keyIssues.push(notUniqueError(driver.kind, t.table, t.key, found, t.child).message);
  }
  out.push(keyIssues.length > 0 ? { what: 'key', ok: false, detail: keyIssues.join(' ') } : { what: 'key', ok: true, detail: `a unique key covers the sink's key: ${keyNotes.join('; ')}` });

  const parentColumns = await tableColumns(driver, cfg.table);
  const problems: string[] = [];
  if (cfg.ownerColumn !== undefined) {
    const owner = parentColumns.find((c) => c.name.toLowerCase() === cfg.ownerColumn!.toLowerCase());
    if (!owner) problems.push(`${cfg.table} has no column ${cfg.ownerColumn} (ownerColumn)`);
    else if (owner.kind === 'number') problems.push(`${cfg.table}.${owner.name} (ownerColumn) is ${owner.type}; it holds the marker text`);
  }
  const childFields = new Set(cfg.children.map((c) => c.field));
  const replaced = cfg.children.filter((c) => !c.append);
  const appended = cfg.children.filter((c) => c.append);
  if (fields !== undefined) {
    const top = fields.filter((f) => !childFields.has(f.name) && (cfg.columns === undefined || cfg.columns.includes(f.name)));
    problems.push(...columnProblems(cfg.table, parentColumns, top));
    for (const child of cfg.children) {
      const listed = fields.find((f) => f.name === child.field)?.fields;
      if (listed === undefined) continue;
      const parentCols = keyList(child.parentKey).filter((c) => !listed.some((f) => f.name === c)).map((name) => ({ name, type: 'integer' }));
      // The parent's key values go into parentKey: only their presence is checked, their type follows the parent's.
      const childColumns = await tableColumns(driver, child.table);
      problems.push(...columnProblems(child.table, childColumns, listed), ...parentCols.filter((c) => !childColumns.some((k) => k.name.toLowerCase() === c.name.toLowerCase())).map((c) => `${child.table} has no column ${c.name} (parentKey)`));
    }
  }
  out.push(problems.length > 0
    ? { what: 'columns', ok: false, detail: `${problems.join('; ')}. Fix the mapping or the (staging) table` }
    : { what: 'columns', ok: true, detail: fields === undefined ? 'the mapping could not be read here; its columns are checked at the first run' : `every column the mapping writes is there with a type that can hold it (as far as the catalog tells)` });

  try {
    await driver.transaction(async (tx) => {
      const written = (fields ?? []).filter((f) => !childFields.has(f.name) && parentColumns.some((c) => c.name.toLowerCase() === f.name.toLowerCase())).map((f) => f.name);
      await probeWrites(driver, tx, cfg.table, keys, written, false);
      for (const child of cfg.children) await probeWrites(driver, tx, child.table, keyList(child.key), [], !child.append);
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) out.push({ what: 'write', ok: false, detail: `the sink may not write: ${errorLine(err)}. Grant INSERT, UPDATE${replaced.length > 0 ? ' and DELETE (children)' : ''} on the sink's tables to the connection's user` });
    else out.push({ what: 'write', ok: true, detail: `may insert and update ${cfg.table}${replaced.length > 0 ? ` and replace rows of ${replaced.map((c) => c.table).join(', ')}` : ''}${appended.length > 0 ? ` and insert into ${appended.map((c) => c.table).join(', ')}` : ''} (tried in a transaction rolled back, nothing written)` });
  }

  const own = cfg.ownerColumn !== undefined
    ? `rows whose ${cfg.ownerColumn} is ${cfg.ownerMarker ?? pipeline ?? 'the pipeline name'} (it writes that on insert)`
    : 'rows under keys its state delivered (no ownerColumn: after a deleted or restored state, held rows are letters until `shopsync state accept-restore`)';
  const children = `${replaced.length > 0 ? `, replaces the children in ${replaced.map((c) => c.table).join(', ')} of the rows it writes` : ''}${appended.length > 0 ? `, adds rows under new keys to ${appended.map((c) => c.table).join(', ')} and never changes or deletes one there (append)` : ''}`;
  out.push({
    what: 'plan',
    ok: true,
    detail: cfg.overwrite === 'foreign'
      ? `inserts new keys (${keys.join(', ')}) into ${cfg.table} and overwrites any row under a key, the ERP's too (overwrite: foreign)${children}`
      : `inserts new keys (${keys.join(', ')}) into ${cfg.table}, updates only ${own}${children}; a row it did not write is left alone and its record lettered SINK_FOREIGN_ROW`,
  });
  return out;
}
