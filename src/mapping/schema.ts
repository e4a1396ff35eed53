/**
 * The mapping file format, as zod schemas. Every key is documented in docs/mappings.md.
 * The schemas are strict: a misspelt rule key (`defualt:`) is an error, never silently ignored.
 */
import { z } from 'zod';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** A JSON-ish constant (scalars, lists, objects). */
const constant: z.ZodType<unknown> = z.lazy(() => z.union([scalar, z.array(constant), z.record(z.string(), constant)]));

/** Dot path into the source record; `$root.` climbs to the whole record from inside a list. */
const sourcePath = z.string().min(1, { message: 'expected a source path like `Artikel.Nummer`' });

export const decimalLocale = z.enum(['de', 'en', 'point', 'comma'], {
  message: 'expected a decimal locale: de (1.234,50), en (1,234.50), point (1234.50) or comma (1234,50)',
});
export type DecimalLocale = z.infer<typeof decimalLocale>;

export const coercionType = z.enum(['string', 'integer', 'decimal', 'boolean', 'flag', 'date', 'datetime', 'number'], {
  message: 'expected a type: string, integer, decimal, number, boolean (JSON true/false), flag (0/1), date or datetime',
});
export type CoercionType = z.infer<typeof coercionType>;

/** A condition on the source record; a list means all must hold. */
export const conditionSchema = z.strictObject({
  from: sourcePath,
  equals: scalar.optional(),
  not_equals: scalar.optional(),
  in: z.array(scalar).optional(),
  not_in: z.array(scalar).optional(),
  /** true: the value is present and not empty; false: missing, null or ''. */
  present: z.boolean().optional(),
});
export type Condition = z.infer<typeof conditionSchema>;

export const lookupSchema = z.union([
  /** Name of a lookup under the pull pipeline's `lookups:` (an ERP search: product id by code, party by e-mail). */
  z.string().regex(/^[A-Za-z0-9_.-]+$/, { message: 'expected the name of a lookup under the pipeline\'s `lookups:`' }),
  z.strictObject({
    /** Resource whose external references translate an ERP key into a shop id. */
    reference: z.string().min(1),
  }),
  z.strictObject({
    /** Name of a table under the mapping's `tables:`. */
    table: z.string().min(1),
  }),
]);

/** A scalar rule's empty policy (docs/mappings.md "Empty values"). */
export type WhenEmpty = 'keep' | 'clear' | 'refuse';

/** Who decides a field once the record exists (docs/mappings.md "Who owns a field"; compiled in owners.ts). */
export type FieldOwner = 'erp' | 'shop' | 'guard';

