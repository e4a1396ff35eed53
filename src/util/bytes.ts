/**
 * Sizes: how they are written in messages, and how long texts are cut before they are kept
 * (state events, dead-letter reasons): the start of the text and a marker saying how long it was.
 */

export const KiB = 1024;
export const MiB = 1024 * 1024;

/** `1 MiB`, `64 MiB`, `2 KiB`, `1.5 MiB`, `300 bytes`: for messages that name a limit or a size. */
export function formatBytes(n: number): string {
  if (n >= MiB) return n % MiB === 0 ? `${n / MiB} MiB` : `${(n / MiB).toFixed(1)} MiB`;
  if (n >= KiB) return n % KiB === 0 ? `${n / KiB} KiB` : `${(n / KiB).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/** UTF-8 size of a text, without encoding it when its length already decides against `limit`. */
export function exceedsBytes(text: string, limit: number): boolean {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4).
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return Buffer.byteLength(text, 'utf8') > limit;
}

/** `text` cut to its first `maxChars` characters plus `…(truncated, N bytes)`; unchanged when it fits. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  // Never keep half of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…(truncated, ${Buffer.byteLength(text, 'utf8')} bytes)`;
}

/**
 * A copy of `value` (JSON data) with every string longer than `maxChars` clipped (clipText); the
 * same object when nothing was long, so the common case allocates nothing.
 */
export function clipStrings<T>(value: T, maxChars: number): T {
  if (typeof value === 'string') return clipText(value, maxChars) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const c = clipStrings(v, maxChars);
      if (c !== v) (out ??= value.slice())[i] = c;
    }
    return (out ?? value) as T;
  }
  // toJSON (errors, dates) decides what is kept, as JSON.stringify would.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  const plain = typeof toJSON === 'function' ? (toJSON.call(value) as T) : value;
  if (plain !== value) return clipStrings(plain, maxChars);
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const c = clipStrings(v, maxChars);
    if (c !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = c;
  }
  return (out ?? value) as T;
}

/**
 * Longest text kept whole in a stored event (payload values, messages, details): most product
 * descriptions fit, so the dashboard still shows and diffs them; a hostile 50 MB name does not.
 */
export const STORED_TEXT_MAX = 8 * KiB;
/** Largest payload or diff kept in a stored event; a larger one is replaced by `{ truncated, bytes }`. */
export const STORED_JSON_MAX = 256 * KiB;

/**
 * JSON text of a value for a state column, bounded: every string longer than STORED_TEXT_MAX is
 * clipped with its marker, and with `whole` a result still above STORED_JSON_MAX is replaced by
 * `{"truncated":true,"bytes":N}`. A value whose JSON is short is stringified once, nothing more.
 */
export function boundedJson(value: unknown, whole = false): string {
  const text = JSON.stringify(value);
  // No string inside can be longer than the whole text.
  if (text.length <= STORED_TEXT_MAX) return text;
  const clipped = clipStrings(value, STORED_TEXT_MAX);
  const out = clipped === value ? text : JSON.stringify(clipped);
  return whole && out.length > STORED_JSON_MAX ? JSON.stringify({ truncated: true, bytes: Buffer.byteLength(text, 'utf8') }) : out;
}
