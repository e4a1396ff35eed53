/** The tickets handler: export, create/update, delete with cascade, attachments, claims. */
import type { OperationHandler, ResourceHandler } from '../../handler.js';
import { API_VERSION, fail, oneReply, typeName } from '../../kit.js';
import { exportFromStore, intQuery } from '../../exports.js';
import { seedTickets } from '../../seed/tickets.js';
import { findLanguage } from '../content/languages.js';
import { pathId } from '../content/values.js';
import { claimTickets } from './claims.js';
import { deleteFiles, listFiles, readFile } from './files.js';
import { clearEditLock, clearTicketTables, getTicket, initTicketTables, TICKETS, ticketView, type Ticket } from './model.js';
import { createTickets, updateTickets } from './write.js';

const exportTickets: OperationHandler = (ctx, req) => {
  const adminId = intQuery(req.query, 'admin_id');
  const languageRaw = req.query.language;
  const language = languageRaw ? findLanguage(ctx, languageRaw) : undefined;
  if (languageRaw && !language) fail(400, 'INVALID_PAYLOAD', `language \`${languageRaw}\` is no shop language (code or id)`);
  return exportFromStore(ctx, req, {
    manualParams: ['admin_id', 'language'],
    keep: (r) => {
      const t = r as unknown as Ticket;
      return (adminId === undefined || t.assigned_admins.includes(adminId)) && (language === undefined || t.ticket_language_id === language.language_id);
    },
    view: (r) => ticketView(ctx, r as unknown as Ticket),
  });
};

const exportTicket: OperationHandler = (ctx, req) => {
  const ticket = getTicket(ctx, pathId(req));
  if (!ticket) fail(404, 'Not found', `Ticket ${req.params.id} does not exist`);
  return oneReply(req.resource, ticketView(ctx, ticket));
};

/** DELETE /delete/json/ticket/{id}: history, assignments, followers, appointment links, files, claim, the ticket. */
const deleteTicket: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  const ticket = getTicket(ctx, id);
  if (!ticket) fail(404, 'Not found', `Ticket ${id} does not exist`);
  const files = deleteFiles(ctx, id);
  ctx.sql('DELETE FROM sandbox_ticket_claims WHERE ticket_id = ?').run(id);
  clearEditLock(ctx, id);
  ctx.store.delete(TICKETS, id);
  return {
    status: 200,
    body: {
      success: true,
      api_version: API_VERSION,
      type: typeName(req.resource),
      deleted_id: id,
      details: { ticket_id: id, ticket_subject: ticket.ticket_subject, ticket_link_id: ticket.ticket_link_id },
      cascade: {
        status_history: ticket.status_history.length,
        assigned_admins: ticket.assigned_admins.length,
        followers: ticket.followers.length,
        appointment_links: ticket.linked_appointments.length,
        files,
      },
    },
  };
};

const listAttachments: OperationHandler = (ctx, req) => {
  const ticket = getTicket(ctx, pathId(req));
  if (!ticket) fail(404, 'Not found', `Ticket ${req.params.id} does not exist`);
  return { status: 200, body: { success: true, api_version: API_VERSION, ticket_id: ticket.ticket_id, ticket_link_id: ticket.ticket_link_id, files: listFiles(ctx, ticket.ticket_id) } };
};

const downloadAttachment: OperationHandler = (ctx, req) => {
  const ticket = getTicket(ctx, pathId(req));
  if (!ticket) fail(404, 'Not found', `Ticket ${req.params.id} does not exist`);
  const name = req.query.file;
  if (!name) fail(400, 'INVALID_PAYLOAD', 'The query parameter file=<name> is required');
  const file = readFile(ctx, ticket.ticket_id, name);
  if (file === 'unsafe') fail(400, 'INVALID_PAYLOAD', `file must be a plain file name of this ticket, got \`${name}\``);
  if (!file) fail(404, 'Not found', `Ticket ${ticket.ticket_id} has no file ${name}`);
  return {
    status: 200,
    body: file.content,
    headers: {
      'Content-Type': file.info.mime_type,
      'Content-Disposition': `attachment; filename="${file.info.name}"`,
      'Content-Length': String(file.content.length),
      'X-Content-Type-Options': 'nosniff',
    },
  };
};

/** The sandbox handler of tickets (registered in handlers/index.ts). */
export const ticketsHandler: ResourceHandler = {
  indexes: ['ticket_link_id'],
  init: initTicketTables,
  seed(ctx, kind) {
    clearTicketTables(ctx);
    if (kind === 'demo') seedTickets(ctx);
  },
  export: exportTickets,
  exportOne: exportTicket,
  create: createTickets,
  update: updateTickets,
  delete: deleteTicket,
  extra: { claims: claimTickets, attachments: listAttachments, attachment: downloadAttachment },
};