const ruleShape = {
  from: sourcePath.optional(),
  value: constant.optional(),
  default: constant.optional(),
  template: z.string().min(1).optional(),
  expr: z.string().min(1).optional(),
  type: coercionType.optional(),
  locale: decimalLocale.optional(),
  /** Fraction digits a decimal keeps (rounded half-up); overrides the registry's scale of the target field (docs/mappings.md "Decimals"). */
  scale: z.number().int().min(0).max(30, { message: 'expected a scale of at most 30 places' }).optional(),
  format: z.string().min(1).optional(),
  timezone: z.string().min(1).optional(),
  output_format: z.string().min(1).optional(),
  output_timezone: z.string().min(1).optional(),
  true: z.array(scalar).min(1).optional(),
  false: z.array(scalar).min(1).optional(),
  trim: z.boolean().optional(),
  case: z.enum(['upper', 'lower']).optional(),
  truncate: z.number().int().positive().optional(),
  map: z.record(z.string(), constant).optional(),
  lookup: lookupSchema.optional(),
  when: z.union([conditionSchema, z.array(conditionSchema).min(1)]).optional(),
  required: z.boolean().optional(),
  /** The source may lack the column this rule reads (it then reads as empty); otherwise a missing column fails the run (MAPPING_SOURCE_COLUMN_MISSING). */
  optional: z.boolean().optional(),
  /** A treat-as-missing list: values like '' or '0000-00-00' that mean "no value" in the ERP. */
  null_values: z.array(scalar).optional(),
  /** What an empty source value (missing, NULL, blank, a `null_values` entry) does: `keep` (omit: the shop keeps its value), `clear` (send the field's empty value from the registry) or `refuse` (the record fails). Absent: docs/mappings.md "Empty values". */
  when_empty: z.enum(['keep', 'clear', 'refuse'], { message: 'expected when_empty: keep (the shop keeps its value), clear (the shop\'s value is emptied) or refuse (the record is refused)' }).optional(),
  // list building
  each: sourcePath.optional(),
  split: z.string().min(1).optional(),
  /** A folder whose files are the list's entries (`bilder/{ARTNR}`; relative to the mapping file); an unreadable folder refuses the record. */
  folder: z.string().min(1).optional(),
  /** File extensions a `folder` list takes. @default [jpg, jpeg, png, gif, webp] */
  extensions: z.array(z.string().min(1)).min(1).optional(),
  group_by: z.union([sourcePath, z.array(sourcePath).min(1)]).optional(),
  sort_by: sourcePath.optional(),
  where: z.union([conditionSchema, z.array(conditionSchema).min(1)]).optional(),
  steps: z
    .strictObject({
      /** 1-based row of the group where the steps start (the rows before feed the entry's own fields). @default 2 */
      from_row: z.number().int().positive().optional(),
      max: z.number().int().positive(),
      fields: z.record(z.string(), z.lazy((): z.ZodType<unknown> => ruleSchema)),
    })
    .optional(),
  /** What an empty produced list means: `refuse` (default for replace-on-present lists), `clear` (send []) or `omit` (leave untouched). */
  empty: z.enum(['refuse', 'clear', 'omit']).optional(),
  /** What a missing/null list source means: `refuse` (default) or `omit` (absent = untouched). */
  when_missing: z.enum(['refuse', 'omit']).optional(),
  /** storages[]: rows are known to exist in the shop, so they may omit quantity/safety stock. */
  existing_rows_only: z.boolean().optional(),
  /**
   * Who decides the field once the record exists: `erp` (every update sends the ERP's value, over any
   * edit in the shop), `shop` (sent on create only) or `guard` (an edit in the shop is kept and
   * reported as a conflict). @default erp
   */
  owner: z.enum(['erp', 'shop', 'guard'], { message: 'expected owner: erp (updates overwrite the shop), shop (sent on create only) or guard (an edit made in the shop is kept and reported as a conflict)' }).optional(),
};

export interface RuleObject {
  from?: string;
  value?: unknown;
  default?: unknown;
  template?: string;
  expr?: string;
  type?: CoercionType;
  locale?: DecimalLocale;
  scale?: number;
  format?: string;
  timezone?: string;
  output_format?: string;
  output_timezone?: string;
  true?: (string | number | boolean | null)[];
  false?: (string | number | boolean | null)[];
  trim?: boolean;
  case?: 'upper' | 'lower';
  truncate?: number;
  map?: Record<string, unknown>;
  lookup?: string | { reference: string } | { table: string };
  when?: Condition | Condition[];
  required?: boolean;
  optional?: boolean;
  null_values?: (string | number | boolean | null)[];
  when_empty?: WhenEmpty;
  each?: string;
  split?: string;
  folder?: string;
  extensions?: string[];
  group_by?: string | string[];
  sort_by?: string;
  where?: Condition | Condition[];
  steps?: { from_row?: number; max: number; fields: Record<string, RuleInput> };
  empty?: 'refuse' | 'clear' | 'omit';
  when_missing?: 'refuse' | 'omit';
  existing_rows_only?: boolean;
  owner?: FieldOwner;
  item?: RuleInput;
  fields?: Record<string, RuleInput>;
}
/** A rule as written: a bare string is shorthand for `{ from: <path> }`. */
export type RuleInput = string | RuleObject;

export const ruleObjectSchema: z.ZodType<RuleObject> = z.strictObject({
  ...ruleShape,
  /** Rule for each element of a scalar list (`each` or `split`). */
  item: z.lazy((): z.ZodType<RuleInput> => ruleSchema).optional(),
  /** Rules for each entry of a list of objects, or for the fields of a nested object. */
  fields: z.record(z.string(), z.lazy((): z.ZodType<RuleInput> => ruleSchema)).optional(),
}) as z.ZodType<RuleObject>;

export const ruleSchema: z.ZodType<RuleInput> = z.union([sourcePath, ruleObjectSchema]);

/** `key: { surrogate: ID, natural: ARTNR }`: the ERP's stable id beside the number it may change (issue 46). */
export const surrogateKeySchema = z.strictObject({
  /** Source path of the ERP's stable id of the record (never changes, never reused): the ERP key references are kept by. */
  surrogate: sourcePath,
  /** Source path of the record's number (the article number the shop knows it by); references kept by it before are adopted. */
  natural: sourcePath,
});

