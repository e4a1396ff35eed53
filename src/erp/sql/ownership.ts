/**
 * Whose row is under a record's key. A SQL sink updates only rows it wrote: a row the ERP (or
 * another pipeline) put under the same key is left as it is and the record is refused with
 * SINK_FOREIGN_ROW, so a sink pointed at the ERP's own tables can never overwrite a real order and
 * call it delivered. The sink tells its rows by its owner column when it has one (the marker it
 * wrote on insert), else by what the pipeline proves per record (`SinkBatch.owned`: the state
 * delivered the key, a write of it may have landed unacknowledged, or the user accepted a restore).
 */
import { ConnectorError } from '../../errors.js';
import type { ErpRecord } from '../types.js';
import type { SqlSinkConfig } from './config.js';
import type { Row } from './driver.js';

/** The code of a record refused because a row it did not write is under its key. */
export const SINK_FOREIGN_ROW = 'SINK_FOREIGN_ROW';
/** The code of a sink whose key no unique index covers. */
export const SINK_KEY_NOT_UNIQUE = 'SINK_KEY_NOT_UNIQUE';

/** Columns of the row found shown in the message, and characters per value. */
const SHOWN_COLUMNS = 6;
const SHOWN_CHARS = 40;

/** How the sink decides about a row it found under a record's key. */
export interface Ownership {
  readonly overwrite: SqlSinkConfig['overwrite'];
  readonly ownerColumn?: string;
  readonly marker?: string;
}

/** Whether the sink may update `row` (found under the key of a record the pipeline does or does not prove its own). */
export function mayUpdate(o: Ownership, row: Row, owned: boolean): boolean {
  if (o.overwrite === 'foreign') return true;
  if (o.ownerColumn === undefined) return owned;
  const mark = row[o.ownerColumn];
  if (mark === null || mark === undefined || mark === '') return owned; // unmarked: written before the column was added, or by nobody we know
  return String(mark) === o.marker;
}

/** A value as the message shows it: cut short. */
function shown(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : typeof value === 'bigint' ? String(value) : JSON.stringify(value) ?? String(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

/** A few columns of the row found, its key and owner column first left out. */
export function preview(row: Row, skip: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [column, value] of Object.entries(row)) {
    if (skip.includes(column) || value === null || value === undefined || value === '') continue;
    if (Object.keys(out).length >= SHOWN_COLUMNS) break;
    out[column] = shown(value);
  }
  return out;
}

/** `id=1` or `firma=01, artnr=4711`. */
export function keyText(record: ErpRecord, keys: readonly string[]): string {
  return keys.map((k) => `${k}=${shown(record[k])}`).join(', ');
}

/** The outcome's message and details for a record refused because `row` under its key is not the sink's. */
export function foreignRow(o: Ownership & { table: string; keys: readonly string[]; pipeline?: string }, record: ErpRecord, row: Row | undefined): { message: string; details: Record<string, unknown> } {
  const pipeline = o.pipeline ?? '<pipeline>';
  const found = row === undefined ? {} : preview(row, [...o.keys, ...(o.ownerColumn ? [o.ownerColumn] : [])]);
  const what = Object.keys(found).length > 0 ? Object.entries(found).map(([c, v]) => `${c}=${v}`).join(', ') : 'no other values';
  const mark = o.ownerColumn === undefined ? undefined : row?.[o.ownerColumn];
  const whose = o.ownerColumn === undefined
    ? "this pipeline's state has no delivery of that key"
    : mark === null || mark === undefined || mark === ''
      ? `its ${o.ownerColumn} is empty and this pipeline's state has no delivery of that key`
      : `its ${o.ownerColumn} is ${shown(mark)}, not ${o.marker ?? pipeline}`;
  const restored = o.ownerColumn === undefined
    ? ` If shopsync wrote that row under a state that has since been restored or deleted, accept with \`shopsync state accept-restore ${pipeline}\`, then \`shopsync dlq retry --all -p ${pipeline}\`; an \`ownerColumn\` lets the sink tell its own rows itself.`
    : '';
  const message = `${o.table} already holds a row under ${keyText(record, o.keys)} that this pipeline did not write (${whose}): ${what}. Nothing of this record was written; that row and its children are as they were. Point the sink at a staging table of shopsync's own (\`shopsync init --orders-pull\` writes one) or at a key of the sink's own (a column only shopsync writes, such as the shop's order number); set \`overwrite: foreign\` only if overwriting the ERP's rows under these keys is intended.${restored}`;
  return { message, details: { table: o.table, key: Object.fromEntries(o.keys.map((k) => [k, record[k]])), found, ...(o.ownerColumn ? { ownerColumn: o.ownerColumn, owner: mark ?? null } : {}) } };
}

/** The fix when no unique index covers the sink's key: ours first, never the ERP's tables. */
export function notUniqueError(connector: string, table: string, keys: readonly string[], found: readonly { columns: readonly string[] }[], child?: string): ConnectorError {
  const existing = found.length > 0 ? `; its unique keys are ${found.map((k) => `(${k.columns.join(', ')})`).join(', ')}` : '; it has no unique key';
  const what = child === undefined ? `the sink's key (${keys.join(', ')})` : `the key (${keys.join(', ')}) of children ${child}`;
  return new ConnectorError(
    SINK_KEY_NOT_UNIQUE,
    `${table} has no primary key or unique index on exactly ${what}${existing}, so a row under a key cannot be told from a second one. Point the sink at a staging table of shopsync's own (\`shopsync init --orders-pull\` writes one with its key), or at a key the table already holds unique; on a table of your own, \`CREATE UNIQUE INDEX … ON ${table} (${keys.join(', ')})\`. Do not alter the ERP's own tables for it.`,
    { connector, details: { table, key: [...keys], uniqueKeys: found.map((k) => [...k.columns]) } },
  );
}
