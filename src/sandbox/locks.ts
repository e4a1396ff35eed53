/**
 * `PUT /sandbox/locks`: set or clear the locks the API itself cannot write, so tests can produce
 * them: a ticket's edit lock (an administrator has the ticket open in the admin form; spec: valid
 * 300 s from the last activity) and a newsletter campaign version's `locked` flag (updates and
 * deletes of a locked campaign answer 409 LOCKED).
 */
import { z } from 'zod';
import type { SandboxContext, SandboxReply } from './handler.js';
import { CAMPAIGNS } from './handlers/newsletters.js';
import { clearEditLock, TICKETS, touchEditLock, readEditLock } from './handlers/tickets/model.js';
import { errorBody, ok } from './kit.js';

/** The body of `PUT /sandbox/locks`. */
export const locksBody = z.discriminatedUnion('resource', [
  z.strictObject({
    resource: z.literal('tickets'),
    ticket_id: z.number().int().positive(),
    /** The administrator holding the form open; null clears the lock. */
    admin_id: z.number().int().positive().nullable(),
  }),
  z.strictObject({
    resource: z.literal('newsletters'),
    newsletters_id: z.number().int().positive(),
    /** Language code of the version (e.g. de); absent: every version of the campaign. */
    language: z.string().min(1).optional(),
    locked: z.boolean(),
  }),
]);

/** Apply a lock change; 404 when the record (or the language version) does not exist. */
export function setLock(ctx: SandboxContext, body: z.output<typeof locksBody>): SandboxReply {
  if (body.resource === 'tickets') {
    if (!ctx.store.has(TICKETS, body.ticket_id)) return { status: 404, body: errorBody('Not found', `No ticket ${body.ticket_id}`) };
    if (body.admin_id === null) clearEditLock(ctx, body.ticket_id);
    else touchEditLock(ctx, body.ticket_id, body.admin_id);
    return ok({ success: true, ticket_id: body.ticket_id, edit_lock: readEditLock(ctx, body.ticket_id) });
  }
  const campaign = ctx.store.get(CAMPAIGNS, body.newsletters_id);
  if (!campaign) return { status: 404, body: errorBody('Not found', `No newsletter campaign ${body.newsletters_id}`) };
  const versions = campaign.languages as Record<string, Record<string, unknown>>;
  const codes = body.language === undefined ? Object.keys(versions) : [body.language];
  const missing = codes.filter((code) => !versions[code]);
  if (missing.length > 0) return { status: 404, body: errorBody('Not found', `Campaign ${body.newsletters_id} has no version ${missing.join(', ')}; it has ${Object.keys(versions).join(', ')}`) };
  for (const code of codes) versions[code] = { ...versions[code], locked: body.locked ? 1 : 0 };
  ctx.store.put(CAMPAIGNS, body.newsletters_id, { ...campaign, languages: versions });
  return ok({ success: true, newsletters_id: body.newsletters_id, locked: Object.fromEntries(codes.map((c) => [c, body.locked ? 1 : 0])) });
}
