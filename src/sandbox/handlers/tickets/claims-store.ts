/**
 * The claim storage (one claim per ticket) and its automatic release. Expired claims are removed
 * when read, so every reader sees "no claim" once the term has run out.
 */
import type { SandboxContext } from '../../handler.js';
import { formatDateTime, parseDateTime } from '../../dates.js';

/** Setting that simulates a shop whose claim storage does not exist yet (503 TICKET_CLAIMS_UNAVAILABLE). */
export const CLAIMS_MISSING_SETTING = 'SANDBOX_TICKET_CLAIMS_MISSING';

/** A claim as the API shows it. */
export interface ClaimView {
  admin_id: number;
  admin_name: string;
  label: string | null;
  claimed_at: string;
  expires_at: string;
  expires_in_seconds: number;
}

interface ClaimRow {
  ticket_id: number;
  admin_id: number;
  label: string | null;
  claimed_at: string;
  expires_at: string;
}

/** Whether the claim storage exists (a sandbox setting can pretend it does not). */
export function claimsAvailable(ctx: SandboxContext): boolean {
  return !ctx.flag(CLAIMS_MISSING_SETTING);
}

function toView(ctx: SandboxContext, row: ClaimRow): ClaimView {
  const admin = ctx.reference().admins.find((a) => a.admin_id === row.admin_id);
  const seconds = Math.max(0, Math.floor((parseDateTime(row.expires_at).getTime() - ctx.now().getTime()) / 1000));
  return { admin_id: row.admin_id, admin_name: admin?.name ?? `Admin ${row.admin_id}`, label: row.label, claimed_at: row.claimed_at, expires_at: row.expires_at, expires_in_seconds: seconds };
}

/** The active claim of a ticket, null when none (an expired claim is released here). */
export function readClaim(ctx: SandboxContext, ticketId: number): ClaimView | null {
  if (!claimsAvailable(ctx)) return null;
  const row = ctx.sql<[number], ClaimRow>('SELECT ticket_id, admin_id, label, claimed_at, expires_at FROM sandbox_ticket_claims WHERE ticket_id = ?').get(ticketId);
  if (!row) return null;
  if (parseDateTime(row.expires_at).getTime() <= ctx.now().getTime()) {
    releaseClaim(ctx, ticketId);
    return null;
  }
  return toView(ctx, row);
}

/** Write (insert or replace) a ticket's claim. */
export function writeClaim(ctx: SandboxContext, ticketId: number, adminId: number, label: string | null, claimedAt: string, expiresAt: Date): void {
  ctx.sql('INSERT INTO sandbox_ticket_claims (ticket_id, admin_id, label, claimed_at, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ticket_id) DO UPDATE SET admin_id = excluded.admin_id, label = excluded.label, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at')
    .run(ticketId, adminId, label, claimedAt, formatDateTime(expiresAt));
}

/** End a ticket's claim; true when there was one. */
export function releaseClaim(ctx: SandboxContext, ticketId: number): boolean {
  if (!claimsAvailable(ctx)) return false;
  return ctx.sql('DELETE FROM sandbox_ticket_claims WHERE ticket_id = ?').run(ticketId).changes > 0;
}
