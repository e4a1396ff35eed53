/**
 * Lookback: an incremental read starts a while before the stored cursor. A row whose transaction
 * began before the last read but committed after it (a long booking, a batch job), a row stamped by
 * an application server whose clock runs behind, a replica that lags: each carries a cursor value
 * older than the stored one and would be skipped for good by a read strictly after it. Rows read
 * again unchanged are settled by their source hash: no mapping, no shop request.
 * Only timestamp cursors look back: a number is often a sequence, whose values are handed out
 * before commit just the same, but "N values back" means nothing general; docs/connectors.md says
 * what to use instead.
 */
import { z } from 'zod';
import type { CursorPosition, CursorValue } from '../types.js';
import { comparePositions } from '../values.js';
import { parseTimestamp, writeLike, writeWall } from '../cursorFormat.js';
import { DURATION_TEXT, durationTextMs } from '../../util/duration.js';

/** `5m`, `90s`, `1h`, `2d`, `500ms`, or a number of milliseconds (also as text); 0 turns it off. */
export const durationSchema = z.union([
  z.number().int().min(0),
  z
    .string()
    // Bare digits are milliseconds: a `${VAR}` setting arrives as text.
    .regex(DURATION_TEXT, 'expected a duration like 90s, 5m, 1h or 0')
    .transform((s) => durationTextMs(s)!),
]);

/**
 * Five minutes: longer than an ERP booking transaction usually stays open and than the clock drift
 * NTP tolerates, short enough that a no-change run re-reads only the last minutes' rows (each
 * settled by its source hash, no mapping, no request). A transaction open longer is the
 * watermark's job where the database can tell (sourceWatermark.ts), and an alert.
 */
export const DEFAULT_LOOKBACK_MS = 5 * 60_000;

/**
 * A zoned timestamp written as `like` is written: in its offset and with its fraction digits. A
 * source that compares cursor values as text (an HTTP API, a SQLite TEXT column) would otherwise
 * sort a UTC `…T16:56:00.000Z` *after* the cursor `2026-11-26T12:01:00-05:00` and drop the new
 * records between them. Digits cut off move the value earlier, never later.
 */
export function writtenLike(value: string, like: string): string {
  const form = parseTimestamp(like)?.format;
  const t = parseTimestamp(value);
  if (!form?.zone || !t?.format.zone) return value;
  return writeLike(t, form);
}

/**
 * Where a read with lookback starts: the cursor value `ms` earlier, written as the source writes it
 * (cursorFormat.ts: separator, seconds, fraction digits, zone suffix), with no key (every row at
 * that value and after). Undefined when the value is no timestamp.
 */
export function lookedBack(after: CursorPosition, ms: number): CursorPosition | undefined {
  if (ms <= 0) return undefined;
  const t = parseTimestamp(after.value);
  if (!t) return undefined;
  // A date alone: the whole day again (a shorter window cannot be written as a date).
  if (!t.format.separator) return { value: after.value, key: null };
  // Shifted as written (a zoned value keeps its offset, so its wall time moves as its instant does); digits below a millisecond stay.
  return { value: writeWall(t.wallMs - ms, t.subMs, t.format), key: null };
}

/** A timestamp cursor value as milliseconds: a zoned one as its instant, a naive one as written (compared only with naive ones). */
export function cursorTime(value: CursorValue): { readonly ms: number; readonly zoned: boolean } | undefined {
  const t = parseTimestamp(value);
  return t ? { ms: t.ms, zoned: t.format.zone !== undefined } : undefined;
}

/**
 * Whether `p` lies at or before `upTo` in keyset order. Timestamps compare as times: PostgreSQL
 * writes `12:00:42Z` and `12:00:42.5Z` with different lengths, which text order gets wrong.
 */
export function atOrBefore(p: CursorPosition, upTo: CursorPosition): boolean {
  return atOrBeforeOf(upTo)(p);
}

/** `atOrBefore` against one bound, parsed once (it is asked for every record a run reads). */
export function atOrBeforeOf(upTo: CursorPosition): (p: CursorPosition) => boolean {
  const b = cursorTime(upTo.value);
  return (p) => {
    const a = cursorTime(p.value);
    if (a && b && a.zoned === b.zoned && a.ms !== b.ms) return a.ms < b.ms;
    return comparePositions(p, upTo) <= 0;
  };
}
