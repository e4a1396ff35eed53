/**
 * Ticket storage shape and the export view. A ticket is one JSON record (store resource
 * `tickets`); claims, edit locks and attachment files live in auxiliary tables because they must
 * not touch the ticket record (a claim changes neither ticket_date_last_modified nor history).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxContext } from '../../handler.js';
import type { StoredRecord } from '../../store.js';
import { readClaim } from './claims-store.js';
import { formatDateTime, parseDateTime } from '../../dates.js';

/** One entry of a ticket's conversation. */
export interface HistoryEntry {
  history_id: number;
  date_added: string;
  admin_id: number;
  ticket_status_id: number;
  comments: string;
  /** 1 = public reply visible to the customer, 0 = internal note. */
  is_public: 0 | 1;
  customer_notified: 0 | 1;
  signature_appended: 0 | 1;
  attachments: string[];
}

/** A linked appointment (the appointments themselves live in the calendar, not in the ticket). */
export interface Appointment {
  appointment_id: number;
  startdate: string | null;
  enddate: string | null;
  allday: 0 | 1;
  done: 0 | 1;
  status_id: number;
  title: string;
  description: string;
  location: string;
}

/** A ticket as the sandbox stores it. */
export interface Ticket {
  ticket_id: number;
  ticket_link_id: string;
  ticket_subject: string;
  ticket_type: string;
  ticket_status_id: number;
  ticket_priority_id: number;
  department_id: number;
  ticket_customers_id: number;
  ticket_customers_email: string;
  ticket_customers_name: string;
  ticket_language_id: number;
  ticket_date_created: string;
  ticket_date_last_modified: string;
  ticket_date_hide_until: string | null;
  ticket_login_required: 0 | 1;
  ticket_allow_learning: 0 | 1;
  project_id: number | null;
  status_history: HistoryEntry[];
  assigned_admins: number[];
  followers: number[];
  linked_appointments: Appointment[];
}

export const TICKETS = 'tickets';

/** Seconds an edit lock stays valid after the last activity of the administration form. */
export const EDIT_LOCK_SECONDS = 300;

/** Create the auxiliary tables (claims, edit locks, files, history ids). */
export function initTicketTables(ctx: SandboxContext): void {
  ctx.db.exec(`
    CREATE TABLE IF NOT EXISTS sandbox_ticket_claims (ticket_id INTEGER PRIMARY KEY, admin_id INTEGER NOT NULL, label TEXT, claimed_at TEXT NOT NULL, expires_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sandbox_ticket_edit_locks (ticket_id INTEGER PRIMARY KEY, admin_id INTEGER NOT NULL, locked_at TEXT NOT NULL, last_activity TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sandbox_ticket_files (name TEXT PRIMARY KEY, ticket_id INTEGER NOT NULL, history_id INTEGER NOT NULL, size INTEGER NOT NULL, mime_type TEXT NOT NULL, sha256 TEXT NOT NULL, last_modified TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sandbox_ticket_history_seq (id INTEGER PRIMARY KEY AUTOINCREMENT, ticket_id INTEGER NOT NULL);
  `);
}

/** Empty the auxiliary tables and the attachment folder (reset). */
export function clearTicketTables(ctx: SandboxContext): void {
  ctx.db.exec('DELETE FROM sandbox_ticket_claims; DELETE FROM sandbox_ticket_edit_locks; DELETE FROM sandbox_ticket_files; DELETE FROM sandbox_ticket_history_seq;');
  const dir = ctx.filesDir('ticket_attachments');
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
}

