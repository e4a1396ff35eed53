/** Orders (spec: Resources › Orders; Endpoints › Orders; Errors › order error envelope). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { datetime, decimal, decimalOut, flag01, id, positiveId } from '../schema/common.js';

/** Address block of billing/delivery; fields beyond those shown are a spec gap (see docs/spec-gaps.md). */
export const orderAddressWrite = z
  .strictObject({
    company: z.string(),
    firstname: z.string(),
    lastname: z.string(),
    street_address: z.string(),
    suburb: z.string(),
    postcode: z.string(),
    city: z.string(),
    state: z.string(),
    country: z.string(),
    country_iso_code_2: z.string().length(2),
    telephone: z.string(),
    email_address: z.string(),
    additional_address: z.string(),
  })
  .partial();

export const orderItemWrite = z.strictObject({
  products_id: id.optional(),
  products_model: z.string().optional(),
  products_name: z.string().optional(),
  quantity: decimal,
  products_price: decimal.optional(),
  products_tax: decimal.optional(),
  attributes: z.array(z.strictObject({ option_id: positiveId, value_id: positiveId })).optional(),
});

export const trackingWrite = z.strictObject({
  service_provider: z.string().optional(),
  method: z.string().optional(),
  code: z.string().optional(),
  tracking_number: z.string().optional(),
  link: z.string().optional(),
  label_link: z.string().optional(),
  external_id: z.string().optional(),
  is_retoure: z.boolean().optional(),
});

export const statusHistoryWrite = z.strictObject({
  orders_status_id: positiveId,
  comments: z.string().optional(),
  customer_notified: flag01.optional(),
  date_added: datetime.optional(),
});

export const externalReference = z.strictObject({
  source: z.string().min(1),
  external_id: z.string().min(1),
  marketplace_id: z.number().int().optional(),
});

const orderWrite = z
  .strictObject({
    orders_id: positiveId,
    customers_id: id,
    language_id: positiveId,
    payment_method: z.string(),
    shipping_method: z.string(),
    tax_flag: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    totals_mode: z.enum(['auto', 'recalc', 'verbatim']),
    expected_total: z.string().regex(/^-?\d+(\.\d+)?$/, { message: "expected_total is a decimal string in point notation like '119.00'" }),
    strict_totals: z.boolean(),
    currency: z.string().length(3),
    products: z.array(orderItemWrite),
    totals: z.record(z.string(), decimal),
    billing: orderAddressWrite,
    delivery: orderAddressWrite,
    apply_default_attributes: z.boolean(),
    compute_shipping: z.boolean(),
    send_confirmation_email: z.boolean(),
    auto_stock: z.boolean(),
    customer_notified: z.boolean(),
    external_reference: externalReference,
    tracking: z.array(trackingWrite),
    status_history: z.array(statusHistoryWrite),
    orders_status: positiveId,
    comments: z.string(),
    date_purchased: datetime,
  })
  .partial();

const orderRecord = z.looseObject({
  orders_id: z.number(),
  customers_id: z.number(),
  date_purchased: z.string().optional(),
  last_modified: z.string().nullable().optional(),
  orders_status: z.number().optional(),
  language_id: z.number().optional(),
  tax_flag: z.number().optional(),
  totals_mode: z.string().optional(),
  ot_subtotal: decimalOut.optional(),
  ot_tax: decimalOut.optional(),
  ot_total: decimalOut.optional(),
  products: z.array(z.looseObject({ products_id: z.number(), quantity: decimalOut })).optional(),
  billing: z.looseObject({}).optional(),
  delivery: z.looseObject({}).optional(),
  external_reference: z.looseObject({ source: z.string(), external_id: z.string() }).nullable().optional(),
  tracking: z.array(z.looseObject({})).optional(),
  status_history: z.array(z.looseObject({ orders_status_id: z.number() })).optional(),
});

