/**
 * Cursor values in the source's own representation. A read continues with `column > :cursor`; when
 * the cursor was written by shopsync rather than read from the column (the watermark's cap, a
 * lookback start, a backfill bound), it must compare like the column's values. A TEXT column that
 * holds `2026-12-01 19:59:19.624` compares as text: a cursor `2026-12-01T19:59:02.063871` sorts
 * after every value of that day (' ' < 'T') and the rest of the day is skipped. So a value we
 * synthesise is written in the format learnt from the column's own values: the separator, whether
 * seconds are written, the fraction digits (never more than the column has: cut digits move a value
 * earlier, which only re-reads), and the zone suffix as written (`Z`, `+00`, `+01:00`, `+0100`).
 * Typed columns (timestamp, timestamptz, DATETIME(n)) are read through the driver in one fixed form
 * and the database parses the bound; the same rule keeps their fraction precision.
 */
import type { CursorValue } from './types.js';
import { compareValues } from './values.js';

/** How a zone suffix is written: `Z`, `+01`, `+01:00`, `+0100`. */
export type ZoneStyle = 'Z' | 'hh' | 'hh:mm' | 'hhmm';

/** The written form of a timestamp cursor value, learnt from one value. */
export interface TimestampFormat {
  /** Between date and time; absent: a date alone. */
  readonly separator?: ' ' | 'T';
  /** `HH:MM:SS` rather than `HH:MM`. */
  readonly seconds: boolean;
  /** Fraction digits after the seconds. */
  readonly digits: number;
  /** The zone as written; absent: a wall-clock time without zone (compared as the database's local time or as text). */
  readonly zone?: { readonly style: ZoneStyle; readonly offsetMinutes: number };
}

/** A parsed timestamp cursor value. */
export interface Timestamp {
  readonly format: TimestampFormat;
  /** The wall-clock time as written, to the millisecond, in ms as if it were UTC. */
  readonly wallMs: number;
  /** Fraction digits below the millisecond (microseconds…) as written, so nothing is rounded. */
  readonly subMs: string;
  /** The instant (epoch ms) of a zoned value; the wall time of one without zone. */
  readonly ms: number;
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:([ T])(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?:(:?)(\d{2}))?)?)?$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Whether a cursor value is a number, or a number the driver handed over as text (PostgreSQL bigint, MariaDB BIGINT/DECIMAL). */
export function isNumberCursor(value: CursorValue): boolean {
  return typeof value === 'number' || (typeof value === 'string' && NUMBER.test(value));
}

const DATE_LIKE = /\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}:\d{2}/;

/**
 * Whether text that `parseTimestamp` does not read still looks like a date or a time of day
 * (`01.12.2026 19:59`, `12/01/2026`): a time in a form shopsync cannot write. Other text (a
 * zero-padded id `A-000123`, a version) is no time, and the watermark, a time, does not apply to it.
 */
export function looksLikeTime(value: CursorValue): boolean {
  return typeof value === 'string' && DATE_LIKE.test(value);
}

/** A cursor value as a timestamp with its written form; undefined for anything else (numbers, other text). */
export function parseTimestamp(value: CursorValue): Timestamp | undefined {
  if (typeof value !== 'string') return undefined;
  // Rows of one bulk change share their time: the value parsed last is asked again (results are read-only).
  if (value === lastParsed.text) return lastParsed.result;
  const result = parseTimestampText(value);
  lastParsed = { text: value, result };
  return result;
}

let lastParsed: { readonly text: string; readonly result: Timestamp | undefined } = { text: '', result: undefined };

function parseTimestampText(value: string): Timestamp | undefined {
  const m = TIMESTAMP.exec(value);
  if (!m) return undefined;
  const [, date, separator, hh, mi, ss, fraction, z, sign, oh, colon, om] = m;
  const frac = fraction ?? '';
  const wallMs = Date.parse(`${date}T${hh ?? '00'}:${mi ?? '00'}:${ss ?? '00'}.${frac.slice(0, 3).padEnd(3, '0')}Z`);
  // Date.parse rolls 2026-02-30 over to March: a value that does not print back is no date.
  if (Number.isNaN(wallMs) || new Date(wallMs).toISOString().slice(0, 10) !== date) return undefined;
  let zone: TimestampFormat['zone'];
  if (z) zone = { style: 'Z', offsetMinutes: 0 };
  else if (sign) {
    const minutes = Number(oh) * 60 + Number(om ?? 0);
    zone = { style: om === undefined ? 'hh' : colon === ':' ? 'hh:mm' : 'hhmm', offsetMinutes: sign === '-' ? -minutes : minutes };
  }
  const format: TimestampFormat = { ...(separator ? { separator: separator as ' ' | 'T' } : {}), seconds: ss !== undefined, digits: frac.length, ...(zone ? { zone } : {}) };
  return { format, wallMs, subMs: frac.slice(3), ms: zone ? wallMs - zone.offsetMinutes * 60_000 : wallMs };
}

