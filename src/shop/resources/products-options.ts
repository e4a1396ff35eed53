/**
 * Product variants (spec: Products › options{}, option_groups[]; import rule 11). The import takes
 * a flat `options[]` list whose shape the spec does not show; the export groups the same SKUs as
 * `options{}` (one option, SKU data per value) and `option_groups[]` (SKU data per combination).
 * The flat shape is decided here, once (docs/spec-gaps.md, "Variants"): one entry per SKU, naming
 * its option values. `flatOptionsOf` converts an export back into it, as rule 11 asks the client to.
 */
import { z } from 'zod';
import { decimal, decimalOut, flag01, languageCode, positiveId } from '../schema/common.js';

/** Names per language code (`{de: 'Farbe', en: 'Colour'}`). */
const names = z.record(languageCode, z.string().min(1));

/** One option value of a flat entry: by id, or by name (the shop matches names in its master language and creates unknown ones). */
export const flatOptionValueWrite = z
  .strictObject({
    options_id: positiveId.optional(),
    options_values_id: positiveId.optional(),
    /** Option (attribute) name per language, e.g. `{de: Farbe, en: Colour}`. */
    option: names.optional(),
    /** Value name per language, e.g. `{de: Rot, en: Red}`. */
    value: names.optional(),
  })
  .refine((v) => v.options_id !== undefined || (v.option !== undefined && Object.keys(v.option).length > 0), { message: 'an option value needs options_id or the option name (`option: {de: …}`)' })
  .refine((v) => v.options_values_id !== undefined || (v.value !== undefined && Object.keys(v.value).length > 0), { message: 'an option value needs options_values_id or the value name (`value: {de: …}`)' });

/**
 * One entry of the flat `options[]` import: one SKU. One value = a value of an attribute without
 * group (exported in `options{}`); several values = a combination of an attribute group
 * (exported in `option_groups[]`, one group per set of options).
 */
export const flatOptionWrite = z.strictObject({
  values: z.array(flatOptionValueWrite).min(1, { message: 'a variant names at least one option value' }),
  /** The SKU's own article number. */
  model: z.string().optional(),
  ean: z.string().optional(),
  /** Stock of the SKU (main warehouse); per-warehouse stock goes to `storages[]` with the SKU's id as `options_id`. */
  quantity: decimal.optional(),
  /** Signed price surcharge (net); exported as `price_prefix` + `price` in `options{}`, as `price` of the combination. */
  price: decimal.optional(),
  sort_order: z.number().int().optional(),
  /** Preselected value (single-option SKUs only). */
  default: flag01.optional(),
});

export type FlatOptionWrite = z.infer<typeof flatOptionWrite>;

/** A value of a flat entry as read back from an export: ids and names. */
export interface FlatOptionValue {
  readonly options_id: number;
  readonly options_values_id: number;
  readonly option: Readonly<Record<string, string>>;
  readonly value: Readonly<Record<string, string>>;
}

/** A flat entry as read back from an export; `sku_id` is the id `storages[].options_id` takes (export only). */
export interface FlatOption {
  readonly sku_id: number;
  readonly values: readonly FlatOptionValue[];
  readonly model: string;
  readonly ean: string;
  readonly quantity: number;
  readonly price: number;
  readonly sort_order: number;
  readonly default?: 0 | 1;
}

const langNames = z.record(z.string(), z.looseObject({ name: z.string().nullable().optional() }));
const num = z.union([decimalOut, z.null()]).optional();

/** An `options{}` entry as exported (keyed by options_id). */
export const optionExport = z.looseObject({
  options_id: z.number(),
  type: z.number().optional(),
  languages: langNames.optional(),
  values: z.array(
    z.looseObject({
      options_values_id: z.number(),
      products_attributes_id: z.number().optional(),
      languages: langNames.optional(),
      price_prefix: z.string().optional(),
      price: num,
      default: num,
      model: z.string().nullable().optional(),
      ean: z.string().nullable().optional(),
      quantity: num,
      sort_order: z.number().nullable().optional(),
    }),
  ),
});

