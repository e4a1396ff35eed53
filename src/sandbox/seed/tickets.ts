/** Demo tickets: a conversation with public replies, an internal note, appointments, a claim and an edit lock. */
import type { SandboxContext } from '../handler.js';
import { writeClaim } from '../handlers/tickets/claims-store.js';
import { newLinkId, nextHistoryId, putTicket, touchEditLock, type Ticket } from '../handlers/tickets/model.js';
import { formatDateTime } from '../dates.js';

function ago(ctx: SandboxContext, days: number, hours = 0): string {
  return formatDateTime(new Date(ctx.now().getTime() - (days * 24 + hours) * 3_600_000));
}

/** Load the demo tickets. */
export function seedTickets(ctx: SandboxContext): void {
  const base = (id: number, subject: string, email: string, name: string, createdDaysAgo: number): Ticket => ({
    ticket_id: id,
    ticket_link_id: newLinkId(ctx),
    ticket_subject: subject,
    ticket_type: 'kunde',
    ticket_status_id: 1,
    ticket_priority_id: 2,
    department_id: 1,
    ticket_customers_id: 0,
    ticket_customers_email: email,
    ticket_customers_name: name,
    ticket_language_id: 2,
    ticket_date_created: ago(ctx, createdDaysAgo),
    ticket_date_last_modified: ago(ctx, createdDaysAgo),
    ticket_date_hide_until: null,
    ticket_login_required: 0,
    ticket_allow_learning: 1,
    project_id: null,
    status_history: [],
    assigned_admins: [],
    followers: [],
    linked_appointments: [],
  });
  const entry = (t: Ticket, daysAgo: number, adminId: number, statusId: number, comments: string, isPublic: boolean) => {
    t.status_history.push({
      history_id: nextHistoryId(ctx, t.ticket_id),
      date_added: ago(ctx, daysAgo),
      admin_id: adminId,
      ticket_status_id: statusId,
      comments,
      is_public: isPublic ? 1 : 0,
      customer_notified: isPublic ? 1 : 0,
      signature_appended: isPublic ? 1 : 0,
      attachments: [],
    });
    t.ticket_status_id = statusId;
    t.ticket_date_last_modified = ago(ctx, daysAgo);
  };

  const delivery = base(1, 'Lieferung unvollständig', 'jana.becker@example.org', 'Jana Becker', 6);
  entry(delivery, 6, 0, 1, 'Customer wrote via contact form: one of two items missing.', false);
  entry(delivery, 5, 3, 2, 'Sorry for the trouble, we are checking with the warehouse.', true);
  entry(delivery, 4, 3, 3, 'The second parcel left today; tracking follows.', true);
  delivery.assigned_admins = [3];
  delivery.followers = [1];
  delivery.linked_appointments = [
    { appointment_id: 501, startdate: ago(ctx, -1), enddate: ago(ctx, -1, -1), allday: 0, done: 0, status_id: 1, title: 'Call back Jana Becker', description: 'Confirm the second parcel arrived', location: 'Phone' },
  ];
  putTicket(ctx, delivery);

  const invoice = base(2, 'Rechnungskopie benötigt', 'm.wolf@example.com', 'Markus Wolf', 3);
  invoice.department_id = 3;
  entry(invoice, 3, 0, 1, 'Needs an invoice copy for order 1002.', false);
  entry(invoice, 2, 2, 2, 'Internal: accounting asked for the company address first.', false);
  invoice.assigned_admins = [2];
  putTicket(ctx, invoice);

  const returned = base(3, 'Return of a damaged kettle', 'sam.taylor@example.net', 'Sam Taylor', 12);
  returned.ticket_language_id = 1;
  returned.ticket_priority_id = 3;
  entry(returned, 12, 0, 1, 'Kettle arrived with a cracked lid.', false);
  entry(returned, 11, 1, 4, 'We refunded the kettle; no need to send it back.', true);
  returned.assigned_admins = [1, 3];
  putTicket(ctx, returned);

  const question = base(4, 'Frage zur Garantie', 'lea.schmidt@example.de', 'Lea Schmidt', 1);
  question.department_id = 2;
  question.project_id = 1;
  entry(question, 1, 0, 1, 'How long is the warranty on the espresso grinder?', false);
  putTicket(ctx, question);

  const now = ctx.now();
  writeClaim(ctx, 2, 2, 'ERP sync', formatDateTime(now), new Date(now.getTime() + 4 * 3_600_000));
  touchEditLock(ctx, 1, 3);
}
