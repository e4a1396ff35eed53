/**
 * Ticket create and update (spec: Tickets › create/update fields, write rules 1-6; States › claim
 * auto-release). Comments are internal unless `is_public_reply` is the JSON boolean true with an
 * `admin_id` > 0; attachments are checked per file and never fail the ticket write.
 */
import type { OperationHandler, SandboxContext } from '../../handler.js';
import { optionalInt, optionalString, RecordError, writeEach, type RecordScope } from '../../kit.js';
import { datetimeOrNull, flagValue, idList } from '../content/values.js';
import { releaseClaim } from './claims-store.js';
import { checkAttachments, mailAttachments, storeFiles, type FileError } from './files.js';
import { adminName, getTicket, newLinkId, nextHistoryId, putTicket, type HistoryEntry, type Ticket } from './model.js';

/** Default ticket type on create. */
export const DEFAULT_TICKET_TYPE = 'kunde';

function validId(list: readonly { id: number }[], record: Record<string, unknown>, field: string): number | undefined {
  const id = optionalInt(record, field);
  if (id === undefined) return undefined;
  if (!list.some((s) => s.id === id)) {
    throw new RecordError('INVALID_PAYLOAD', `${field} ${id} does not exist; known: ${list.map((s) => s.id).join(', ')}`, field);
  }
  return id;
}

function validAdmin(ctx: SandboxContext, record: Record<string, unknown>): number {
  const id = optionalInt(record, 'admin_id') ?? 0;
  if (id < 0 || (id > 0 && !ctx.reference().admins.some((a) => a.admin_id === id))) {
    throw new RecordError('INVALID_PAYLOAD', `admin_id ${id} is no administrator (0 = system)`, 'admin_id');
  }
  return id;
}

function validAdmins(ctx: SandboxContext, record: Record<string, unknown>): number[] {
  const ids = idList(record, 'assigned_admins');
  const unknown = ids.filter((id) => !ctx.reference().admins.some((a) => a.admin_id === id));
  if (unknown.length > 0) throw new RecordError('INVALID_PAYLOAD', `assigned_admins: no administrator ${unknown.join(', ')}`, 'assigned_admins');
  return ids;
}

function requiredText(record: Record<string, unknown>, field: string): string {
  const v = optionalString(record, field);
  if (v === undefined || v.trim() === '') throw new RecordError('INVALID_PAYLOAD', `${field} is required`, field);
  return v;
}

