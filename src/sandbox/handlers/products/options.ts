/**
 * The flat `options[]` import (spec: Products import rule 11; shape decided in
 * src/shop/resources/products-options.ts): one entry per SKU. Entries with one value become values
 * of `options{}`, entries with several become combinations of `option_groups[]` (one group per
 * set of options). Options and values are matched by id or by name in the master language and
 * created when unknown (the shop has no option endpoint). Each SKU keeps its id across imports
 * (matched by its values): `products_attributes_id` of a value, `detail_id` of a combination,
 * drawn from one sequence, so `storages[].options_id` names exactly one SKU.
 */
import type { SandboxContext } from '../../handler.js';
import { products } from '../../../shop/resources/products.js';
import { roundNumber } from '../../../util/decimal.js';
import { isRecord, phpFloat, phpInt, RecordError, type RecordScope } from '../../kit.js';

type Entry = Record<string, unknown>;
type Names = Record<string, string>;

/** Create the shop-wide option catalog (the handler's `init`). */
export function initOptionCatalog(ctx: SandboxContext): void {
  ctx.db.exec(
    'CREATE TABLE IF NOT EXISTS product_option_names (kind TEXT NOT NULL, parent INTEGER NOT NULL, name TEXT NOT NULL COLLATE NOCASE, id INTEGER NOT NULL, names TEXT NOT NULL, PRIMARY KEY (kind, parent, name)) WITHOUT ROWID',
  );
}

/** Forget every option and value name (on reset). */
export function clearOptionCatalog(ctx: SandboxContext): void {
  ctx.db.exec('DELETE FROM product_option_names');
}

const FIRST_ID = 100;

/** Every SKU id of a stored product (values of options{}, maintained combinations of option_groups[]). */
export function skuIds(product: Entry): Set<number> {
  const ids = new Set<number>();
  for (const option of Object.values((product.options as Record<string, Entry> | undefined) ?? {})) {
    for (const v of (option.values as Entry[] | undefined) ?? []) if (typeof v.products_attributes_id === 'number') ids.add(v.products_attributes_id);
  }
  for (const g of (product.option_groups as Entry[] | undefined) ?? []) {
    for (const c of (g.combinations as Entry[] | undefined) ?? []) if (typeof c.detail_id === 'number' && c.detail_id > 0) ids.add(c.detail_id);
  }
  return ids;
}

/** SKU ids of a stored product by the key of their value set (`optionId:valueId` pairs, sorted). */
function knownSkus(product: Entry): Map<string, number> {
  const out = new Map<string, number>();
  for (const option of Object.values((product.options as Record<string, Entry> | undefined) ?? {})) {
    for (const v of (option.values as Entry[] | undefined) ?? []) {
      if (typeof v.products_attributes_id === 'number') out.set(skuKey([[option.options_id as number, v.options_values_id as number]]), v.products_attributes_id);
    }
  }
  for (const g of (product.option_groups as Entry[] | undefined) ?? []) {
    for (const c of (g.combinations as Entry[] | undefined) ?? []) {
      const pairs = ((c.values as Entry[] | undefined) ?? []).map((v): [number, number] => [v.options_id as number, v.options_values_id as number]);
      if (typeof c.detail_id === 'number' && c.detail_id > 0) out.set(skuKey(pairs), c.detail_id);
    }
  }
  return out;
}

function skuKey(pairs: readonly (readonly [number, number])[]): string {
  return pairs.map(([o, v]) => `${o}:${v}`).sort().join(',');
}

/** Names of known languages only; unknown codes are dropped with a warning. */
function languageNames(ctx: SandboxContext, raw: unknown, field: string, scope: RecordScope): Names {
  const known = new Set(ctx.reference().languages.map((l) => l.code));
  const out: Names = {};
  if (!isRecord(raw)) return out;
  for (const [code, name] of Object.entries(raw)) {
    if (!known.has(code)) {
      scope.warn('LANGUAGE_NOT_FOUND', `${field}: language ${code} does not exist; that name was ignored`, `${field}.${code}`);
      continue;
    }
    if (typeof name === 'string' && name.trim() !== '') out[code] = name.trim();
  }
  return out;
}

/** The id of an option (parent 0) or value (parent = options_id), created when unknown; its stored names. */
function resolveName(ctx: SandboxContext, kind: 'o' | 'v', parent: number, givenId: unknown, names: Names, field: string): { id: number; names: Names } {
  const master = ctx.reference().master_language;
  if (givenId !== undefined && givenId !== null) {
    const id = phpInt(givenId);
    const row = ctx.sql('SELECT names FROM product_option_names WHERE kind = ? AND parent = ? AND id = ?').get(kind, parent, id) as { names: string } | undefined;
    if (!row) throw new RecordError('INVALID_PAYLOAD', `${field}: ${kind === 'o' ? 'option' : 'option value'} ${id} does not exist${kind === 'v' ? ` for option ${parent}` : ''}; send its name to create it`, field);
    const merged = { ...(JSON.parse(row.names) as Names), ...names };
    ctx.sql('UPDATE product_option_names SET names = ? WHERE kind = ? AND parent = ? AND id = ?').run(JSON.stringify(merged), kind, parent, id);
    return { id, names: merged };
  }
  const key = names[master] ?? Object.values(names)[0];
  if (key === undefined) throw new RecordError('INVALID_PAYLOAD', `${field}: no name in a known language`, field);
  const row = ctx.sql('SELECT id, names FROM product_option_names WHERE kind = ? AND parent = ? AND name = ?').get(kind, parent, key) as { id: number; names: string } | undefined;
  if (row) {
    const merged = { ...(JSON.parse(row.names) as Names), ...names };
    ctx.sql('UPDATE product_option_names SET names = ? WHERE kind = ? AND parent = ? AND name = ?').run(JSON.stringify(merged), kind, parent, key);
    return { id: row.id, names: merged };
  }
  const id = ctx.store.nextSequence(kind === 'o' ? 'product_options' : 'product_option_values', FIRST_ID);
  ctx.sql('INSERT INTO product_option_names (kind, parent, name, id, names) VALUES (?, ?, ?, ?, ?)').run(kind, parent, key, id, JSON.stringify(names));
  return { id, names };
}

