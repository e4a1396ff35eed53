/**
 * Response envelopes of the Shop API (spec: conventions 5, Errors, ticket claims, delete responses).
 *
 * Entries of `data[]`, `warnings[]` and `errors[]` carry the `index` of the record in the request
 * batch they concern (spec gap: the entry shape is not shown; see docs/spec-gaps.md). The client
 * also accepts `record` (the claims response's name) and, failing both, falls back to position.
 */
import { z } from 'zod';

/** One warning or error entry of a write response. */
export const messageEntry = z.looseObject({
  index: z.number().int().optional(),
  record: z.number().int().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  error: z.string().optional(),
  field: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type MessageEntry = z.infer<typeof messageEntry>;

/** The error object of request-level failures (order error envelope and the generic envelope). */
export const errorObject = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
  details: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** Write response: `{success, api_version, type, operation, data[], warnings[], errors[] | error}`. */
export const writeResponse = z.looseObject({
  success: z.boolean(),
  api_version: z.string().optional(),
  type: z.string().optional(),
  operation: z.string().optional(),
  data: z.array(z.looseObject({ index: z.number().int().optional() })).default([]),
  warnings: z.array(messageEntry).default([]),
  errors: z.array(messageEntry).default([]),
  error: errorObject.optional(),
});
export type WriteResponse = z.infer<typeof writeResponse>;

/** Request-level error envelope: `{success:false, api_version, error:{code, message, details}}`. */
export const errorEnvelope = z.looseObject({
  success: z.literal(false),
  api_version: z.string().optional(),
  error: errorObject,
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

/** Pagination object of list exports. */
export const pagination = z.looseObject({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** A list export page: an envelope with `data[]` (and `pagination`), or a bare array. */
export const exportPage = z.union([
  z.looseObject({
    success: z.boolean().optional(),
    api_version: z.string().optional(),
    type: z.string().optional(),
    pagination: pagination.optional(),
    data: z.array(z.unknown()),
  }),
  z.array(z.unknown()),
]);
export type ExportPage = z.infer<typeof exportPage>;

/** Claim state as returned in claims responses and the ticket export. */
export const claimState = z.looseObject({
  admin_id: z.number().int(),
  admin_name: z.string().optional(),
  label: z.string().nullable().optional(),
  claimed_at: z.string(),
  expires_at: z.string(),
  expires_in_seconds: z.number().int(),
});
export type ClaimState = z.infer<typeof claimState>;

/** Claims response (HTTP 200 also on conflict). */
export const claimsResponse = z.looseObject({
  success: z.boolean(),
  outcome: z.string().optional(),
  api_version: z.string().optional(),
  type: z.string().optional(),
  stats: z.looseObject({
    total: z.number().int(),
    claimed: z.number().int(),
    refreshed: z.number().int(),
    taken_over: z.number().int(),
    released: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
  }),
  errors: z.array(z.looseObject({ record: z.number().int().optional(), error: z.string() })).default([]),
  timestamp: z.string().optional(),
  records: z.array(
    z.looseObject({
      index: z.number().int(),
      ticket_id: z.number().int(),
      status: z.enum(['claimed', 'refreshed', 'taken_over', 'released', 'unchanged', 'conflict']),
      claim: claimState.nullable().optional(),
      previous_claim: claimState.nullable().optional(),
    }),
  ),
});
export type ClaimsResponse = z.infer<typeof claimsResponse>;

/** Ticket delete response. */
export const ticketDeleteResponse = z.looseObject({
  success: z.boolean(),
  deleted_id: z.number().int(),
  details: z.looseObject({ ticket_id: z.number().int(), ticket_subject: z.string(), ticket_link_id: z.string() }),
});

/** Project delete response (contains `deleted_tasks`). */
export const projectDeleteResponse = z.looseObject({
  success: z.boolean(),
  deleted_id: z.number().int().optional(),
  deleted_tasks: z.union([z.number().int(), z.array(z.number().int())]),
});

/** Delete response of the other resources (spec gap: `{success, deleted:[ids]}`). */
export const deleteResponse = z.looseObject({
  success: z.boolean(),
  deleted: z.array(z.union([z.number(), z.string()])).optional(),
  deleted_id: z.union([z.number(), z.string()]).optional(),
  error: errorObject.optional(),
});
export type DeleteResponse = z.infer<typeof deleteResponse>;

/** Ticket attachment listing. */
export const attachmentListing = z.looseObject({
  success: z.boolean(),
  ticket_id: z.number().int(),
  ticket_link_id: z.string(),
  files: z.array(z.looseObject({ name: z.string(), size: z.number().int(), mime_type: z.string(), last_modified: z.string() })),
});
export type AttachmentListing = z.infer<typeof attachmentListing>;

/** OAuth token response. */
export const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().int().positive().optional(),
  scope: z.string().optional(),
});
