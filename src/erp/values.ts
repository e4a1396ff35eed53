/**
 * Turning driver values into JSON-safe record values, and comparing cursor positions.
 */
import { z } from 'zod';
import { valueAt } from '../util/paths.js';
import type { CursorPosition, CursorValue, ErpRecord } from './types.js';

/** Records are objects with string keys; anything else from a driver or a file is a bug we report. */
export const recordSchema = z.record(z.string(), z.unknown());

/** Convert one driver value to a JSON-safe value (Date → ISO, bigint → number or string, Buffer → base64). */
export function jsonSafe(value: unknown): unknown {
  // Most driver values are strings: answered before the other checks.
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = jsonSafe(v);
    return out;
  }
  return value;
}

/** Convert a driver row to a JSON-safe record. */
export function jsonSafeRow(row: Record<string, unknown>): ErpRecord {
  const out: ErpRecord = {};
  for (const k of Object.keys(row)) {
    const v = row[k];
    out[k] = typeof v === 'string' ? v : jsonSafe(v);
  }
  return out;
}

/** A record value as a cursor value (string or number); objects are not cursors. */
export function toCursorValue(value: unknown): CursorValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Compare two cursor values: numbers numerically, otherwise as strings by code unit; null sorts first. */
export function compareValues(a: CursorValue, b: CursorValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : 1;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Keyset order on (value, key). */
export function comparePositions(a: CursorPosition, b: CursorPosition): number {
  return compareValues(a.value, b.value) || compareValues(a.key, b.key);
}

/** Read a dotted path (`data.items`) from a JSON value; empty path returns the value. For a path read per record, use `pathReader`. */
export function getPath(value: unknown, path: string | undefined): unknown {
  return path ? valueAt(value, path.split('.')) : value;
}

/** A reader of one dotted path, split once (for paths read from every record: keys, cursors). */
export function pathReader(path: string | undefined): (value: unknown) => unknown {
  if (!path) return (value) => value;
  const segments = path.split('.');
  return (value) => valueAt(value, segments);
}
