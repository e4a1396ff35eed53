/**
 * `PUT /import/json/ticket_claims`: set, extend, take over or end processing claims (spec: States ›
 * claim table; Endpoints › claims). Requests run one at a time inside a transaction, so of two
 * simultaneous claims on a free ticket the second sees the first and gets `conflict`.
 */
import type { OperationHandler, SandboxContext } from '../../handler.js';
import { fail, isRecord } from '../../kit.js';
import { formatDateTime, parseDateTime } from '../../dates.js';
import { stripHtml } from '../content/values.js';
import { claimsAvailable, readClaim, releaseClaim, writeClaim, type ClaimView } from './claims-store.js';
import { getTicket } from './model.js';

/** api_version of claim answers (the claim sample shows 2.118.1). */
export const CLAIMS_API_VERSION = '2.118.1';

export const TTL_DEFAULT_MINUTES = 60;
export const TTL_MIN_MINUTES = 5;
export const TTL_MAX_MINUTES = 240;
export const LABEL_MAX = 32;

type Status = 'claimed' | 'refreshed' | 'taken_over' | 'released' | 'unchanged' | 'conflict';

interface RecordOut {
  index: number;
  ticket_id: number;
  status: Status;
  claim: ClaimView | null;
  previous_claim?: ClaimView | null;
}

/** Clamp a claim term to 5..240 minutes (default 60). */
export function clampTtl(value: number | undefined): number {
  if (value === undefined) return TTL_DEFAULT_MINUTES;
  return Math.min(TTL_MAX_MINUTES, Math.max(TTL_MIN_MINUTES, Math.trunc(value)));
}

/** A label with HTML removed, cut to 32 characters; null when empty. */
export function cleanLabel(value: string | undefined): string | null {
  if (value === undefined) return null;
  const text = stripHtml(value).slice(0, LABEL_MAX);
  return text === '' ? null : text;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** One claim request; returns the record or an error text. */
function handleOne(ctx: SandboxContext, index: number, input: unknown): RecordOut | string {
  if (!isRecord(input)) return 'record must be an object {ticket_id, admin_id, state, ttl_minutes?, label?, force?}';
  const ticketId = positiveInt(input.ticket_id);
  if (ticketId === undefined) return `ticket_id must be a positive integer, got ${JSON.stringify(input.ticket_id)}`;
  if (!getTicket(ctx, ticketId)) return `ticket ${ticketId} does not exist`;
  const adminId = positiveInt(input.admin_id);
  const admin = adminId === undefined ? undefined : ctx.reference().admins.find((a) => a.admin_id === adminId);
  if (!admin) return `admin_id must name an existing administrator, got ${JSON.stringify(input.admin_id)}`;
  if (input.state !== 'claimed' && input.state !== 'released') return `state must be 'claimed' or 'released' (no default), got ${JSON.stringify(input.state)}`;
  if (input.force !== undefined && typeof input.force !== 'boolean') return `force must be a JSON boolean true/false, got ${JSON.stringify(input.force)}`;
  if (input.ttl_minutes !== undefined && (typeof input.ttl_minutes !== 'number' || !Number.isFinite(input.ttl_minutes))) {
    return `ttl_minutes must be an integer (5 to 240), got ${JSON.stringify(input.ttl_minutes)}`;
  }
  if (input.label !== undefined && typeof input.label !== 'string') return `label must be a string, got ${JSON.stringify(input.label)}`;
  const force = input.force === true;
  const current = readClaim(ctx, ticketId);

  if (input.state === 'released') {
    if (!current) return { index, ticket_id: ticketId, status: 'unchanged', claim: null };
    if (current.admin_id !== adminId && !force) return conflict(index, ticketId, current);
    releaseClaim(ctx, ticketId);
    return { index, ticket_id: ticketId, status: 'released', claim: null, previous_claim: current };
  }

  const now = ctx.now();
  const ttlMs = clampTtl(input.ttl_minutes as number | undefined) * 60_000;
  const label = cleanLabel(input.label as string | undefined);
  if (current && current.admin_id === adminId) {
    // An extension never shortens a running claim; claimed_at stays.
    const expires = Math.max(parseDateTime(current.expires_at).getTime(), now.getTime() + ttlMs);
    writeClaim(ctx, ticketId, admin.admin_id, label ?? current.label, current.claimed_at, new Date(expires));
    return { index, ticket_id: ticketId, status: 'refreshed', claim: readClaim(ctx, ticketId) };
  }
  if (current && !force) return conflict(index, ticketId, current);
  writeClaim(ctx, ticketId, admin.admin_id, label, formatDateTime(now), new Date(now.getTime() + ttlMs));
  const claim = readClaim(ctx, ticketId);
  return current ? { index, ticket_id: ticketId, status: 'taken_over', claim, previous_claim: current } : { index, ticket_id: ticketId, status: 'claimed', claim };
}

function conflict(index: number, ticketId: number, holder: ClaimView): RecordOut {
  return { index, ticket_id: ticketId, status: 'conflict', claim: holder };
}

/** The claims endpoint. */
export const claimTickets: OperationHandler = (ctx, req) => {
  if (!claimsAvailable(ctx)) {
    fail(503, 'TICKET_CLAIMS_UNAVAILABLE', 'The ticket claim storage does not exist yet; it is created at the next schema reconciliation');
  }
  const body = req.body;
  if (!isRecord(body) || !Array.isArray(body.data)) fail(400, 'INVALID_PAYLOAD', 'The body must be {type: "ticket_claims", data: [...]}');
  if (body.type !== undefined && body.type !== 'ticket_claims') fail(400, 'INVALID_PAYLOAD', `The body's type must be "ticket_claims", got ${JSON.stringify(body.type)}`);
  const stats = { total: body.data.length, claimed: 0, refreshed: 0, taken_over: 0, released: 0, unchanged: 0, failed: 0 };
  const records: RecordOut[] = [];
  const errors: { record: number; ticket_id?: number; error: string }[] = [];
  body.data.forEach((input, index) => {
    const out = handleOne(ctx, index, input);
    if (typeof out === 'string') {
      stats.failed++;
      errors.push({ record: index, ...(isRecord(input) && typeof input.ticket_id === 'number' ? { ticket_id: input.ticket_id } : {}), error: out });
      return;
    }
    records.push(out);
    if (out.status === 'conflict') {
      stats.failed++;
      const holder = out.claim;
      const who = holder ? `${holder.admin_name} (admin ${holder.admin_id}${holder.label ? `, ${holder.label}` : ''}) until ${holder.expires_at}` : 'another administrator';
      errors.push({ record: index, ticket_id: out.ticket_id, error: `Ticket ${out.ticket_id} is claimed by ${who}; send force=true to take it over` });
    } else {
      stats[out.status]++;
    }
  });
  const success = stats.failed === 0;
  const outcome = success ? 'success' : stats.failed === stats.total ? 'failed' : 'partial';
  return {
    status: 200,
    body: { success, outcome, api_version: CLAIMS_API_VERSION, type: 'ticket_claims', stats, errors, timestamp: formatDateTime(ctx.now()), records },
  };
};