export const orders = {
  name: 'orders',
  label: 'Orders',
  since: '2.32.0',
  key: { id: 'orders_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/orders',
      scope: 'orders:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        orders_id: { type: 'int', field: 'orders_id' },
        customers_id: { type: 'int', field: 'customers_id' },
        orders_status: { type: 'int', field: 'orders_status' },
        date_from: { type: 'date', field: 'date_purchased', note: 'purchase date on or after' },
        date_to: { type: 'date', field: 'date_purchased', note: 'purchase date on or before' },
      },
      delta: { param: 'date_from', granularity: 'day', recordField: 'date_purchased', sees: 'created' },
    },
    create: { method: 'POST', path: '/import/json/orders', scope: 'orders:write' },
    update: { method: 'PUT', path: '/import/json/orders', scope: 'orders:write' },
    delete: { method: 'DELETE', path: '/delete/json/orders', scope: 'orders:write', idIn: 'query', param: 'orders_id' },
  },
  lists: {
    products: { semantics: { kind: 'create-only' }, specified: false, note: 'items are taken on create; an update does not change them' },
    tracking: { semantics: { kind: 'upsert', entryKey: ['code'] }, specified: false, note: 'a tracking code already stored is updated, a new one appended' },
    status_history: { semantics: { kind: 'append-only', identity: ['orders_status_id', 'comments', 'date_added'] }, specified: true, note: 'append-only audit log; every entry sent is appended again' },
    billing: { semantics: { kind: 'merge-language' }, specified: false, note: 'object: only sent fields are written' },
    delivery: { semantics: { kind: 'merge-language' }, specified: false, note: 'object: only sent fields are written' },
  },
  strictBooleans: ['strict_totals', 'apply_default_attributes', 'compute_shipping', 'send_confirmation_email', 'auto_stock', 'customer_notified', 'tracking[].is_retoure'],
  lengthLimits: [],
  decimalFields: ['products[].quantity', 'products[].products_price', 'products[].products_tax', 'expected_total'],
  // Item prices and tax rates 4 places, totals 2 (the shop's answers: docs/spec-gaps.md "Amounts"), quantities 8 as the storage rows'.
  decimalScales: { 'products[].quantity': 8, 'products[].products_price': 4, 'products[].products_tax': 4, expected_total: 2 },
  schemas: { record: orderRecord, write: orderWrite },
  // "Stock booking happens automatically on create": each item takes its quantity of the article (and of the SKU its attributes name).
  books: { items: 'products', quantity: 'quantity', article: 'products_model', productId: 'products_id', attributes: 'attributes', placedAt: 'date_purchased' },
  // After checkout: the export's filters see only new orders; a follow reads them again by id or by day (issue 44).
  follow: {
    status: 'orders_status',
    history: { list: 'status_history', status: 'orders_status_id', comment: 'comments', at: 'date_added' },
    tracking: { list: 'tracking', key: ['code', 'tracking_number'], provider: ['service_provider', 'method'], returnFlag: 'is_retoure' },
    addresses: ['billing', 'delivery'],
    items: 'products',
    placedAt: 'date_purchased',
    byId: 'orders_id',
    byDay: { from: 'date_from', to: 'date_to' },
    byStatus: 'orders_status',
  },
  naturalKeys: [{ fields: ['external_reference'], enforced: true }],
  requiredOnCreate: [
    {
      field: 'tax_flag',
      values: [0, 1, 2],
      guard: 'GUARD_ORDER_TAX_FLAG',
      why: 'an order pushed to the shop must say explicitly whether its prices are net (0), gross (1) or tax-free (2); otherwise the shop reads net prices as gross for gross customer groups',
    },
    {
      field: 'external_reference',
      parts: ['source', 'external_id'],
      guard: 'GUARD_ORDER_EXTERNAL_REFERENCE',
      why: 'an order pushed to the shop needs `external_reference: {source, external_id}` so a repeated push is refused as a duplicate instead of creating a second order',
    },
  ],
} as const satisfies ResourceDef;
