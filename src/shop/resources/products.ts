/** Products: the catalog's main resource (spec: Resources › Products; Endpoints › Products). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flatOptionRowsOf, flatOptionsOf, flatOptionWrite } from './products-options.js';
import { date, datetime, decimal, decimalOut, flag01, flagOut, id, languagesOut, languagesWrite, maxString, positiveId, strictBoolean } from '../schema/common.js';

const languageBlock = {
  products_name: z.string(),
  products_description: z.string(),
  products_short_description: z.string(),
  products_head_title_tag: z.string(),
  products_head_desc_tag: z.string(),
  products_head_keywords_tag: z.string(),
  seo_name: z.string(),
  products_url: z.string(),
  products_checkout_description: z.string(),
  products_image_title: z.string(),
};

/** Price-step fields products_price1..N with their _qty companions. */
function priceSteps(n: number): z.ZodRawShape {
  const shape: Record<string, z.ZodType> = {};
  for (let i = 1; i <= n; i++) {
    shape[`products_price${i}`] = decimal;
    shape[`products_price${i}_qty`] = decimal;
  }
  return shape;
}

export const groupPriceWrite = z.strictObject({
  customers_group_id: positiveId,
  customers_group_price: decimal.optional(),
  ...z.object(priceSteps(8)).partial().shape,
});

export const customerPriceWrite = z.strictObject({
  customers_id: positiveId.optional(),
  customers_id_extern: z.string().min(1).optional(),
  customers_price: decimal.optional(),
  price: decimal.optional(),
  products_qty_blocks: decimal.optional(),
  products_min_qty: decimal.optional(),
  products_max_qty: decimal.optional(),
  _action: z.literal('delete').optional(),
  ...z.object(priceSteps(12)).partial().shape,
});

export const specialWrite = z.strictObject({
  specials_price_id: id.optional(),
  customers_group_id: id.optional(),
  specials_new_products_price: decimal.optional(),
  discount_percent: decimal.optional(),
  specials_begin: datetime.optional(),
  specials_end: datetime.optional(),
  specials_price_name: z.record(z.string(), z.string()).optional(),
  specials_type: z.union([z.string(), z.number()]).optional(),
  status: flag01.optional(),
  action: z.literal('delete').optional(),
});

export const storageWrite = z.strictObject({
  storages_id: positiveId.optional(),
  warehouse_id: positiveId.optional(),
  products_quantity: decimal.nullable().optional(),
  products_safe_quantity: decimal.nullable().optional(),
  products_reorder_level: decimal.nullable().optional(),
  products_storage_text: maxString(50, 'products_storage_text (bin location)').nullable().optional(),
  options_id: id.optional(),
});

export const supplierAssignmentWrite = z.strictObject({
  suppliers_id: positiveId,
  products_model: z.string().optional(),
});

const upsellWrite = z.union([z.string().min(1), z.strictObject({ products_model: z.string().min(1), sort_order: z.number().int().optional() })]);

const imageWrite = z.strictObject({
  image: z.string().min(1),
  sort_order: z.number().int().optional(),
  alt: z.record(z.string(), z.string()).optional(),
});

const looseList = z.array(z.looseObject({}));

const scalarWrite = {
  products_id: positiveId,
  products_model: z.string().min(1),
  products_ean: z.string(),
  products_price: decimal,
  products_weight: decimal,
  products_quantity: decimal,
  products_cost: decimal,
  manufacturers_id: id,
  products_status: flag01,
  contract: flag01,
  contract_use_current_price: flag01,
  contract_option: z.union([z.string(), z.number()]),
  products_inventory_management: flag01,
  products_min_qty: decimal,
  products_max_qty: decimal,
  products_qty_blocks: decimal,
  products_base_price: decimal,
  service: flag01,
  sitemap: flag01,
  non_cart: flag01,
  non_price: flag01,
  products_free_shipping: flag01,
  shipping_profile: id,
  products_unit_id: id,
  base_unit_id: id,
  products_sort_order: z.number().int(),
  warranty_period: z.union([z.number().int().nonnegative(), z.literal('')]),
  warranty_type: z.union([z.literal('physical'), z.literal('digital'), z.literal('')]),
  products_api: z.string(),
  products_reorder_level: decimal,
  products_safe_quantity: decimal,
  products_date_available: date,
};

