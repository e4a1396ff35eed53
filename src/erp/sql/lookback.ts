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

/** `5m`, `90s`, `1h`, `2d`, `500ms`, or a number of milliseconds (also as text); 0 turns it off. */
export const durationSchema = z.union([
  z.number().int().min(0),
  z
    .string()
    // Bare digits are milliseconds: a `${VAR}` setting arrives as text.
    .regex(/^\d+(ms|s|m|h|d)?$/, 'expected a duration like 90s, 5m, 1h or 0')
    .transform((s) => {
      const m = /^(\d+)(ms|s|m|h|d)?$/.exec(s)!;
      const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h' | 'd'];
      return Number(m[1]) * unit;
    }),
]);

/**
 * Five minutes: longer than an ERP booking transaction usually stays open and than the clock drift
 * NTP tolerates, short enough that a no-change run re-reads only the last minutes' rows (each
 * settled by its source hash, no mapping, no request). A transaction open longer is the
 * watermark's job where the database can tell (sourceWatermark.ts), and an alert.
 */
export const DEFAULT_LOOKBACK_MS = 5 * 60_000;

const ZONED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|([+-])(\d{2}):?(\d{2}))$/;

/**
 * A zoned timestamp written as `like` is written: in its offset and with its fraction digits. A
 * source that compares cursor values as text (an HTTP API, a SQLite TEXT column) would otherwise
 * sort a UTC `…T16:56:00.000Z` *after* the cursor `2026-11-26T12:01:00-05:00` and drop the new
 * records between them. Digits cut off move the value earlier, never later.
 */
export function writtenLike(value: string, like: string): string {
  const m = ZONED.exec(like);
  if (!m || Number.isNaN(Date.parse(value))) return value;
  const [, , fraction, zone, sign, hh, mm] = m;
  const offsetMs = zone === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) * 60_000;
  const wall = new Date(Date.parse(value) + offsetMs).toISOString();
  const digits = fraction === undefined ? '' : `${wall.slice(19, 23)}${'0'.repeat(Math.max(0, fraction.length - 4))}`.slice(0, fraction.length);
  return `${wall.slice(0, 19)}${digits}${zone}`;
}

const ISO_ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const NAIVE = /^(\d{4}-\d{2}-\d{2})([ T])(\d{2}:\d{2})(:\d{2})?(\.\d+)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Where a read with lookback starts: the cursor value `ms` earlier, written as the source writes it,
 * with no key (every row at that value and after). Undefined when the value is no timestamp.
 */
export function lookedBack(after: CursorPosition, ms: number): CursorPosition | undefined {
  const v = after.value;
  if (ms <= 0 || typeof v !== 'string') return undefined;
  if (ISO_ZONED.test(v)) return { value: writtenLike(new Date(Date.parse(v) - ms).toISOString(), v), key: null };
  const naive = NAIVE.exec(v);
  if (naive) {
    // A timestamp without zone is compared as text or as the database's local time: shift it as written.
    const [, , sep, , seconds, fraction] = naive;
    const shifted = new Date(Date.parse(`${naive[1]}T${naive[3]}${seconds ?? ':00'}${fraction ?? ''}Z`) - ms).toISOString();
    // Milliseconds from the shift; digits below a millisecond (microseconds) stay as written.
    const frac = fraction === undefined ? '' : fraction.length <= 4 ? shifted.slice(19, 19 + fraction.length) : `${shifted.slice(19, 23)}${fraction.slice(4)}`;
    const text = `${shifted.slice(0, 10)}${sep}${shifted.slice(11, 16)}${seconds !== undefined ? shifted.slice(16, 19) : ''}${frac}`;
    return { value: text, key: null };
  }
  // A date alone: the whole day again (a shorter window cannot be written as a date).
  if (DATE_ONLY.test(v)) return { value: v, key: null };
  return undefined;
}

/** A timestamp cursor value as milliseconds: a zoned one as its instant, a naive one as written (compared only with naive ones). */
export function cursorTime(value: CursorValue): { readonly ms: number; readonly zoned: boolean } | undefined {
  if (typeof value !== 'string') return undefined;
  if (ISO_ZONED.test(value)) return { ms: Date.parse(value), zoned: true };
  const naive = NAIVE.exec(value);
  if (naive) return { ms: Date.parse(`${naive[1]}T${naive[3]}${naive[4] ?? ':00'}${(naive[5] ?? '').slice(0, 4)}Z`), zoned: false };
  if (DATE_ONLY.test(value)) return { ms: Date.parse(`${value}T00:00:00Z`), zoned: false };
  return undefined;
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