/** An `option_groups[]` entry as exported (spec: Option group shape). */
export const optionGroupExport = z.looseObject({
  group: z.number(),
  options: z.array(z.looseObject({ id: z.number(), languages: langNames.optional() })),
  combinations: z.array(
    z.looseObject({
      detail_id: z.number(),
      values: z.array(z.looseObject({ options_id: z.number(), options_values_id: z.number(), languages: langNames.optional() })),
      model: z.string().nullable(),
      ean: z.string().nullable(),
      quantity: num,
      price: num,
      sort_id: z.number().nullable(),
    }),
  ),
});

function nameMap(languages: z.infer<typeof langNames> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [code, block] of Object.entries(languages ?? {})) if (typeof block.name === 'string' && block.name !== '') out[code] = block.name;
  return out;
}

function toNumber(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/**
 * The flat entries of an exported product: every value of `options{}` and every maintained
 * combination of `option_groups[]` (`detail_id` 0 with empty SKU fields is "nothing maintained"
 * and left out), ordered by their sort order. Entries that do not parse are skipped.
 */
export function flatOptionsOf(record: Readonly<Record<string, unknown>>): FlatOption[] {
  const out: { entry: FlatOption; at: number }[] = [];
  const options = record.options;
  if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
    for (const raw of Object.values(options)) {
      const parsed = optionExport.safeParse(raw);
      if (!parsed.success) continue;
      const o = parsed.data;
      for (const v of o.values) {
        const surcharge = toNumber(v.price);
        out.push({
          at: out.length,
          entry: {
            sku_id: v.products_attributes_id ?? 0,
            values: [{ options_id: o.options_id, options_values_id: v.options_values_id, option: nameMap(o.languages), value: nameMap(v.languages) }],
            model: v.model ?? '',
            ean: v.ean ?? '',
            quantity: toNumber(v.quantity),
            price: v.price_prefix === '-' ? -surcharge : surcharge,
            sort_order: v.sort_order ?? 0,
            default: toNumber(v.default) === 1 ? 1 : 0,
          },
        });
      }
    }
  }
  for (const raw of Array.isArray(record.option_groups) ? record.option_groups : []) {
    const parsed = optionGroupExport.safeParse(raw);
    if (!parsed.success) continue;
    const g = parsed.data;
    const optionNames = new Map(g.options.map((o) => [o.id, nameMap(o.languages)]));
    for (const c of g.combinations) {
      if (c.detail_id === 0 && !c.model && !c.ean) continue;
      out.push({
        at: out.length,
        entry: {
          sku_id: c.detail_id,
          values: c.values.map((v) => ({ options_id: v.options_id, options_values_id: v.options_values_id, option: optionNames.get(v.options_id) ?? {}, value: nameMap(v.languages) })),
          model: c.model ?? '',
          ean: c.ean ?? '',
          quantity: toNumber(c.quantity),
          price: toNumber(c.price),
          sort_order: c.sort_id ?? 0,
        },
      });
    }
  }
  return out.sort((a, b) => a.entry.sort_order - b.entry.sort_order || a.at - b.at).map((e) => e.entry);
}

/** Flat entries as the import takes them again (ids kept, the export-only `sku_id` dropped). */
export function flatOptionsForImport(entries: readonly FlatOption[]): FlatOptionWrite[] {
  return entries.map(({ sku_id: _sku, values, ...rest }) => ({ ...rest, values: values.map((v) => ({ ...v, option: { ...v.option }, value: { ...v.value } })) }));
}

/** One row per SKU and option value (the relational layout of ERP variant tables); `position` is 1-based within the SKU. */
export interface FlatOptionRow {
  readonly sku_id: number;
  readonly model: string;
  readonly ean: string;
  readonly quantity: number;
  readonly price: number;
  readonly sort_order: number;
  readonly position: number;
  readonly options_id: number;
  readonly options_values_id: number;
  readonly option: Readonly<Record<string, string>>;
  readonly value: Readonly<Record<string, string>>;
}

/** The flat entries of an exported product, one row per SKU and option value. */
export function flatOptionRowsOf(record: Readonly<Record<string, unknown>>): FlatOptionRow[] {
  return flatOptionsOf(record).flatMap((e) =>
    e.values.map((v, i) => ({ sku_id: e.sku_id, model: e.model, ean: e.ean, quantity: e.quantity, price: e.price, sort_order: e.sort_order, position: i + 1, ...v })),
  );
}
