/**
 * Dead letters as lists show them (dashboard, API, `dlq list`): the record and payload columns are
 * read only as far as LIST_EXCERPT_MAX characters, in SQL, so a page of 500 letters of 1 MiB each
 * never pulls 500 MiB out of the state (issue 42 item 9). A record cut here carries the same
 * `$truncated` marker as one cut when it was stored, so a retry handed a listed letter refuses it
 * instead of sending half a record.
 */
import { toDeadLetter, TRUNCATED_RECORD, type DeadLetterRow } from './rows.js';
import type { DeadLetter } from './types.js';

/** Longest record or payload JSON a listed letter carries whole (characters). */
export const LIST_EXCERPT_MAX = 4096;

/** A row of the list query: record and payload cut, with whether they were and their full size. */
export interface ListedLetterRow extends DeadLetterRow {
  record_cut: number | boolean | string;
  record_bytes: number | string;
  payload_cut: number | boolean | string | null;
  payload_bytes: number | string | null;
}

/** The SELECT list of a letter list: every column, record and payload only as excerpts. */
export function listedLetterColumns(dialect: 'sqlite' | 'postgres'): string {
  const n = LIST_EXCERPT_MAX;
  // Sizes and cuts are computed in the database, so only the excerpt crosses to this process.
  const cut = (col: string) => (dialect === 'sqlite' ? `substr(${col}, 1, ${n}) AS ${col}, length(${col}) > ${n} AS ${col}_cut, length(CAST(${col} AS BLOB)) AS ${col}_bytes` : `left(${col}, ${n}) AS ${col}, length(${col}) > ${n} AS ${col}_cut, octet_length(${col}) AS ${col}_bytes`);
  return `id, pipeline, shop, resource, erp_key, ${cut('record')}, ${cut('payload')}, code, reason, attempts, run_id, first_failed_at, last_failed_at, origin`;
}

const isCut = (v: number | boolean | string | null): boolean => v === true || v === 1 || v === '1' || v === 't';

/** A stored letter that was already cut keeps the size of the record it came from, not of its marker. */
const STORED_MARKER = /^\{"\$truncated":\{"bytes":(\d+),/;

/** A listed row in its domain form; a cut record is `{ $truncated: { bytes, start } }`, a cut payload `{ truncated, bytes, start }`. */
export function toListedLetter(r: ListedLetterRow): DeadLetter {
  const recordCut = isCut(r.record_cut);
  const payloadCut = r.payload !== null && isCut(r.payload_cut);
  const letter = toDeadLetter({ ...r, record: recordCut ? '{}' : r.record, payload: payloadCut ? null : r.payload });
  const record = recordCut ? { [TRUNCATED_RECORD]: { bytes: Number(STORED_MARKER.exec(r.record)?.[1] ?? r.record_bytes), start: r.record } } : letter.record;
  const payload = payloadCut ? { truncated: true, bytes: Number(r.payload_bytes), start: r.payload } : letter.payload;
  return { ...letter, record, ...(payload !== undefined ? { payload } : {}) };
}