/** Order of two timestamps (instants when zoned), to below the millisecond. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.ms !== b.ms) return a.ms < b.ms ? -1 : 1;
  const len = Math.max(a.subMs.length, b.subMs.length);
  const x = a.subMs.padEnd(len, '0');
  const y = b.subMs.padEnd(len, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

function zoneText(zone: NonNullable<TimestampFormat['zone']>): string {
  if (zone.style === 'Z') return 'Z';
  const abs = Math.abs(zone.offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  const sign = zone.offsetMinutes < 0 ? '-' : '+';
  return zone.style === 'hh' ? `${sign}${hh}` : zone.style === 'hh:mm' ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
}

/**
 * Write a wall-clock time (`wallMs` as if UTC, `subMs` the digits below the millisecond) in
 * `format`. Digits the format does not have are cut (the value moves earlier, never later); digits
 * it has beyond those known are zeros, which is exact.
 */
export function writeWall(wallMs: number, subMs: string, format: TimestampFormat): string {
  const iso = new Date(wallMs).toISOString();
  if (!format.separator) return iso.slice(0, 10);
  const fraction = format.seconds && format.digits > 0 ? `.${`${iso.slice(20, 23)}${subMs}`.padEnd(format.digits, '0').slice(0, format.digits)}` : '';
  return `${iso.slice(0, 10)}${format.separator}${iso.slice(11, 16)}${format.seconds ? iso.slice(16, 19) : ''}${fraction}${format.zone ? zoneText(format.zone) : ''}`;
}

/** Write a timestamp in `format`: a zoned one as the same instant in the format's offset; one without zone as its wall time. */
export function writeLike(t: Timestamp, format: TimestampFormat): string {
  const wall = format.zone && t.format.zone ? t.ms + format.zone.offsetMinutes * 60_000 : t.wallMs;
  return writeWall(wall, t.subMs, format);
}

/**
 * Whether values of these two forms order as times when compared as text: the same separator and
 * the same zone suffix. Fraction digits and seconds may differ, and a date alone goes with any form
 * (a shorter value is a prefix, which sorts first, as its time does).
 */
export function sameTextOrder(a: TimestampFormat, b: TimestampFormat): boolean {
  if (!a.separator || !b.separator) return true;
  if (a.separator !== b.separator) return false;
  if (!a.zone || !b.zone) return !a.zone && !b.zone;
  return a.zone.style === b.zone.style && a.zone.offsetMinutes === b.zone.offsetMinutes;
}

/** A form for a person: `YYYY-MM-DD HH:MM:SS.fff` (no zone), `YYYY-MM-DDTHH:MM:SSZ`. */
export function formatText(format: TimestampFormat): string {
  if (!format.separator) return 'YYYY-MM-DD';
  const zone = !format.zone ? ' (no zone)' : format.zone.style === 'Z' ? 'Z' : format.zone.style === 'hh' ? '+HH' : format.zone.style === 'hh:mm' ? '+HH:MM' : '+HHMM';
  return `YYYY-MM-DD${format.separator}HH:MM${format.seconds ? ':SS' : ''}${format.digits > 0 ? `.${'f'.repeat(format.digits)}` : ''}${zone}`;
}

const INTEGER = /^-?\d+$/;

/**
 * Order of two cursor values as the database orders them, for the checks shopsync makes itself (a
 * backfill's `to` on a query that pages itself): numbers, also integers the driver hands over as
 * text (PostgreSQL bigint: as text '9' sorts after '10'), by value; timestamps of one kind by time
 * (PostgreSQL writes `12:00:42Z` and `12:00:42.5Z` with different lengths); anything else as text.
 */
export function compareCursorValues(a: CursorValue, b: CursorValue): number {
  if (typeof a === 'string' && typeof b === 'string' && INTEGER.test(a) && INTEGER.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (isNumberCursor(a) && isNumberCursor(b) && a !== null && b !== null) {
    const x = Number(a);
    const y = Number(b);
    if (x !== y) return x < y ? -1 : 1;
  }
  const ta = parseTimestamp(a);
  const tb = parseTimestamp(b);
  if (ta && tb && (ta.format.zone === undefined) === (tb.format.zone === undefined)) return compareTimestamps(ta, tb);
  return compareValues(a, b);
}