const productWrite = z
  .strictObject({
    ...scalarWrite,
    languages: languagesWrite(languageBlock),
    images: z.array(imageWrite),
    categories: z.array(id),
    groups: z.array(groupPriceWrite),
    customers_prices: z.array(customerPriceWrite),
    customers_prices_replace: strictBoolean,
    specials: z.array(specialWrite),
    extra_fields: looseList,
    badges: looseList,
    xsells: z.array(z.union([z.string(), z.number(), z.looseObject({})])),
    upsells: z.array(upsellWrite),
    tabs: looseList,
    videos: looseList,
    downloads: z.array(z.looseObject({ d_src: z.string() })),
    suppliers: z.array(supplierAssignmentWrite),
    storages: z.array(storageWrite),
    options: z.array(flatOptionWrite),
    contenteditor: z.record(z.string(), z.unknown()),
  })
  .partial();

const optionGroup = z.looseObject({
  group: z.number(),
  options: z.array(z.looseObject({ id: z.number(), languages: z.record(z.string(), z.looseObject({ name: z.string() })) })),
  combinations: z.array(
    z.looseObject({
      detail_id: z.number(),
      values: z.array(z.looseObject({ options_id: z.number(), options_values_id: z.number() })),
      model: z.string().nullable(),
      ean: z.string().nullable(),
      quantity: decimalOut.nullable(),
      price: decimalOut.nullable(),
      sort_id: z.number().nullable(),
    }),
  ),
});

const productRecord = z.looseObject({
  products_id: z.number(),
  products_model: z.string().nullable(),
  products_ean: z.string().nullable().optional(),
  products_price: decimalOut.optional(),
  products_quantity: decimalOut.optional(),
  products_status: flagOut.optional(),
  manufacturers_id: z.number().nullable().optional(),
  languages: languagesOut(languageBlock).optional(),
  categories: z.array(z.number()).optional(),
  groups: z.array(z.looseObject({ customers_group_id: z.number() })).optional(),
  customers_prices: z.array(z.looseObject({})).optional(),
  specials: z.array(z.looseObject({})).optional(),
  suppliers: z.array(z.looseObject({ suppliers_id: z.number(), products_model: z.string().nullable(), suppliers_name: z.string().optional() })).optional(),
  storages: z.array(z.looseObject({ storages_id: z.number(), options_id: z.number(), products_quantity: decimalOut.nullable() })).optional(),
  images: z.array(z.looseObject({ image: z.string() })).optional(),
  option_groups: z.array(optionGroup).optional(),
  options: z.unknown().optional(),
});

/** Prices keep 4 places (a spec gap: the sandbox's prices and modified eCommerce's price columns), quantities 8 (spec: decimal(16,8)). */
const PRICE = 4;
const QUANTITY = 8;

/** Price steps products_price1..N (prices) with their _qty companions (quantities) of a list entry. */
function stepScales(list: string, n: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 1; i <= n; i++) {
    out[`${list}[].products_price${i}`] = PRICE;
    out[`${list}[].products_price${i}_qty`] = QUANTITY;
  }
  return out;
}

/** Every decimal field of a product with the places the shop stores (docs/spec-gaps.md "Decimal scales"). */
const DECIMAL_SCALES: Readonly<Record<string, number>> = {
  products_price: PRICE,
  products_weight: 4,
  products_quantity: QUANTITY,
  products_cost: PRICE,
  products_min_qty: QUANTITY,
  products_max_qty: QUANTITY,
  products_qty_blocks: QUANTITY,
  products_base_price: PRICE,
  products_reorder_level: QUANTITY,
  products_safe_quantity: QUANTITY,
  'groups[].customers_group_price': PRICE,
  'customers_prices[].customers_price': PRICE,
  'customers_prices[].price': PRICE,
  'customers_prices[].products_qty_blocks': QUANTITY,
  'customers_prices[].products_min_qty': QUANTITY,
  'customers_prices[].products_max_qty': QUANTITY,
  'specials[].specials_new_products_price': PRICE,
  'specials[].discount_percent': 4,
  'storages[].products_quantity': QUANTITY,
  'storages[].products_safe_quantity': QUANTITY,
  'storages[].products_reorder_level': QUANTITY,
  'options[].quantity': QUANTITY,
  'options[].price': PRICE,
  ...stepScales('groups', 8),
  ...stepScales('customers_prices', 12),
};

