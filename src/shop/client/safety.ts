/**
 * Which writes may be sent again when their answer was lost (timeout, connection reset after
 * sending, a gateway's 502/504). A 429 or 503 *answer* proves the shop did not process the
 * request, so every write is retried after those; this file decides the lost-answer case.
 *
 * - GET: always (reads).
 * - DELETE: yes. Deleting twice leaves the same state; the repeat may answer 404 `Not found`,
 *   which the client reports with `afterLostAnswer` in the error details.
 * - POST: only when the shop recognises the repeat. Orders where every record carries
 *   `external_reference` qualify: the repeat answers DUPLICATE_EXTERNAL_REFERENCE with the
 *   existing orders_id. Everything else (a second product, a second ticket) would be created twice.
 * - PUT: the same payload written twice gives the same record, except for fields that append:
 *   list fields the registry marks `append-only` (order `status_history[]`) and the fields below,
 *   which append a history entry or send an e-mail on every write.
 * - Contract status change: no (appends a status-history entry with the comment).
 * - Ticket claims: yes (a repeated claim is `refreshed`, a repeated release `unchanged`).
 */
import type { ResourceDef } from '../registry/index.js';

/** Writable fields whose every PUT appends (comments, status comments) or notifies someone. */
const APPENDING_FIELDS: readonly string[] = ['ticket_comments', 'comments', 'status_comment', 'attachments', 'is_public_reply', 'notify_customer', 'send_confirmation_email'];

/** Whether a batch write (create or update) may be repeated after its answer was lost. */
export function writeRepeatSafe(resource: ResourceDef, method: 'POST' | 'PUT', records: readonly Record<string, unknown>[]): boolean {
  if (method === 'POST') return records.length > 0 && records.every(hasExternalReference);
  const appendOnly = Object.entries(resource.lists)
    .filter(([, def]) => def.semantics.kind === 'append-only')
    .map(([field]) => field);
  return records.every((record) => !appendOnly.some((field) => present(record[field])) && !APPENDING_FIELDS.some((field) => present(record[field])));
}

function hasExternalReference(record: Record<string, unknown>): boolean {
  const ref = record.external_reference;
  if (ref === null || typeof ref !== 'object') return false;
  const { source, external_id: externalId } = ref as Record<string, unknown>;
  return typeof source === 'string' && source !== '' && typeof externalId === 'string' && externalId !== '';
}

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'string') return value !== '';
  return true;
}
