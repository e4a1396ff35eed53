/**
 * The SQL sink: writes a batch by key into a (staging) table in one transaction, children included.
 * Inside the transaction it locks the rows already under the batch's keys (FOR UPDATE), inserts the
 * new keys with a plain INSERT (a row the ERP inserts meanwhile fails it rather than being
 * overwritten), updates only rows it wrote (src/erp/sql/ownership.ts) and refuses the others
 * (SINK_FOREIGN_ROW, leaving them and their children alone). Children of its rows are replaced
 * (deleted by parent key, then inserted), so a removed order line disappears and a failed batch
 * leaves no half-written order behind; an `append` child only gains the rows whose key is new. Each record's outcome says what happened: created, updated, refused.
 * A batch the table refuses for a row's data (too long, a constraint, a wrong type) fails with
 * SINK_ROW_REFUSED, which the pipeline splits down to the record; anything else fails as before.
 */
import type { Logger } from '../../log.js';
import { ConfigError } from '../../errors.js';
import { IDENTIFIER } from '../connection.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import type { ErpRecord, Sink, SinkBatch, SinkOutcome, SinkResult } from '../types.js';
import { recordSchema } from '../values.js';
import { keyList, type SqlSinkConfig } from './config.js';
import { valuesClause, type Executor, type Row as DbRow, type SqlDriver } from './driver.js';
import { foreignRow, mayUpdate, SINK_FOREIGN_ROW, type Ownership } from './ownership.js';
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

/**
 * What an insert does with a row whose key the table holds: fail (the batch), or keep the row there
 * (an append child). MariaDB keeps it with a no-op ON DUPLICATE KEY UPDATE rather than INSERT IGNORE,
 * which would also turn a too-long value or a NULL into a warning and store the row cut.
 */
function conflictClause(driver: SqlDriver, keep: boolean, columns: readonly string[]): string {
  if (!keep) return '';
  if (driver.kind === 'mysql') return ` ON DUPLICATE KEY UPDATE ${driver.quote(columns[0]!)} = ${driver.quote(columns[0]!)}`;
  return ' ON CONFLICT DO NOTHING';
}

/** Insert rows grouped by their column set, in chunks that fit the parameter limit; `keep`: a taken key keeps its row. */
async function insertRows(driver: SqlDriver, tx: Executor, table: string, rows: readonly Row[], keep = false): Promise<void> {
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
      await tx.query(`INSERT INTO ${driver.quote(table)} (${columns.map((c) => driver.quote(c)).join(', ')}) VALUES ${valuesClause(driver.style, columns.length, chunk.length)}${conflictClause(driver, keep, columns)}`, chunk.flatMap((r) => r.values));
    }
  }
}

/** Update one row by its key: only the columns it carries besides the key. */
async function updateRow(driver: SqlDriver, tx: Executor, table: string, keys: readonly string[], row: Row): Promise<void> {
  const set = row.columns.filter((c) => !keys.includes(c));
  if (set.length === 0) return;
  let n = 0;
  const mark = () => (driver.style === 'dollar' ? `$${++n}` : '?');
  const assignments = set.map((c) => `${driver.quote(c)} = ${mark()}`).join(', ');
  const where = keys.map((k) => `${driver.quote(k)} = ${mark()}`).join(' AND ');
  const value = (c: string) => row.values[row.columns.indexOf(c)];
  await tx.query(`UPDATE ${driver.quote(table)} SET ${assignments} WHERE ${where}`, [...set.map(value), ...keys.map(value)]);
}

/** What the sink factory passes besides the config. */
export interface SqlSinkContext {
  readonly logger: Logger;
  /** The pipeline's name: the default owner marker, and named in fixes. */
  readonly pipeline?: string;
}

/** One key of a batch: the record written under it (the last one) and every batch index that carries it. */
interface Entry {
  readonly id: string;
  readonly record: ErpRecord;
  readonly indexes: number[];
  owned: boolean;
}

