/**
 * The difference between a payload and the shop's current record, as a dry run shows it: only
 * the fields the payload sends (what the shop does not get sent stays as it is), flattened to
 * dot paths, with `'12.50'` and `12.5` counted as equal (the shop exports decimals as numbers).
 * List fields follow the registry's write semantics: upsert entries are matched by their entry key
 * and compared only on the fields the entry sends (exports carry extra fields such as
 * `customers_group_price_gross` or `suppliers_name` that are never written); a replace list of
 * scalars ignores order (category ids come back sorted).
 */
import type { ListFieldDef } from '../shop/registry/index.js';
import { canonicalDecimal, numberText } from '../util/decimal.js';
import { isRecord } from '../util/guards.js';
import { stableStringify } from './hash.js';

/** One changed field. */
export interface FieldChange {
  readonly shop: unknown;
  readonly next: unknown;
}

/** The resource's list fields by name (`ResourceDef.lists`). */
export type ListDefs = Readonly<Record<string, ListFieldDef>>;

// Decimals compare by their exact decimal value (`'12.3450'`, `'12.345'` and 12.345 are one value), not as doubles:
// two 17-digit quantities that one double cannot tell apart are still different.
function normalise(v: unknown): unknown {
  if (typeof v === 'string' && v.trim() !== '' && /^-?\d+(\.\d+)?$/.test(v.trim())) return canonicalDecimal(v) ?? v;
  if (typeof v === 'number') return numberText(v) ?? v;
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(normalise);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x)]));
  return v;
}

const same = (a: unknown, b: unknown): boolean => stableStringify(normalise(a)) === stableStringify(normalise(b));
const absent = (v: unknown): boolean => v === undefined || v === null || v === '' || v === 0 || v === '0';

/** The shop entry a sent entry writes to: equal on every key field the entry sends, preferring one whose other key fields are empty. */
function matchEntry(shop: readonly unknown[], entry: Record<string, unknown>, key: readonly string[]): Record<string, unknown> | undefined {
  const sent = key.filter((k) => entry[k] !== undefined && entry[k] !== null);
  if (sent.length === 0) return undefined;
  const candidates = shop.filter(isRecord).filter((s) => sent.every((k) => same(s[k], entry[k])));
  return candidates.find((s) => key.every((k) => sent.includes(k) || absent(s[k]))) ?? candidates[0];
}

/** Entries matched by key, compared on their sent fields; unmatched entries are new, delete markers change what they match. */
function keyedDiff(current: readonly unknown[], sent: readonly unknown[], key: readonly string[], path: string, del?: { field: string; value: string }): { changes: Record<string, FieldChange>; unmatched: unknown[] } | undefined {
  const out: Record<string, FieldChange> = {};
  const matched = new Set<unknown>();
  for (const [i, entry] of sent.entries()) {
    if (!isRecord(entry)) return undefined;
    const at = `${path}[${i}]`;
    const match = matchEntry(current, entry, key);
    if (match) matched.add(match);
    if (del && entry[del.field] === del.value) {
      if (match) out[at] = { shop: match, next: entry };
    } else if (!match) out[at] = { shop: undefined, next: entry };
    else Object.assign(out, payloadDiff(match, entry, {}, at));
  }
  // Unmatched shop entries only matter when the list replaces (customers_prices_replace): they would go.
  return { changes: out, unmatched: current.filter((s) => !matched.has(s)) };
}

function listDiff(current: unknown, sent: readonly unknown[], def: ListFieldDef, path: string, record: Record<string, unknown>): Record<string, FieldChange> {
  const whole = (): Record<string, FieldChange> => (same(current, sent) ? {} : { [path]: { shop: current, next: sent } });
  const shop = Array.isArray(current) ? (current as unknown[]) : [];
  const s = def.semantics;
  if (s.kind === 'upsert' || s.kind === 'append-only') {
    const key = s.kind === 'upsert' ? s.entryKey : s.identity;
    const keyed = keyedDiff(shop, sent, key, path, s.kind === 'upsert' ? s.deleteAction : undefined);
    if (!keyed) return whole();
    const replaces = s.kind === 'upsert' && s.replaceFlag !== undefined && record[s.replaceFlag] === true;
    if (replaces && keyed.unmatched.length > 0) return { ...keyed.changes, [`${path}[removed]`]: { shop: keyed.unmatched, next: undefined } };
    return keyed.changes;
  }
  if (s.kind === 'replace') {
    if (sent.some((e) => e !== null && typeof e === 'object')) {
      if (shop.length !== sent.length) return whole();
      const out: Record<string, FieldChange> = {};
      for (const [i, entry] of sent.entries()) {
        if (isRecord(entry) && isRecord(shop[i])) Object.assign(out, payloadDiff(shop[i] as Record<string, unknown>, entry, {}, `${path}[${i}]`));
        else if (!same(shop[i], entry)) out[`${path}[${i}]`] = { shop: shop[i], next: entry };
      }
      return out;
    }
    const sorted = (l: readonly unknown[]) => l.map((v) => stableStringify(normalise(v))).sort();
    return Array.isArray(current) && same(sorted(shop), sorted(sent)) ? {} : { [path]: { shop: current, next: sent } };
  }
  return whole();
}

/**
 * Whether the shop's value is the emptied form of a sent empty value at a path (an EAN cleared with ''
 * the export shows as null): the registry's `emptyAlike` (../shop/registry `clearedAlike`).
 */
export type EmptyAlike = (path: string, shop: unknown, next: unknown) => boolean;

/** Fields of `next` whose value differs from `shop`, keyed by dot path; `lists` (the resource's list fields) says how list fields are written. */
export function payloadDiff(shop: Record<string, unknown> | undefined, next: Record<string, unknown>, lists: ListDefs = {}, prefix = '', emptyAlike?: EmptyAlike): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  // A replace flag (customers_prices_replace) directs the write and is never stored: its effect shows on its list.
  const flags = new Set(Object.values(lists).flatMap((l) => (l.semantics.kind === 'upsert' && l.semantics.replaceFlag ? [l.semantics.replaceFlag] : [])));
  for (const [field, value] of Object.entries(next)) {
    if (flags.has(field)) continue;
    const path = prefix ? `${prefix}.${field}` : field;
    const current = shop?.[field];
    const list = Object.hasOwn(lists, field) ? lists[field] : undefined;
    if (Array.isArray(value) && list) {
      Object.assign(out, listDiff(current, value, list, path, next));
      continue;
    }
    if (isRecord(value) && isRecord(current)) {
      Object.assign(out, payloadDiff(current, value, {}, path, emptyAlike));
      continue;
    }
    if (!same(current, value) && !(emptyAlike && emptyAlike(path, current, value))) out[path] = { shop: current, next: value };
  }
  return out;
}
