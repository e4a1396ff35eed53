/**
 * The ERP key of a SQL row as one stable string. A single key column gives its value as a string
 * (`4711`), as always; a composite key (`key: [Firma, ARTNR]`) gives the JSON array of its values
 * as strings (`["01","4711"]`), so references, hashes and dead letters have one key per record and
 * a value containing any separator can never collide with another.
 */
import type { ErpRecord } from '../types.js';

/** The key string of a row, or undefined when a key column is NULL or empty. */
export function keyString(row: ErpRecord, columns: readonly string[]): string | undefined {
  const values = columns.map((c) => row[c]);
  if (values.some((v) => v === null || v === undefined || v === '')) return undefined;
  return columns.length === 1 ? String(values[0]) : JSON.stringify(values.map((v) => String(v)));
}

/** The key columns' values of a key string (the inverse of `keyString`). */
export function keyParts(key: string, columns: readonly string[]): string[] {
  if (columns.length === 1) return [key];
  const parts = JSON.parse(key) as unknown;
  if (!Array.isArray(parts) || parts.length !== columns.length) throw new Error(`stored key ${key} does not have the ${columns.length} parts of key [${columns.join(', ')}]; the key columns changed since it was stored`);
  return parts.map((p) => String(p));
}
