/**
 * The SQL sink: upserts a batch by key into a (staging) table in one transaction, children included.
 * Children of a parent are replaced (deleted by parent key, then inserted) inside that transaction,
 * so a removed order line disappears and a failed batch leaves no half-written order behind.
 * A batch the table refuses for a row's data (too long, a constraint, a wrong type) fails with
 * SINK_ROW_REFUSED, which the pipeline splits down to the record; anything else fails as before.
 */
import type { Logger } from '../../log.js';
import { nearMatches } from '../../util/suggest.js';
import { IDENTIFIER } from '../connection.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import type { ErpRecord, Sink, SinkBatch } from '../types.js';
import { recordSchema } from '../values.js';
import { keyList, type SqlSinkConfig } from './config.js';
import type { Executor, SqlDriver } from './driver.js';
import { rowRefusedError, type WrittenRow } from './refused.js';

/** Stay below every driver's bound-parameter limit (SQLite 32766, PostgreSQL and MySQL 65535). */
const MAX_PARAMS = 30_000;

/** A record value as a bound parameter: nested values are stored as JSON text. */
function dbValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

interface Row extends WrittenRow {
  readonly columns: string[];
  readonly values: unknown[];
}

/** Upsert rows grouped by their column set, in chunks that fit the parameter limit. */
async function upsertRows(driver: SqlDriver, tx: Executor, table: string, keys: readonly string[], rows: readonly Row[]): Promise<void> {
  const byShape = new Map<string, Row[]>();
  for (const row of rows) {
    const shape = row.columns.join(',');
    const list = byShape.get(shape);
    if (list) list.push(row);
    else byShape.set(shape, [row]);
  }
  for (const list of byShape.values()) {
    const columns = (list[0] as Row).columns;
    const perChunk = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let i = 0; i < list.length; i += perChunk) {
      const chunk = list.slice(i, i + perChunk);
      await tx.query(driver.upsertSql(table, columns, keys, chunk.length), chunk.flatMap((r) => r.values));
    }
  }
}

/** Check that the target tables exist before the first batch, so a typo fails at start-up, not mid-run. */
export async function checkTables(driver: SqlDriver, cfg: SqlSinkConfig): Promise<void> {
  for (const table of [cfg.table, ...cfg.children.map((c) => c.table)]) {
    try {
      await driver.query(`SELECT * FROM ${driver.quote(table)} WHERE 1 = 0`, []);
    } catch (err) {
      if ((err as { code?: unknown }).code !== CONNECTOR_CODES.queryFailed) {
        await driver.close().catch(() => undefined);
        throw err;
      }
      const missing = await missingTable(driver, table).catch(() => undefined);
      await driver.close().catch(() => undefined);
      if (missing) throw connectorError(driver.kind, CONNECTOR_CODES.queryFailed, missing, { cause: err });
      throw connectorError(driver.kind, CONNECTOR_CODES.queryFailed, `sink table ${table} cannot be read: ${(err as Error).message}. Create the (staging) table with a primary key or unique index on the sink's key.`, { cause: err });
    }
  }
}

/** When `table` is not among the tables the connection sees: a message naming schema and table and the nearest names. */
async function missingTable(driver: SqlDriver, table: string): Promise<string | undefined> {
  const [schema, name] = table.includes('.') ? (table.split('.') as [string, string]) : [await driver.defaultSchema(), table];
  const known = await driver.tables();
  const wanted = `${schema}.${name}`.toLowerCase();
  if (known.some((t) => t.toLowerCase() === wanted)) return undefined;
  // Tables of the named schema first, so a near name there comes before the same name elsewhere.
  const inSchema = (t: string) => t.toLowerCase().startsWith(`${schema.toLowerCase()}.`);
  const ordered = [...known.filter(inSchema), ...known.filter((t) => !inSchema(t))];
  const near = nearMatches(name, ordered, { spelling: (t) => t.slice(t.indexOf('.') + 1) });
  return `sink table ${name} does not exist in schema ${schema}${near.length > 0 ? `; near matches: ${near.join(', ')}` : ''}. Fix \`table\` (qualify it as schema.table when it lives in another schema), or create the (staging) table with a primary key or unique index on the sink's key.`;
}

