/** Contracts: subscriptions of a customer to a product (spec: Resources › Contracts; Endpoints › Contracts). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { date, dateOut, decimal, decimalOut, flag01, flagOut, id, positiveId } from '../schema/common.js';

/** contracts_status: 1 active, 2 paused, 3 cancelled; 4 to 7 exist (meaning not shown). */
export const contractStatus = z.number().int().min(1, { message: 'contracts_status is 1 to 7' }).max(7, { message: 'contracts_status is 1 to 7' });

/** contracts_interval: 1 yearly, 2 half-yearly, 4 quarterly, 12 monthly. */
export const contractInterval = z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(12)], {
  message: 'contracts_interval is 1 (yearly), 2 (half-yearly), 4 (quarterly) or 12 (monthly)',
});

export const contractAttributeWrite = z.strictObject({ key: z.string().min(1), value: z.string() });

/** Domain entry: the spec shows `domain` on import; `active` (0/1) is accepted too (spec-gap decision). */
export const contractDomainWrite = z.strictObject({ domain: z.string().min(1), active: flag01.optional() });

/** Body of the status endpoint `PUT /import/json/contracts/{id}/status`. */
export const contractStatusWrite = z.strictObject({ contracts_status: contractStatus, comment: z.string().optional() });

const contractWrite = z
  .strictObject({
    contracts_id: positiveId,
    customers_id: positiveId,
    products_id: positiveId,
    contracts_status: contractStatus,
    contracts_interval: contractInterval,
    contracts_price: decimal,
    contracts_date_start: date,
    contracts_date_end: date.nullable(),
    current_period_date_begin: date,
    current_period_date_end: date,
    attributes: z.array(contractAttributeWrite),
    domains: z.array(contractDomainWrite),
  })
  .partial();

const contractRecord = z.looseObject({
  contracts_id: z.number(),
  customers_id: z.number(),
  products_id: z.number(),
  contracts_status: z.number(),
  contracts_interval: z.number(),
  contracts_price: decimalOut,
  contracts_date_added: z.string().optional(),
  contracts_date_start: dateOut.optional(),
  contracts_date_end: dateOut.optional(),
  current_period_date_begin: dateOut.optional(),
  current_period_date_end: dateOut.optional(),
  contracts_status_text: z.string().optional(),
  contracts_interval_text: z.string().optional(),
  attributes: z.array(z.looseObject({ id: z.number().optional(), key: z.string(), value: z.string().nullable() })).optional(),
  domains: z.array(z.looseObject({ id: z.number().optional(), domain: z.string(), active: flagOut.optional() })).optional(),
  status_history: z.array(z.looseObject({})).optional(),
  orders: z.array(z.unknown()).optional(),
});

export const contracts = {
  name: 'contracts',
  label: 'Contracts',
  since: '2.7.0',
  key: { id: 'contracts_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/contracts',
      scope: 'contracts:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        status: { type: 'int', min: 1, max: 7, field: 'contracts_status' },
        customer_id: { type: 'int', field: 'customers_id' },
        product_id: { type: 'int', field: 'products_id' },
        interval: { type: 'enum', values: [1, 2, 4, 12], field: 'contracts_interval' },
        date_from: { type: 'date', field: 'contracts_date_added', note: 'created on or after' },
        date_to: { type: 'date', field: 'contracts_date_added', note: 'created on or before' },
      },
      delta: { param: 'date_from', granularity: 'day', recordField: 'contracts_date_added', sees: 'created' },
    },
    exportOne: { method: 'GET', path: '/export/json/contracts/{id}', scope: 'contracts:read' },
    create: { method: 'POST', path: '/import/json/contracts', scope: 'contracts:write' },
    update: { method: 'PUT', path: '/import/json/contracts', scope: 'contracts:write' },
    delete: { method: 'DELETE', path: '/delete/json/contracts/{id}', scope: 'contracts:delete', idIn: 'path', param: 'contracts_id' },
    bulkDelete: { method: 'DELETE', path: '/delete/json/contracts', scope: 'contracts:delete', style: 'ids', param: 'ids' },
    extra: {
      status: { method: 'PUT', path: '/import/json/contracts/{id}/status', scope: 'contracts:write' },
    },
  },
  lists: {
    attributes: { semantics: { kind: 'replace' }, specified: false, note: 'sandbox decision: present replaces all key/value pairs, absent keeps them' },
    domains: { semantics: { kind: 'replace' }, specified: false, note: 'sandbox decision: present replaces all domains, absent keeps them' },
    status_history: { semantics: { kind: 'export-only' }, specified: false, note: 'written by status changes (status endpoint or PUT)' },
    orders: { semantics: { kind: 'export-only' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: ['contracts_price'],
  // Exported as a 2-place decimal string.
  decimalScales: { contracts_price: 2 },
  schemas: { record: contractRecord, write: contractWrite },
} as const satisfies ResourceDef;
