/** Tickets with comments, attachments and processing claims (spec: Resources › Tickets; Endpoints › Tickets; States › claims). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { datetime, email, flag01, flagOut, id, maxString, positiveId, strictBoolean } from '../schema/common.js';

/** One attachment of a write: file name with extension and Base64 content. */
export const ticketAttachmentWrite = z.strictObject({
  name: z.string().min(1),
  content_base64: z.string(),
});

/** One record of `PUT /import/json/ticket_claims` (its own envelope type `ticket_claims`). */
export const ticketClaimWrite = z.strictObject({
  ticket_id: positiveId,
  admin_id: positiveId,
  state: z.enum(['claimed', 'released'], { message: "state is 'claimed' or 'released' (no default)" }),
  ttl_minutes: z.number().int().optional(),
  label: maxString(32, 'label').optional(),
  force: strictBoolean.optional(),
});

const ticketWrite = z
  .strictObject({
    ticket_id: positiveId,
    ticket_subject: z.string().min(1),
    ticket_customers_email: email,
    ticket_customers_name: z.string().min(1),
    ticket_type: z.string().min(1),
    ticket_status_id: positiveId,
    ticket_priority_id: positiveId,
    ticket_department_id: positiveId,
    ticket_customers_id: id,
    ticket_language_id: positiveId,
    ticket_date_hide_until: datetime.nullable(),
    ticket_login_required: flag01,
    ticket_allow_learning: flag01,
    ticket_comments: z.string(),
    admin_id: id,
    is_public_reply: strictBoolean,
    notify_customer: strictBoolean,
    append_signature: strictBoolean,
    attachments: z.array(ticketAttachmentWrite),
    assigned_admins: z.array(positiveId),
  })
  .partial();

const claimOut = z.looseObject({
  admin_id: z.number(),
  admin_name: z.string().optional(),
  label: z.string().nullable().optional(),
  claimed_at: z.string(),
  expires_at: z.string(),
  expires_in_seconds: z.number(),
});

const ticketRecord = z.looseObject({
  ticket_id: z.number(),
  ticket_link_id: z.string(),
  ticket_subject: z.string(),
  ticket_status: z.string().optional(),
  ticket_priority: z.string().optional(),
  department_id: z.number().optional(),
  department_name: z.string().optional(),
  ticket_date_last_modified: z.string().optional(),
  status_history: z.array(z.looseObject({})).optional(),
  assigned_admins: z.array(z.unknown()).optional(),
  followers: z.array(z.unknown()).optional(),
  linked_appointments: z
    .array(z.looseObject({ appointment_id: z.number(), startdate: z.string().nullable(), enddate: z.string().nullable(), allday: flagOut, done: flagOut }))
    .optional(),
  claim: claimOut.nullable().optional(),
  edit_lock: z.looseObject({ admin_id: z.number(), admin_name: z.string().optional(), locked_at: z.string() }).nullable().optional(),
});

export const tickets = {
  name: 'tickets',
  label: 'Tickets',
  key: { id: 'ticket_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/tickets',
      scope: 'tickets:read',
      paging: { kind: 'limit-offset', defaultLimit: 50, maxLimit: 250 },
      filters: {
        status: { type: 'int', field: 'ticket_status_id' },
        priority: { type: 'int', field: 'ticket_priority_id' },
        department: { type: 'int', field: 'department_id' },
        customer_id: { type: 'int', field: 'ticket_customers_id' },
        admin_id: { type: 'int', field: 'assigned_admins', note: 'assigned admin' },
        type: { type: 'string', field: 'ticket_type' },
        date_from: { type: 'date', field: 'ticket_date_created', note: 'created on or after' },
        date_to: { type: 'date', field: 'ticket_date_created', note: 'created on or before' },
        last_modified: { type: 'date', field: 'ticket_date_last_modified', note: 'changed on or after this day' },
        language: { type: 'string', field: 'ticket_language_id', note: 'language id or ISO code' },
      },
      delta: { param: 'last_modified', granularity: 'day', recordField: 'ticket_date_last_modified', sees: 'changed' },
    },
    exportOne: { method: 'GET', path: '/export/json/ticket/{id}', scope: 'tickets:read' },
    create: { method: 'POST', path: '/import/json/tickets', scope: 'tickets:write' },
    update: { method: 'PUT', path: '/import/json/tickets', scope: 'tickets:write' },
    delete: { method: 'DELETE', path: '/delete/json/ticket/{id}', scope: 'tickets:delete', idIn: 'path', param: 'ticket_id' },
    extra: {
      claims: { method: 'PUT', path: '/import/json/ticket_claims', scope: 'tickets:write' },
      attachments: { method: 'GET', path: '/export/json/ticket_attachments/{id}', scope: 'tickets:read' },
      attachment: { method: 'GET', path: '/export/json/ticket_attachment/{id}', scope: 'tickets:read' },
    },
  },
  lists: {
    assigned_admins: { semantics: { kind: 'replace' }, specified: true, note: 'replaces the admin assignments' },
    attachments: { semantics: { kind: 'append-only', identity: ['name'] }, specified: true, note: 'stored with the comment; identical content is deduplicated by hash' },
    status_history: { semantics: { kind: 'export-only' }, specified: true, note: 'a comment appends an entry' },
    followers: { semantics: { kind: 'export-only' }, specified: true },
    linked_appointments: { semantics: { kind: 'export-only' }, specified: true, note: 'ignored without warning on write (2.118.1)' },
  },
  strictBooleans: ['is_public_reply', 'notify_customer', 'append_signature', 'ticket_claims[].force'],
  lengthLimits: [{ path: 'ticket_claims[].label', max: 32, shop: 'unspecified' }],
  decimalFields: [],
  schemas: { record: ticketRecord, write: ticketWrite },
} as const satisfies ResourceDef;
