/**
 * The difference between a payload and the shop's current record, as a dry run shows it: only
 * the fields the payload sends (what the shop does not get sent stays as it is), flattened to
 * dot paths, with `'12.50'` and `12.5` counted as equal (the shop exports decimals as numbers).
 */
import { stableStringify } from './hash.js';

/** One changed field. */
export interface FieldChange {
  readonly shop: unknown;
  readonly next: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function normalise(v: unknown): unknown {
  if (typeof v === 'string' && v.trim() !== '' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(normalise);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x)]));
  return v;
}

/** Fields of `next` whose value differs from `shop`, keyed by dot path. */
export function payloadDiff(shop: Record<string, unknown> | undefined, next: Record<string, unknown>, prefix = ''): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  for (const [field, value] of Object.entries(next)) {
    const path = prefix ? `${prefix}.${field}` : field;
    const current = shop?.[field];
    if (isPlainObject(value) && isPlainObject(current)) {
      Object.assign(out, payloadDiff(current, value, path));
      continue;
    }
    if (stableStringify(normalise(current)) !== stableStringify(normalise(value))) out[path] = { shop: current, next: value };
  }
  return out;
}