/** Create the sink over an open driver (which it owns and closes). */
export function sqlSink(driver: SqlDriver, cfg: SqlSinkConfig, context: SqlSinkContext): Sink {
  const { logger, pipeline } = context;
  const connector = driver.kind;
  const keys = keyList(cfg.key);
  const childFields = new Set(cfg.children.map((c) => c.field));
  const marker = cfg.ownerMarker ?? pipeline;
  if (cfg.ownerColumn !== undefined && marker === undefined) throw new ConfigError(`sink.ownerColumn ${cfg.ownerColumn} needs the marker it writes: give sink.ownerMarker, or open the sink for a named pipeline`);
  const ownership: Ownership = { overwrite: cfg.overwrite, ...(cfg.ownerColumn !== undefined ? { ownerColumn: cfg.ownerColumn, marker } : {}) };
  // The owner column is the sink's to write: a record field of that name does not set it.
  const skipParent = new Set([...childFields, ...(cfg.ownerColumn !== undefined ? [cfg.ownerColumn] : [])]);

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

  /** A parent row as written: the record's columns and, with an owner column, the sink's marker. */
  function parentRow(record: ErpRecord): Row {
    const row = toRow(record, cfg.columns, skipParent, keys, `${cfg.table} ${JSON.stringify(keys.map((k) => record[k]))}`);
    if (cfg.ownerColumn === undefined) return row;
    return { columns: [...row.columns, cfg.ownerColumn], values: [...row.values, marker] };
  }

  /** The key as compared with what the database returns: every value as text. */
  const idOf = (values: readonly unknown[]) => JSON.stringify(values.map((v) => String(v)));

  async function write(batch: SinkBatch): Promise<SinkResult> {
    // One row per key: the last record wins, and the key is proven ours if any record under it is.
    const byKey = new Map<string, Entry>();
    for (const [index, raw] of batch.records.entries()) {
      const parsed = recordSchema.safeParse(raw);
      if (!parsed.success) throw invalid(`record #${index} is not an object`);
      const keyValues = keys.map((k) => raw[k]);
      if (keyValues.some((v) => v === null || v === undefined)) throw invalid(`record #${index} has no value for key ${keys.join(', ')}`);
      const id = idOf(keyValues);
      const owned = batch.owned?.[index] === true;
      const seen = byKey.get(id);
      byKey.delete(id);
      byKey.set(id, { id, record: raw, indexes: [...(seen?.indexes ?? []), index], owned: owned || (seen?.owned ?? false) });
    }
    const entries = [...byKey.values()];
    const rows = new Map(entries.map((e) => [e.id, parentRow(e.record)]));

    // The table being written when the database refuses: its rows tell which column a value is too long for.
    let writing: { table: string; rows: readonly Row[] } = { table: cfg.table, rows: [...rows.values()] };
    let decided: Map<string, SinkOutcome>;
    try {
      decided = await driver.transaction((tx) => writeBatch(tx, entries, rows, (table, list) => { writing = { table, rows: list }; }));
    } catch (err) {
      const refusal = driver.refusal(err);
      if (refusal === undefined) throw err;
      throw await rowRefusedError(driver, refusal, { ...writing, records: entries.map((e) => e.record), keys }, err);
    }
    const outcomes: SinkOutcome[] = new Array<SinkOutcome>(batch.records.length);
    for (const entry of entries) {
      const outcome = decided.get(entry.id)!;
      // An earlier record of the same key was written and then overwritten by the last one: an update of that row.
      entry.indexes.forEach((index, i) => { outcomes[index] = i === 0 || outcome.kind === 'refused' ? outcome : { kind: 'updated' }; });
    }
    const refused = entries.filter((e) => decided.get(e.id)?.kind === 'refused').length;
    logger.debug({ batch: batch.id, records: entries.length, refused, table: cfg.table }, 'batch written');
    return { outcomes };
  }

  /** The rows already under the entries' keys, locked for the rest of the transaction (SQLite's BEGIN IMMEDIATE holds the whole file). */
  async function lockExisting(tx: Executor, entries: readonly Entry[], columns: readonly string[]): Promise<Map<string, DbRow>> {
    const found = new Map<string, DbRow>();
    const perChunk = Math.max(1, Math.floor(MAX_PARAMS / keys.length));
    const lock = driver.kind === 'sqlite' ? '' : ' FOR UPDATE';
    for (let i = 0; i < entries.length; i += perChunk) {
      const chunk = entries.slice(i, i + perChunk);
      const { where, params } = keyPredicate(chunk.map((e) => keys.map((k) => dbValue(e.record[k]))));
      // In key order, so two writers locking overlapping keys take them in the same order (no deadlock).
      const order = keys.map((k) => driver.quote(k)).join(', ');
      const list = await tx.query(`SELECT ${columns.map((c) => driver.quote(c)).join(', ')} FROM ${driver.quote(cfg.table)} WHERE ${where} ORDER BY ${order}${lock}`, params);
      for (const row of list) found.set(idOf(keys.map((k) => row[k])), row);
    }
    return found;
  }

  /** `k IN (…)`, or for a composite key `(a = ? AND b = ?) OR …`, with its parameters. */
  function keyPredicate(values: readonly unknown[][]): { where: string; params: unknown[] } {
    let n = 0;
    const mark = () => (driver.style === 'dollar' ? `$${++n}` : '?');
    const where = keys.length === 1
      ? `${driver.quote(keys[0] as string)} IN (${values.map(mark).join(', ')})`
      : values.map(() => `(${keys.map((k) => `${driver.quote(k)} = ${mark()}`).join(' AND ')})`).join(' OR ');
    return { where, params: values.flat() };
  }

  /** Decide per key (insert, update, refuse), write the parents, then replace the children of the rows written. */
  async function writeBatch(tx: Executor, entries: readonly Entry[], rows: ReadonlyMap<string, Row>, at: (table: string, rows: readonly Row[]) => void): Promise<Map<string, SinkOutcome>> {
    const existing = await lockExisting(tx, entries, [...keys, ...(cfg.ownerColumn !== undefined ? [cfg.ownerColumn] : [])]);
    const outcomes = new Map<string, SinkOutcome>();
    const inserts: Row[] = [];
    const updates: Row[] = [];
    const written: Entry[] = [];
    const foreign: Entry[] = [];
    for (const entry of entries) {
      const row = rows.get(entry.id)!;
      const held = existing.get(entry.id);
      if (held === undefined) {
        inserts.push(row);
        outcomes.set(entry.id, { kind: 'created' });
        written.push(entry);
      } else if (mayUpdate(ownership, held, entry.owned)) {
        updates.push(row);
        outcomes.set(entry.id, { kind: 'updated' });
        written.push(entry);
      } else foreign.push(entry);
    }
    if (foreign.length > 0) {
      // What is there, for the person deciding: the whole rows, read only for the refused keys.
      const { where, params } = keyPredicate(foreign.map((e) => keys.map((k) => dbValue(e.record[k]))));
      const found = new Map((await tx.query(`SELECT * FROM ${driver.quote(cfg.table)} WHERE ${where}`, params)).map((r) => [idOf(keys.map((k) => r[k])), r]));
      for (const entry of foreign) {
        const { message, details } = foreignRow({ ...ownership, table: cfg.table, keys, ...(pipeline !== undefined ? { pipeline } : {}) }, entry.record, found.get(entry.id) ?? existing.get(entry.id));
        outcomes.set(entry.id, { kind: 'refused', code: SINK_FOREIGN_ROW, message, details });
      }
    }
    at(cfg.table, inserts);
    await insertRows(driver, tx, cfg.table, inserts);
    at(cfg.table, updates);
    for (const row of updates) await updateRow(driver, tx, cfg.table, keys, row);
    await writeChildren(tx, written.map((e) => e.record), at);
    return outcomes;
  }

  /** Replace each written parent's children: delete by parent key, insert the record's list (absent: leave them); an append child only gains rows under new keys. */
  async function writeChildren(tx: Executor, parents: readonly ErpRecord[], at: (table: string, rows: readonly Row[]) => void): Promise<void> {
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
        // Append: the rows there stay as they are (the ERP's own columns on them too); a removed entry is not deleted.
        if (!child.append) await tx.query(`DELETE FROM ${driver.quote(child.table)} WHERE ${conditions.join(' AND ')}`, keys.map((k) => dbValue(parent[k])));
        for (const item of list) {
          if (!recordSchema.safeParse(item).success) throw invalid(`${where}: every element of ${child.field} must be an object`);
          const withParent: Record<string, unknown> = { ...(item as Record<string, unknown>) };
          parentCols.forEach((c, i) => { withParent[c] = parent[keys[i] as string]; });
          rows.push(toRow(withParent, undefined, new Set(), [...childKeys, ...parentCols], where));
        }
      }
      // A plain INSERT: a child key another parent holds fails the batch instead of moving that row to this parent.
      // An append child's key holds the parent's (config), so a taken key is this parent's own row, kept.
      await insertRows(driver, tx, child.table, rows, child.append);
    }
  }

  /** The records whose key holds a row with this pipeline's owner mark (values compared as text). */
  async function holding(records: readonly ErpRecord[]): Promise<ReadonlySet<number>> {
    const ownerColumn = cfg.ownerColumn!;
    const wanted = new Map<string, number[]>();
    const lookups: unknown[][] = [];
    for (const [index, record] of records.entries()) {
      const values = keys.map((k) => record[k]);
      if (values.some((v) => v === null || v === undefined)) continue; // write() refuses it with its reason
      const id = idOf(values);
      const list = wanted.get(id);
      if (list) list.push(index);
      else {
        wanted.set(id, [index]);
        lookups.push(values.map(dbValue));
      }
    }
    const found = new Set<number>();
    const perChunk = Math.max(1, Math.floor(MAX_PARAMS / keys.length) - 1);
    for (let i = 0; i < lookups.length; i += perChunk) {
      const { where, params } = keyPredicate(lookups.slice(i, i + perChunk));
      const mark = driver.style === 'dollar' ? `$${params.length + 1}` : '?';
      const rows = await driver.query(`SELECT ${keys.map((k) => driver.quote(k)).join(', ')} FROM ${driver.quote(cfg.table)} WHERE (${where}) AND ${driver.quote(ownerColumn)} = ${mark}`, [...params, marker]);
      for (const row of rows) for (const index of wanted.get(idOf(keys.map((k) => row[k]))) ?? []) found.add(index);
    }
    return found;
  }

  // Without an owner column the sink cannot tell an older state's row from the ERP's: it does not
  // answer `holding`, and refuses per record what the pipeline does not prove its own.
  return { kind: connector, target: `${connector} table ${cfg.table}`, write, ...(cfg.ownerColumn !== undefined ? { holding } : {}), close: () => driver.close() };
}
