/** Newsletter subscribers with double opt-in (spec: Resources › Newsletter subscribers; Endpoints › Newsletter subscribers). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { email, id, positiveId } from '../schema/common.js';

const subscriberWrite = z
  .strictObject({
    subscribe_id: positiveId,
    subscribe_email: email,
    subscribe_firstname: z.string(),
    subscribe_lastname: z.string(),
    subscribe_language_id: positiveId,
    customers_id: id,
  })
  .partial();

/** One entry of the bulk delete body: by id or by e-mail. */
export const subscriberDeleteSelector = z.union([z.strictObject({ subscribe_id: positiveId }), z.strictObject({ subscribe_email: email })]);

const subscriberRecord = z.looseObject({
  subscribe_id: z.number(),
  subscribe_email: z.string(),
  subscribe_firstname: z.string().nullable().optional(),
  subscribe_lastname: z.string().nullable().optional(),
  subscribe_language_id: z.number().optional(),
  customers_id: z.number().optional(),
  subscribe_status: z.enum(['confirmed', 'unconfirmed']).optional(),
  subscribe_date_added: z.string().optional(),
  subscribe_last_modified: z.string().optional(),
});

export const newsletter_subscribers = {
  name: 'newsletter_subscribers',
  label: 'Newsletter subscribers',
  since: '2.8.0',
  key: { id: 'subscribe_id', alternatives: ['subscribe_email'], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/newsletter_subscribers',
      scope: 'newsletter:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        status: { type: 'enum', values: ['confirmed', 'unconfirmed'], field: 'subscribe_status' },
        email: { type: 'string', field: 'subscribe_email', note: 'exact match' },
        customer_id: { type: 'int', field: 'customers_id' },
        language_id: { type: 'int', field: 'subscribe_language_id' },
        last_modified: { type: 'date', field: 'subscribe_last_modified', note: 'changed on or after this day' },
      },
      delta: { param: 'last_modified', granularity: 'day', recordField: 'subscribe_last_modified', sees: 'changed' },
    },
    exportOne: { method: 'GET', path: '/export/json/newsletter_subscriber/{id}', scope: 'newsletter:read' },
    create: { method: 'POST', path: '/import/json/newsletter_subscribers', scope: 'newsletter:write' },
    update: { method: 'PUT', path: '/import/json/newsletter_subscribers', scope: 'newsletter:write' },
    delete: { method: 'DELETE', path: '/delete/json/newsletter_subscriber/{id}', scope: 'newsletter:delete', idIn: 'path', param: 'subscribe_id' },
    bulkDelete: { method: 'DELETE', path: '/delete/json/newsletter_subscribers', scope: 'newsletter:delete', style: 'envelope', param: 'data' },
  },
  lists: {},
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: subscriberRecord, write: subscriberWrite },
  naturalKeys: [{ fields: ['subscribe_email'], enforced: true }],
} as const satisfies ResourceDef;