/** Create the upsert sink over an open driver (which it owns and closes). */
export function sqlSink(driver: SqlDriver, cfg: SqlSinkConfig, logger: Logger): Sink {
  const connector = driver.kind;
  const keys = keyList(cfg.key);
  const childFields = new Set(cfg.children.map((c) => c.field));

  const invalid = (message: string, erpKey?: string) =>
    connectorError(connector, CONNECTOR_CODES.invalidRecord, `${message}; nothing of this batch was written.`, { erpKey });

  function toRow(record: Record<string, unknown>, allowed: readonly string[] | undefined, skip: ReadonlySet<string>, required: readonly string[], where: string): Row {
    const columns = (allowed ?? Object.keys(record)).filter((c) => !skip.has(c) && record[c] !== undefined);
    for (const c of columns) if (!IDENTIFIER.test(c)) throw invalid(`${where}: field ${JSON.stringify(c)} is not a valid column name (^[A-Za-z_][A-Za-z0-9_]*$); map it to one or list \`columns\``);
    for (const k of required) {
      if (record[k] === null || record[k] === undefined) throw invalid(`${where}: key column ${k} is missing`);
      if (!columns.includes(k)) columns.push(k);
    }
    return { columns, values: columns.map((c) => dbValue(record[c])) };
  }

  async function write(batch: SinkBatch): Promise<void> {
    // Last record per key wins: one statement cannot upsert the same key twice in PostgreSQL.
    const byKey = new Map<string, ErpRecord>();
    for (const [index, raw] of batch.records.entries()) {
      const parsed = recordSchema.safeParse(raw);
      if (!parsed.success) throw invalid(`record #${index} is not an object`);
      const keyValues = keys.map((k) => raw[k]);
      if (keyValues.some((v) => v === null || v === undefined)) throw invalid(`record #${index} has no value for key ${keys.join(', ')}`);
      const id = JSON.stringify(keyValues);
      byKey.delete(id);
      byKey.set(id, raw);
    }
    const parents = [...byKey.values()];
    const parentRows = parents.map((r) => toRow(r, cfg.columns, childFields, keys, `${cfg.table} ${JSON.stringify(keys.map((k) => r[k]))}`));

    // The table being written when the database refuses: its rows tell which column a value is too long for.
    let writing: { table: string; rows: readonly Row[] } = { table: cfg.table, rows: parentRows };
    try {
      await driver.transaction((tx) => writeBatch(tx, parents, parentRows, (table, rows) => { writing = { table, rows }; }));
    } catch (err) {
      const refusal = driver.refusal(err);
      if (refusal === undefined) throw err;
      throw await rowRefusedError(driver, refusal, { ...writing, records: parents, keys }, err);
    }
    logger.debug({ batch: batch.id, records: parents.length, table: cfg.table }, 'batch upserted');
  }

  /** Upsert the parents, then replace each parent's children; `at` is told which table comes next. */
  async function writeBatch(tx: Executor, parents: readonly ErpRecord[], parentRows: readonly Row[], at: (table: string, rows: readonly Row[]) => void): Promise<void> {
    at(cfg.table, parentRows);
    await upsertRows(driver, tx, cfg.table, keys, parentRows);
    for (const child of cfg.children) {
      const parentCols = keyList(child.parentKey);
      const childKeys = keyList(child.key);
      if (parentCols.length !== keys.length) throw invalid(`children ${child.field}: parentKey has ${parentCols.length} column(s) but key has ${keys.length}`);
      const rows: Row[] = [];
      at(child.table, rows);
      for (const parent of parents) {
        const list = parent[child.field];
        if (list === undefined || list === null) continue; // absent = leave existing children alone
        const where = `${child.table} of ${JSON.stringify(keys.map((k) => parent[k]))}`;
        if (!Array.isArray(list)) throw invalid(`${where}: field ${child.field} must be an array`);
        const conditions = parentCols.map((c) => `${driver.quote(c)} = ${driver.style === 'dollar' ? `$${parentCols.indexOf(c) + 1}` : '?'}`);
        await tx.query(`DELETE FROM ${driver.quote(child.table)} WHERE ${conditions.join(' AND ')}`, keys.map((k) => dbValue(parent[k])));
        for (const item of list) {
          if (!recordSchema.safeParse(item).success) throw invalid(`${where}: every element of ${child.field} must be an object`);
          const withParent: Record<string, unknown> = { ...(item as Record<string, unknown>) };
          parentCols.forEach((c, i) => { withParent[c] = parent[keys[i] as string]; });
          rows.push(toRow(withParent, undefined, new Set(), [...childKeys, ...parentCols], where));
        }
      }
      await upsertRows(driver, tx, child.table, childKeys, rows);
    }
  }

  /** One look-up by key per chunk; values compared as text, as the key's columns may come back as numbers or strings. */
  async function holding(records: readonly ErpRecord[]): Promise<ReadonlySet<number>> {
    const wanted = new Map<string, number[]>();
    const lookups: unknown[][] = [];
    for (const [index, record] of records.entries()) {
      const values = keys.map((k) => record[k]);
      if (values.some((v) => v === null || v === undefined)) continue; // write() refuses it with its reason
      const id = JSON.stringify(values.map(String));
      const list = wanted.get(id);
      if (list) list.push(index);
      else {
        wanted.set(id, [index]);
        lookups.push(values.map(dbValue));
      }
    }
    const found = new Set<number>();
    const perChunk = Math.max(1, Math.floor(MAX_PARAMS / keys.length));
    for (let i = 0; i < lookups.length; i += perChunk) {
      const chunk = lookups.slice(i, i + perChunk);
      let n = 0;
      const mark = () => (driver.style === 'dollar' ? `$${++n}` : '?');
      const where = keys.length === 1
        ? `${driver.quote(keys[0] as string)} IN (${chunk.map(mark).join(', ')})`
        : chunk.map(() => `(${keys.map((k) => `${driver.quote(k)} = ${mark()}`).join(' AND ')})`).join(' OR ');
      const rows = await driver.query(`SELECT ${keys.map((k) => driver.quote(k)).join(', ')} FROM ${driver.quote(cfg.table)} WHERE ${where}`, chunk.flat());
      for (const row of rows) for (const index of wanted.get(JSON.stringify(keys.map((k) => String(row[k])))) ?? []) found.add(index);
    }
    return found;
  }

  return { kind: connector, target: `${connector} table ${cfg.table}`, write, holding, close: () => driver.close() };
}
