/** Content hashes: stable JSON (sorted keys, undefined dropped) → sha256 hex. */
import * as crypto from 'node:crypto';

/** JSON text with object keys sorted at every depth, so equal content gives equal text. */
export function stableStringify(value: unknown): string {
  // Stored hashes depend on this text byte for byte: loops and concatenation instead of entries/filter/sort/map (a fifth of a no-change re-read's hashing), same output.
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // JSON writes a finite number as its ToString, as String does.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'object':
      break;
    default:
      return JSON.stringify(value);
  }
  if (value === null) return 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += stableStringify(value[i]);
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = sortedKeys(object);
  let out = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = object[k];
    if (v === undefined) continue;
    if (!first) out += ',';
    out += quotedKey(k);
    out += stableStringify(v);
    first = false;
  }
  return `${out}}`;
}

/**
 * `"key":` texts of the keys seen, up to QUOTED_KEYS_MAX keys of at most QUOTED_KEY_CHARS: a
 * payload's few keys repeat in every record (two fifths of the stringify), while keys a source
 * made up (a JSON column's, a hostile file's) stay out, however long or many they are.
 */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 10_000;
const QUOTED_KEY_CHARS = 64;

function quotedKey(k: string): string {
  let text = quotedKeys.get(k);
  if (text === undefined) {
    text = `${JSON.stringify(k)}:`;
    if (k.length <= QUOTED_KEY_CHARS && quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(k, text);
  }
  return text;
}

/**
 * The object's keys in the default sort's order (UTF-16 code units, as `<` compares): by insertion
 * in place for the few keys of a payload's objects, where Array.prototype.sort's work array was the
 * largest single allocation of a push; the same order, so the same text.
 */
function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

// The one-shot `crypto.hash` (Node 20.12+) gives the same hex as createHash at about half the cost per record; older 20.x fall back.
/** sha256 hex of a text. */
export const sha256: (text: string) => string =
  typeof (crypto as Partial<typeof crypto>).hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** sha256 of the stable JSON of a value. */
export function contentHash(value: unknown): string {
  return sha256(stableStringify(value));
}