const erpToShopTarget = z.strictObject({
  resource: z.string().min(1),
  operation: z.enum(['upsert', 'create', 'update'], { message: 'expected operation upsert, create or update' }),
});
const shopToErpTarget = z.strictObject({
  /** Name of the ERP record shape (a staging table, a file) the rows are written to. */
  erp: z.string().min(1),
  /** Fields that every produced row must carry. */
  required: z.array(z.string().min(1)).optional(),
});

export const mappingFileSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, { message: 'expected a name of lower-case letters, digits, - and _' }),
    description: z.string().optional(),
    direction: z.enum(['erp-to-shop', 'shop-to-erp'], { message: 'expected direction erp-to-shop or shop-to-erp' }),
    /** shop→erp: the shop resource whose export records are the input. */
    source: z.strictObject({ resource: z.string().min(1) }).optional(),
    target: z.union([erpToShopTarget, shopToErpTarget]),
    /**
     * The record's ERP key (a source path). `{ surrogate, natural }`: the ERP's stable id (references are kept by it,
     * the source's `key:` names the same column) beside the article number, so a changed number renames the shop
     * record instead of making a new one (docs/mappings.md "A stable ERP id").
     */
    key: z.union([sourcePath, surrogateKeySchema], { message: 'expected a source path like `ARTNR`, or `{ surrogate: <id column>, natural: <article number column> }`' }),
    shop_key: z.string().min(1).optional(),
    history_identity: z.array(z.string().min(1)).min(1).optional(),
    /** Top-level target fields a pipeline sends only when it creates the record (e.g. customer addresses). */
    create_only: z.array(z.string().min(1)).min(1).optional(),
    /** Records the registry refuses to create by default that this file means to create (products: `zero_price`). */
    allow: z.array(z.string().min(1)).min(1).optional(),
    /** Source fields that, with `key`, tell apart several records of one key (flat rows that each carry one part, e.g. one storage row per Lager). */
    row_key: z.array(sourcePath).min(1).optional(),
    /**
     * What two different source records of one key (or of one `shop_key`) in one read are: `refuse` dead-letters
     * both (SOURCE_DUPLICATE_KEY) and leaves the shop record alone; `latest` takes them as versions, the later one
     * wins (a table of stock movements). @default refuse
     */
    /**
     * What the stock fields it writes are (issue 43, docs/catalog.md "Stock and orders in flight"): `reserved`
     * (the ERP's on-hand figure; the pipeline's `reservations:` subtracts the shop's orders the ERP has not booked)
     * or `available` (the ERP figure already is what can be sold; nothing is subtracted). Absent on a mapping that
     * writes stock: warning STOCK_CHOICE_MISSING.
     */
    stock: z.enum(['reserved', 'available'], { message: 'expected stock: reserved (subtract unbooked shop orders; needs the pipeline\'s reservations:) or available (the ERP figure already is what can be sold)' }).optional(),
    duplicates: z.enum(['refuse', 'latest'], { message: 'expected duplicates: refuse (two records of one key are an error) or latest (they are versions, the later wins)' }).optional(),
    /** Defaults for every rule of the file. */
    locale: decimalLocale.optional(),
    timezone: z.string().min(1).optional(),
    shop_timezone: z.string().min(1).optional(),
    true: z.array(scalar).min(1).optional(),
    false: z.array(scalar).min(1).optional(),
    tables: z.record(z.string(), z.record(z.string(), constant)).optional(),
    /** The budget of every evaluation of the file's `expr` rules (defaults in expr.ts: 1000 ms, depth 1000); one over it fails its record with MAPPING_EXPR_BUDGET. */
    expr_limits: z
      .strictObject({
        time_ms: z.number().int().min(1).max(60_000, { message: 'expected at most 60000 ms (a minute per record)' }).optional(),
        depth: z.number().int().min(10).max(100_000, { message: 'expected a depth of at most 100000' }).optional(),
      })
      .optional(),
    fields: z.record(z.string(), ruleSchema),
  })
  .superRefine((m, ctx) => {
    const erpTarget = 'erp' in m.target;
    if (m.direction === 'erp-to-shop' && erpTarget) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'an erp-to-shop mapping targets a shop resource: `target: { resource: products, operation: upsert }`' });
    }
    if (m.direction === 'shop-to-erp' && !erpTarget) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'a shop-to-erp mapping targets an ERP row shape: `target: { erp: erp_orders }`' });
    }
    if (m.direction === 'shop-to-erp' && !m.source) {
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'a shop-to-erp mapping names the shop resource it reads: `source: { resource: orders }`' });
    }
  });
export type MappingFile = z.infer<typeof mappingFileSchema>;
