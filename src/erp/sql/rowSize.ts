/**
 * The bound on one SQL row's size (`maxRecordBytes`, issue 42 item 9), as file sources have it: a
 * row whose text columns (its children's included) hold more than the bound is refused as a bad row
 * (`SOURCE_RECORD_TOO_LARGE`), so a 300 MB description column is neither mapped nor sent nor kept
 * whole in a dead letter. The letter keeps the row's key and cursor columns and an excerpt of its start.
 */
import { tooLarge } from '../files/bounds.js';
import { rawExcerpt, type CursorPosition, type ErpRecord, type SourceItem } from '../types.js';
import { clipStrings } from '../../util/bytes.js';

/** Characters of text in a row, counting stops once past `limit` (a row is JSON-safe data: jsonSafeRow). */
export function textOver(value: unknown, limit: number): boolean {
  let total = 0;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return (total += v.length) > limit;
    if (v === null || typeof v !== 'object') return false;
    for (const x of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) if (walk(x)) return true;
    return false;
  };
  return walk(value);
}

/** The refused item of a row over the bound: only its key and cursor columns, and the start of its text. */
export function tooLargeRow(record: ErpRecord, columns: readonly string[], key: string, position: CursorPosition, max: number, row: number): SourceItem {
  const kept = Object.fromEntries(columns.filter((c) => c in record).map((c) => [c, record[c]]));
  return {
    record: kept,
    key,
    position,
    refused: tooLarge(max, `row ${row} (key ${key})`),
    origin: { element: row, raw: rawExcerpt(JSON.stringify(clipStrings(record, 200))) },
  };
}