/** A strict boolean flag: only JSON true/false count; anything else counts as not set, with a warning. */
function strictFlag(record: Record<string, unknown>, field: string, scope: RecordScope): boolean | undefined {
  const v = record[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  scope.warn('STRICT_BOOLEAN', `${field} must be a JSON boolean; ${JSON.stringify(v)} counts as not set`, field);
  return undefined;
}

function attachmentsOf(record: Record<string, unknown>): unknown[] {
  const v = record.attachments;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new RecordError('INVALID_PAYLOAD', 'attachments must be an array of {name, content_base64}', 'attachments');
  return v;
}

function reportFileErrors(errors: readonly FileError[], scope: RecordScope): Record<string, unknown>[] {
  for (const e of errors) scope.warn(e.code, e.message, `attachments[${e.index}]`, { name: e.name });
  return errors.map((e) => ({ index: e.index, name: e.name, code: e.code, message: e.message }));
}

function signature(ctx: SandboxContext, adminId: number): string {
  return `\n\n-- \n${adminName(ctx, adminId)}\n${ctx.settings().STORE_NAME ?? ''}`.trimEnd();
}

/** POST /import/json/tickets */
export const createTickets: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record, scope) => {
    const ref = ctx.reference();
    const subject = requiredText(record, 'ticket_subject');
    const email = requiredText(record, 'ticket_customers_email');
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new RecordError('INVALID_PAYLOAD', `ticket_customers_email is no e-mail address: ${email}`, 'ticket_customers_email');
    const name = requiredText(record, 'ticket_customers_name');
    const adminId = validAdmin(ctx, record);
    const languageId = optionalInt(record, 'ticket_language_id');
    if (languageId !== undefined && !ref.languages.some((l) => l.language_id === languageId)) {
      throw new RecordError('INVALID_PAYLOAD', `ticket_language_id ${languageId} is no shop language`, 'ticket_language_id');
    }
    const defaultLanguage = ref.languages.find((l) => l.code === (ctx.settings().DEFAULT_LANGUAGE ?? ref.master_language)) ?? ref.languages[0];
    const now = ctx.timestamp();
    const id = ctx.store.nextId('tickets');
    const ticket: Ticket = {
      ticket_id: id,
      ticket_link_id: newLinkId(ctx),
      ticket_subject: subject,
      ticket_type: optionalString(record, 'ticket_type') || DEFAULT_TICKET_TYPE,
      ticket_status_id: validId(ref.ticket_statuses, record, 'ticket_status_id') ?? ref.ticket_statuses[0].id,
      ticket_priority_id: validId(ref.ticket_priorities, record, 'ticket_priority_id') ?? (ref.ticket_priorities[1] ?? ref.ticket_priorities[0]).id,
      department_id: validId(ref.ticket_departments, record, 'ticket_department_id') ?? ref.ticket_departments[0].id,
      ticket_customers_id: optionalInt(record, 'ticket_customers_id') ?? 0,
      ticket_customers_email: email,
      ticket_customers_name: name,
      ticket_language_id: languageId ?? defaultLanguage.language_id,
      ticket_date_created: now,
      ticket_date_last_modified: now,
      ticket_date_hide_until: null,
      ticket_login_required: 0,
      ticket_allow_learning: 0,
      project_id: null,
      status_history: [],
      assigned_admins: record.assigned_admins === undefined ? [] : validAdmins(ctx, record),
      followers: [],
      linked_appointments: [],
    };
    if (record.is_public_reply === true) scope.warn('INTERNAL_ON_CREATE', 'The first comment of a new ticket is always internal; is_public_reply is ignored on create', 'is_public_reply');
    const comment = optionalString(record, 'ticket_comments');
    const hasComment = comment !== undefined && comment.trim() !== '';
    const { files, errors } = checkAttachments(ctx, attachmentsOf(record), hasComment);
    let stored: string[] = [];
    if (hasComment) {
      const historyId = nextHistoryId(ctx, id);
      stored = storeFiles(ctx, id, historyId, files);
      ticket.status_history.push(historyEntry(historyId, now, adminId, ticket.ticket_status_id, comment, false, false, false, stored));
    }
    putTicket(ctx, ticket);
    const attachmentErrors = reportFileErrors(errors, scope);
    return { ticket_id: id, ticket_link_id: ticket.ticket_link_id, attachments: stored, ...(attachmentErrors.length > 0 ? { attachment_errors: attachmentErrors } : {}) };
  });

function historyEntry(id: number, date: string, adminId: number, statusId: number, comments: string, isPublic: boolean, notified: boolean, signed: boolean, files: string[]): HistoryEntry {
  return { history_id: id, date_added: date, admin_id: adminId, ticket_status_id: statusId, comments, is_public: isPublic ? 1 : 0, customer_notified: notified ? 1 : 0, signature_appended: signed ? 1 : 0, attachments: files };
}