/** A fresh history id (unique across tickets, as in the shop's history table). */
export function nextHistoryId(ctx: SandboxContext, ticketId: number): number {
  return Number(ctx.sql('INSERT INTO sandbox_ticket_history_seq (ticket_id) VALUES (?)').run(ticketId).lastInsertRowid);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A 14-character alphanumeric link id not used by another ticket. */
export function newLinkId(ctx: SandboxContext): string {
  for (;;) {
    const bytes = randomBytes(14);
    const id = Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
    if (ctx.store.findIds(TICKETS, 'ticket_link_id', id).length === 0) return id;
  }
}

/** A stored ticket by id. */
export function getTicket(ctx: SandboxContext, id: number): Ticket | undefined {
  return ctx.store.get(TICKETS, id) as Ticket | undefined;
}

/** Store a ticket. */
export function putTicket(ctx: SandboxContext, ticket: Ticket): void {
  ctx.store.put(TICKETS, ticket.ticket_id, ticket as unknown as StoredRecord);
}

function adminName(ctx: SandboxContext, adminId: number): string {
  if (adminId === 0) return 'System';
  return ctx.reference().admins.find((a) => a.admin_id === adminId)?.name ?? `Admin ${adminId}`;
}

function named(list: readonly { id: number; name: string }[], id: number): string {
  return list.find((s) => s.id === id)?.name ?? '';
}

/** The edit lock of a ticket while it is valid (300 s after the last form activity), else null. */
export function readEditLock(ctx: SandboxContext, ticketId: number): { admin_id: number; admin_name: string; locked_at: string } | null {
  const row = ctx.sql<[number], { admin_id: number; locked_at: string; last_activity: string }>('SELECT admin_id, locked_at, last_activity FROM sandbox_ticket_edit_locks WHERE ticket_id = ?').get(ticketId);
  if (!row) return null;
  const validUntil = parseDateTime(row.last_activity).getTime() + EDIT_LOCK_SECONDS * 1000;
  if (validUntil <= ctx.now().getTime()) return null;
  return { admin_id: row.admin_id, admin_name: adminName(ctx, row.admin_id), locked_at: row.locked_at };
}

/** Record that an administrator has the ticket open in the administration form. */
export function touchEditLock(ctx: SandboxContext, ticketId: number, adminId: number): void {
  const now = formatDateTime(ctx.now());
  ctx.sql('INSERT INTO sandbox_ticket_edit_locks (ticket_id, admin_id, locked_at, last_activity) VALUES (?, ?, ?, ?) ON CONFLICT (ticket_id) DO UPDATE SET last_activity = excluded.last_activity')
    .run(ticketId, adminId, now, now);
}

/** Close the administration form: the ticket has no edit lock any more. */
export function clearEditLock(ctx: SandboxContext, ticketId: number): void {
  ctx.sql('DELETE FROM sandbox_ticket_edit_locks WHERE ticket_id = ?').run(ticketId);
}

/** The ticket as the export shows it: names resolved, claim and edit lock attached. */
export function ticketView(ctx: SandboxContext, ticket: Ticket): Record<string, unknown> {
  const ref = ctx.reference();
  return {
    ticket_id: ticket.ticket_id,
    ticket_link_id: ticket.ticket_link_id,
    ticket_subject: ticket.ticket_subject,
    ticket_type: ticket.ticket_type,
    ticket_status_id: ticket.ticket_status_id,
    ticket_status: named(ref.ticket_statuses, ticket.ticket_status_id),
    ticket_priority_id: ticket.ticket_priority_id,
    ticket_priority: named(ref.ticket_priorities, ticket.ticket_priority_id),
    department_id: ticket.department_id,
    department_name: named(ref.ticket_departments, ticket.department_id),
    ticket_customers_id: ticket.ticket_customers_id,
    ticket_customers_email: ticket.ticket_customers_email,
    ticket_customers_name: ticket.ticket_customers_name,
    ticket_language_id: ticket.ticket_language_id,
    ticket_date_created: ticket.ticket_date_created,
    ticket_date_last_modified: ticket.ticket_date_last_modified,
    ticket_date_hide_until: ticket.ticket_date_hide_until,
    ticket_login_required: ticket.ticket_login_required,
    ticket_allow_learning: ticket.ticket_allow_learning,
    project_id: ticket.project_id,
    status_history: ticket.status_history.map((h) => ({
      ...h,
      admin_name: adminName(ctx, h.admin_id),
      ticket_status: named(ref.ticket_statuses, h.ticket_status_id),
    })),
    assigned_admins: ticket.assigned_admins.map((id) => ({ admin_id: id, admin_name: adminName(ctx, id) })),
    followers: ticket.followers.map((id) => ({ admin_id: id, admin_name: adminName(ctx, id) })),
    linked_appointments: ticket.linked_appointments,
    claim: readClaim(ctx, ticket.ticket_id),
    edit_lock: readEditLock(ctx, ticket.ticket_id),
  };
}

export { adminName };