/** The product resource. */
export const products = {
  name: 'products',
  label: 'Products',
  key: { id: 'products_id', alternatives: ['products_model'], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/products',
      scope: 'products:read',
      paging: { kind: 'limit-offset', defaultLimit: 50, maxLimit: 250 },
      filters: {},
    },
    exportOne: { method: 'GET', path: '/export/json/product/{id}', scope: 'products:read' },
    range: { method: 'GET', path: '/export/json/products/{start}:{end}', scope: 'products:read' },
    create: { method: 'POST', path: '/import/json/products', scope: 'products:write' },
    update: { method: 'PUT', path: '/import/json/products', scope: 'products:write' },
    delete: { method: 'DELETE', path: '/delete/json/products', scope: 'products:delete', idIn: 'query', param: 'products_id', alternatives: ['products_model'] },
    // Media upload: the spec names the route and `entity_type` only ("shape not shown"); the assumed shape is in docs/catalog.md.
    extra: { media: { method: 'POST', path: '/media', scope: 'products:write' } },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: true, note: 'nested only; POST fills missing languages from the master language' },
    images: { semantics: { kind: 'replace' }, specified: true, note: 'replaces the gallery, alt texts included', files: { nameField: 'image', entityType: 'product_image' } },
    categories: { semantics: { kind: 'replace' }, specified: false },
    groups: { semantics: { kind: 'upsert', entryKey: ['customers_group_id'] }, specified: true, note: 'groups not listed stay unchanged' },
    customers_prices: {
      semantics: { kind: 'upsert', entryKey: ['customers_id', 'customers_id_extern'], deleteAction: { field: '_action', value: 'delete' }, replaceFlag: 'customers_prices_replace', insertDefaults: { customers_price: 'the current product price' } },
      specified: true,
      note: 'with customers_prices_replace: true the list replaces all customer prices, [] removes them all',
    },
    specials: { semantics: { kind: 'upsert', entryKey: ['specials_price_id', 'customers_group_id'], deleteAction: { field: 'action', value: 'delete' } }, specified: false },
    extra_fields: { semantics: { kind: 'replace' }, specified: false },
    badges: { semantics: { kind: 'replace' }, specified: false },
    xsells: { semantics: { kind: 'replace' }, specified: false },
    upsells: { semantics: { kind: 'replace' }, specified: true, note: 'self-references and unknown models are skipped silently' },
    tabs: { semantics: { kind: 'replace' }, specified: false },
    videos: { semantics: { kind: 'replace' }, specified: false },
    downloads: { semantics: { kind: 'replace' }, specified: false },
    suppliers: { semantics: { kind: 'replace' }, specified: true, note: 'an entry without products_model loses the stored supplier number' },
    storages: { semantics: { kind: 'upsert', entryKey: ['storages_id', 'options_id'] }, specified: true, note: 'no mirror, no delete; only sent fields are written; null writes 0' },
    option_groups: { semantics: { kind: 'export-only' }, specified: true },
    options: { semantics: { kind: 'replace' }, specified: false, note: 'flat options[] import (one entry per SKU, docs/spec-gaps.md "Variants"); replaces options{} and option_groups[]' },
    contenteditor: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: ['customers_prices_replace'],
  lengthLimits: [{ path: 'storages[].products_storage_text', max: 50, shop: 'reject' }],
  decimalFields: Object.keys(DECIMAL_SCALES),
  decimalScales: DECIMAL_SCALES,
  // What `when_empty: clear` sends (docs/mappings.md "Empty values"). Text columns store '' as "none" (the
  // sandbox stores null as '' too); decimals have no empty value (emptyOf: '' and null write 0).
  empties: {
    products_ean: { clear: '', specified: false, reads: ['', null] },
    products_api: { clear: '', specified: false, reads: ['', null] },
    // Import rules 5 and 6: '' removes the warranty period (overriding the default 24 months) and clears the type.
    warranty_period: { clear: '', specified: true, reads: ['', null] },
    warranty_type: { clear: '', specified: true, reads: ['', null] },
    ...Object.fromEntries(
      Object.keys(languageBlock)
        .filter((f) => f !== 'products_name')
        .map((f) => [`languages.*.${f}`, { clear: '', specified: false, reads: ['', null] }]),
    ),
    'languages.*.products_name': { never: 'a product without a name shows an empty title in the shop; keep the shop\'s name (keep) or hold the article back until it has one (refuse)' },
    products_model: { never: 'products_model is how shopsync finds the product again; a product without one cannot be updated' },
    products_status: { never: 'an empty status would be 0, the product offline; if an empty cell means inactive, say so with `default: 0`' },
    products_date_available: { never: 'the spec does not say what empties a date; keep it or refuse the record' },
  },
  schemas: { record: productRecord, write: productWrite },
  naturalKeys: [{ fields: ['products_model'], enforced: true }],
  // The spec lists products_status among the scalars without its values; 0 = inactive as in categories (docs/spec-gaps.md "Deletions").
  deactivate: { field: 'products_status', value: 0, specified: false },
  // Stock the shop's orders book (issue 43): the article's total, per warehouse rows, and per SKU in the flat options[] import.
  stock: {
    article: 'products_model',
    fields: [
      { kind: 'scalar', field: 'products_quantity' },
      { kind: 'rows', list: 'storages', quantity: 'products_quantity', keys: ['storages_id', 'options_id'], warehouse: 'storages_id' },
      { kind: 'skus', list: 'options', quantity: 'quantity', model: 'model' },
    ],
  },
  // What a sellable product needs (docs/spec-gaps.md "Sellable records"): a price. The shop creates one without it at 0.
  // And an identity: a product created without its model is never found again by the natural key
  // (the next run creates it twice), and one without a name is a blank line in the shop, active or not.
  requiredOnCreate: [
    {
      field: 'products_model',
      allowedBy: 'no_model',
      guard: 'GUARD_CREATE_WITHOUT_MODEL',
      why: 'a product without its article number cannot be found again by it (the next run would create it once more) and cannot be told apart in the shop. Fill the article number in the ERP, or map the column that holds it (`products_model: { from: <column>, required: true }`; `shopsync init --map <column>=products_model`); add `allow: [no_model]` to the mapping file only if the shop identifies these products otherwise',
    },
    {
      field: 'languages',
      inSomeEntry: 'products_name',
      allowedBy: 'no_name',
      guard: 'GUARD_CREATE_WITHOUT_NAME',
      why: 'the shop would create a product without a name in every language, a blank line in its lists and search, active or not. Fill the name in the ERP, or map the column that holds it (`languages.de.products_name: <column>`; in a query, join the table that holds the name); add `allow: [no_name]` to the mapping file only if another pipeline writes the names before the product is shown',
    },
    {
      field: 'products_price',
      positive: true,
      unlessInactive: { field: 'products_status', inactive: [0, '0'] },
      allowedBy: 'zero_price',
      guard: 'GUARD_UNPRICED_CREATE',
      why: 'the shop would create it active at price 0 and sell it for nothing (an empty or NULL price cell, or a column the mapping does not read). Fix the price in the ERP; or create it inactive (`products_status: 0` until it has a price); or, if free articles are intended, add `allow: [zero_price]` to the mapping file',
    },
  ],
  // A renumbered article keeps its shop id; its old URL (seo_name per language) is redirected (docs/catalog.md "Renamed articles").
  renames: { number: 'products_model', seo: { type: 'p', field: 'seo_name' } },
  exportViews: {
    options_flat: { from: ['options', 'option_groups'], derive: flatOptionsOf, note: 'the SKUs of options{} and option_groups[] as flat import entries, with sku_id (import rule 11)' },
    options_rows: { from: ['options', 'option_groups'], derive: flatOptionRowsOf, note: 'the same, one row per SKU and option value (position 1-based)' },
  },
} as const satisfies ResourceDef;