/** PUT /import/json/tickets */
export const updateTickets: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record, scope) => {
    const ref = ctx.reference();
    const id = optionalInt(record, 'ticket_id');
    if (id === undefined) throw new RecordError('INVALID_PAYLOAD', 'ticket_id is required on update', 'ticket_id');
    const ticket = getTicket(ctx, id);
    if (!ticket) throw new RecordError('Not found', `Ticket ${id} does not exist`, 'ticket_id', { ticket_id: id });
    const adminId = validAdmin(ctx, record);
    const isPublic = strictFlag(record, 'is_public_reply', scope) === true;
    const notify = strictFlag(record, 'notify_customer', scope) === true;
    const appendSignature = strictFlag(record, 'append_signature', scope) !== false;
    const comment = optionalString(record, 'ticket_comments');
    const hasComment = comment !== undefined && comment.trim() !== '';
    if (isPublic && adminId <= 0) throw new RecordError('INVALID_PAYLOAD', 'A public reply needs admin_id > 0 (the replying administrator)', 'admin_id');
    if (isPublic && !hasComment) scope.warn('PUBLIC_REPLY_WITHOUT_COMMENT', 'is_public_reply without ticket_comments: nothing is sent', 'is_public_reply');
    if (notify && !isPublic) scope.warn('NOTIFY_WITHOUT_PUBLIC_REPLY', 'notify_customer only works together with is_public_reply: true; no e-mail is sent', 'notify_customer');

    const subject = optionalString(record, 'ticket_subject');
    if (subject !== undefined) {
      if (subject.trim() === '') throw new RecordError('INVALID_PAYLOAD', 'ticket_subject must not be empty', 'ticket_subject');
      ticket.ticket_subject = subject;
    }
    const type = optionalString(record, 'ticket_type');
    if (type !== undefined && type !== '') ticket.ticket_type = type;
    const previousStatus = ticket.ticket_status_id;
    ticket.ticket_status_id = validId(ref.ticket_statuses, record, 'ticket_status_id') ?? ticket.ticket_status_id;
    ticket.ticket_priority_id = validId(ref.ticket_priorities, record, 'ticket_priority_id') ?? ticket.ticket_priority_id;
    ticket.department_id = validId(ref.ticket_departments, record, 'ticket_department_id') ?? ticket.department_id;
    if ('ticket_date_hide_until' in record) ticket.ticket_date_hide_until = datetimeOrNull(record, 'ticket_date_hide_until');
    if (record.ticket_login_required !== undefined) ticket.ticket_login_required = flagValue(record, 'ticket_login_required');
    if (record.ticket_allow_learning !== undefined) ticket.ticket_allow_learning = flagValue(record, 'ticket_allow_learning');
    if (record.assigned_admins !== undefined) ticket.assigned_admins = validAdmins(ctx, record);

    const now = ctx.timestamp();
    const statusChanged = ticket.ticket_status_id !== previousStatus;
    const { files, errors } = checkAttachments(ctx, attachmentsOf(record), hasComment);
    let stored: string[] = [];
    let historyId: number | undefined;
    const publicReply = isPublic && hasComment;
    const signed = publicReply && appendSignature;
    if (hasComment || statusChanged) {
      historyId = nextHistoryId(ctx, id);
      stored = storeFiles(ctx, id, historyId, files);
      const text = hasComment ? `${comment}${signed ? signature(ctx, adminId) : ''}` : '';
      ticket.status_history.push(historyEntry(historyId, now, adminId, ticket.ticket_status_id, text, publicReply, publicReply && notify, signed, stored));
    }
    ticket.ticket_date_last_modified = now;
    putTicket(ctx, ticket);

    const closing = ref.ticket_statuses.find((s) => s.id === ticket.ticket_status_id)?.closing === true;
    let claimReleased = false;
    if (publicReply) claimReleased = releaseClaim(ctx, id);
    if (statusChanged && closing) claimReleased = releaseClaim(ctx, id) || claimReleased;

    let mailSent = false;
    if (publicReply && notify) {
      // Files are on disk at this point, so the mail carries them.
      const entry = ticket.status_history[ticket.status_history.length - 1];
      ctx.sendMail({
        kind: 'ticket_reply',
        to: [ticket.ticket_customers_email],
        subject: `[${ticket.ticket_link_id}] ${ticket.ticket_subject}`,
        body: entry.comments,
        resource: 'tickets',
        recordId: id,
        attachments: mailAttachments(ctx, id, stored),
        data: { history_id: entry.history_id, admin_id: adminId },
      });
      mailSent = true;
    }
    const attachmentErrors = reportFileErrors(errors, scope);
    return {
      ticket_id: id,
      ...(historyId !== undefined ? { history_id: historyId } : {}),
      attachments: stored,
      ...(attachmentErrors.length > 0 ? { attachment_errors: attachmentErrors } : {}),
      public_reply: publicReply,
      customer_notified: mailSent,
      claim_released: claimReleased,
    };
  });