const languagesOf = (names: Names): Record<string, { name: string }> => Object.fromEntries(Object.entries(names).map(([code, name]) => [code, { name }]));

interface ResolvedValue {
  readonly optionId: number;
  readonly valueId: number;
  readonly optionNames: Names;
  readonly valueNames: Names;
}

function text(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

/** Apply a flat options[] list: replaces the product's options{} and option_groups[]. */
export function applyOptions(ctx: SandboxContext, product: Entry, value: unknown, scope: RecordScope): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'options must be an array in the flat import format (one entry per SKU)', 'options');
  const known = knownSkus(product);
  const seen = new Set<string>();
  const options: Record<string, Entry> = {};
  const groups = new Map<string, Entry>();
  value.forEach((raw, i) => {
    const at = `options[${i}]`;
    if (!isRecord(raw) || !Array.isArray(raw.values) || raw.values.length === 0) throw new RecordError('INVALID_PAYLOAD', `${at} must be an object with a non-empty values[] list`, at);
    const values: ResolvedValue[] = raw.values.map((rv, j) => {
      const vat = `${at}.values[${j}]`;
      if (!isRecord(rv)) throw new RecordError('INVALID_PAYLOAD', `${vat} must be an object`, vat);
      const option = resolveName(ctx, 'o', 0, rv.options_id, languageNames(ctx, rv.option, `${vat}.option`, scope), `${vat}.option`);
      const val = resolveName(ctx, 'v', option.id, rv.options_values_id, languageNames(ctx, rv.value, `${vat}.value`, scope), `${vat}.value`);
      return { optionId: option.id, valueId: val.id, optionNames: option.names, valueNames: val.names };
    });
    if (new Set(values.map((v) => v.optionId)).size !== values.length) throw new RecordError('INVALID_PAYLOAD', `${at} names the same option twice`, `${at}.values`);
    const key = skuKey(values.map((v) => [v.optionId, v.valueId]));
    if (seen.has(key)) throw new RecordError('INVALID_PAYLOAD', `${at} repeats the option values of an earlier entry; each SKU is listed once`, at);
    seen.add(key);
    const skuId = known.get(key) ?? ctx.store.nextSequence('product_skus', FIRST_ID);
    // Stored with the places the registry gives options[] (price 4, quantity 8), as the shop's columns keep them.
    const price = roundNumber(phpFloat(raw.price ?? 0), products.decimalScales['options[].price'] ?? 4);
    const sku = { model: text(raw.model), ean: text(raw.ean), quantity: roundNumber(phpFloat(raw.quantity ?? 0), products.decimalScales['options[].quantity'] ?? 8) };
    const sortOrder = raw.sort_order === undefined ? i + 1 : phpInt(raw.sort_order);
    if (values.length === 1) {
      const [v] = values;
      const option = (options[String(v.optionId)] ??= { options_id: v.optionId, type: 0, languages: languagesOf(v.optionNames), values: [] });
      (option.values as Entry[]).push({
        options_values_id: v.valueId, products_attributes_id: skuId, languages: languagesOf(v.valueNames),
        price_prefix: price < 0 ? '-' : '+', price: Math.abs(price), default: phpInt(raw.default ?? 0) === 1 ? 1 : 0, ...sku, sort_order: sortOrder,
      });
      return;
    }
    // One group per set of options, in the order the first entry of the set names them.
    const setKey = values.map((v) => v.optionId).sort((a, b) => a - b).join(',');
    let group = groups.get(setKey);
    if (!group) {
      group = { group: groups.size + 1, options: values.map((v) => ({ id: v.optionId, languages: languagesOf(v.optionNames) })), combinations: [] };
      groups.set(setKey, group);
    }
    const order = (group.options as Entry[]).map((o) => o.id as number);
    const ordered = [...values].sort((a, b) => order.indexOf(a.optionId) - order.indexOf(b.optionId));
    (group.combinations as Entry[]).push({
      detail_id: skuId,
      values: ordered.map((v) => ({ options_id: v.optionId, options_values_id: v.valueId, languages: languagesOf(v.valueNames) })),
      ...sku, price, sort_id: sortOrder,
    });
  });
  product.options = options;
  product.option_groups = [...groups.values()];
}
