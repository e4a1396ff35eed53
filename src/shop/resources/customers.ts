/** Customers (spec: Resources › Customers; Endpoints › Customers, write rules 1-7). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { decimal, email, flag01, id, positiveId } from '../schema/common.js';

export const addressWrite = z
  .strictObject({
    address_book_id: positiveId,
    entry_company: z.string(),
    entry_firstname: z.string(),
    entry_lastname: z.string(),
    entry_street_address: z.string(),
    entry_suburb: z.string(),
    entry_postcode: z.string(),
    entry_city: z.string(),
    entry_country_id: positiveId,
    entry_country: z.string().regex(/^[A-Z]{2}$/, { message: 'entry_country is an ISO country code like DE' }),
    entry_zone_id: id,
    _set_default: z.boolean(),
    _set_billing: z.boolean(),
  })
  .partial();

export const discountWrite = z.strictObject({
  category_id: id,
  value: decimal,
  subcategories: flag01.optional(),
  qpb: flag01.optional(),
  option: flag01.optional(),
  special: flag01.optional(),
});

const customerWrite = z
  .strictObject({
    customers_id: positiveId,
    customers_id_extern: z.string().min(1),
    customers_email_address: email,
    customers_firstname: z.string(),
    customers_lastname: z.string(),
    customers_telephone: z.string(),
    customers_fax: z.string(),
    customers_group_id: id,
    language_id: positiveId,
    addresses: z.array(addressWrite),
    discounts: z.array(discountWrite),
  })
  .partial();

const customerRecord = z.looseObject({
  customers_id: z.number(),
  customers_id_extern: z.string().nullable().optional(),
  customers_email_address: z.string(),
  customers_firstname: z.string().optional(),
  customers_lastname: z.string().optional(),
  customers_group_id: z.number().optional(),
  addresses: z.array(z.looseObject({ address_book_id: z.number() })).optional(),
  discounts: z.array(z.looseObject({ category_id: z.number() })).optional(),
});

export const customers = {
  name: 'customers',
  label: 'Customers',
  key: { id: 'customers_id', alternatives: ['customers_id_extern'], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/customers',
      scope: 'customers:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        customers_id: { type: 'int', field: 'customers_id' },
        customers_email_address: { type: 'string', field: 'customers_email_address' },
        customers_group_id: { type: 'int', field: 'customers_group_id' },
      },
    },
    create: { method: 'POST', path: '/import/json/customers', scope: 'customers:write' },
    update: { method: 'PUT', path: '/import/json/customers', scope: 'customers:write' },
    delete: { method: 'DELETE', path: '/delete/json/customers', scope: 'customers:delete', idIn: 'query', param: 'customers_id' },
  },
  lists: {
    addresses: { semantics: { kind: 'upsert', entryKey: ['address_book_id'] }, specified: true, note: 'with address_book_id: only sent fields change; without: a new address' },
    discounts: { semantics: { kind: 'replace' }, specified: true, note: 'present with entries replaces the set; [] removes all' },
  },
  strictBooleans: ['addresses[]._set_default', 'addresses[]._set_billing'],
  lengthLimits: [],
  decimalFields: ['discounts[].value'],
  // What `when_empty: clear` sends (docs/mappings.md "Empty values"). Addresses: write rule 3, "missing or null
  // fields stay, an empty string clears a field"; the phone and fax are text columns read the same way (the sandbox: null stays, '' clears).
  empties: {
    customers_telephone: { clear: '', specified: false, reads: ['', null] },
    customers_fax: { clear: '', specified: false, reads: ['', null] },
    ...Object.fromEntries(['entry_company', 'entry_suburb', 'entry_street_address', 'entry_firstname', 'entry_lastname', 'entry_postcode', 'entry_city'].map((f) => [`addresses[].${f}`, { clear: '', specified: true, reads: ['', null] }])),
  },
  // A percentage; the spec shows no scale (docs/spec-gaps.md "Decimal scales").
  decimalScales: { 'discounts[].value': 4 },
  schemas: { record: customerRecord, write: customerWrite },
  naturalKeys: [
    { fields: ['customers_id_extern'], enforced: true },
    { fields: ['customers_email_address'], enforced: true },
  ],
} as const satisfies ResourceDef;
