/**
 * Tickets in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | create: required fields, default type `kunde`, validated ids | l.83-97 (create fields) |
 * | create: first comment always internal; assigned admins | l.94, l.97 |
 * | ticket_link_id is 14 alphanumeric characters | l.68 |
 * | update writes every field (subject, type, status, priority, department, hide_until, login, learning, admins) | l.101-118 |
 * | is_public_reply / notify_customer only as JSON booleans; public reply needs admin_id > 0 | l.399 (rule 1), l.113-115 |
 * | signature appended by default, only `false` opts out | l.400 (rule 2), l.116 |
 * | linked_appointments in a write: ignored without UNKNOWN_FIELD warning | l.404 (rule 6) |
 * | export with status history, assigned admins, followers, linked appointments, claim, edit_lock (300 s) | l.65-79, l.723 |
 * | export filters incl. last_modified (day) and paging | l.393 |
 * | delete cascades and answers {success, deleted_id, details} | l.406 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

const newTicket = { ticket_subject: 'Parcel damaged', ticket_customers_email: 'kim@example.org', ticket_customers_name: 'Kim Lee' };

async function ticket(id: number): Promise<Record<string, any>> {
  const record = await fx().client.exportOne('tickets', id);
  if (!record) throw new Error(`ticket ${id} missing`);
  return record as Record<string, any>;
}

describe('ticket create', () => {
  it('names each missing required field and writes nothing for that record', async () => {
    const { outcomes } = await fx().client.create('tickets', [
      { ticket_customers_email: 'a@example.org', ticket_customers_name: 'A' },
      { ticket_subject: 'x', ticket_customers_name: 'B' },
      { ticket_subject: 'x', ticket_customers_email: 'c@example.org' },
      newTicket,
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false, true]);
    expect(outcomes.slice(0, 3).map((o) => o.error?.details?.field)).toEqual(['ticket_subject', 'ticket_customers_email', 'ticket_customers_name']);
    expect(outcomes[0].error?.apiCode ?? outcomes[0].error?.code).toMatch(/INVALID_PAYLOAD/);
    const all = await collect(fx().client.exportAll('tickets'));
    expect(all).toHaveLength(5);
  });

  it('applies the defaults: type kunde, first status, a 14-character alphanumeric link id', async () => {
    const { outcomes } = await fx().client.create('tickets', [newTicket]);
    const id = outcomes[0].data?.ticket_id as number;
    const t = await ticket(id);
    expect(t.ticket_type).toBe('kunde');
    expect(t.ticket_status_id).toBe(1);
    expect(t.ticket_link_id).toMatch(/^[A-Za-z0-9]{14}$/);
    expect(outcomes[0].data?.ticket_link_id).toBe(t.ticket_link_id);
  });

  it('rejects unknown status, priority, department and admin ids', async () => {
    const { outcomes } = await fx().client.create('tickets', [
      { ...newTicket, ticket_status_id: 99 },
      { ...newTicket, ticket_priority_id: 99 },
      { ...newTicket, ticket_department_id: 99 },
      { ...newTicket, assigned_admins: [1, 99] },
      { ...newTicket, admin_id: 42, ticket_comments: 'x' },
      { ...newTicket, ticket_status_id: 2, ticket_priority_id: 4, ticket_department_id: 3, assigned_admins: [2, 3] },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false, false, false, true]);
    expect(outcomes.slice(0, 5).map((o) => o.error?.details?.field)).toEqual(['ticket_status_id', 'ticket_priority_id', 'ticket_department_id', 'assigned_admins', 'admin_id']);
    const t = await ticket(outcomes[5].data?.ticket_id as number);
    expect([t.ticket_status, t.ticket_priority, t.department_name]).toEqual(['In progress', 'Urgent', 'Billing']);
    expect(t.assigned_admins.map((a: { admin_id: number }) => a.admin_id)).toEqual([2, 3]);
  });

  it('stores the first comment as an internal note even when is_public_reply is true', async () => {
    const { outcomes } = await fx().client.create('tickets', [{ ...newTicket, ticket_comments: 'Created from the ERP', admin_id: 1, is_public_reply: true, notify_customer: true }]);
    const t = await ticket(outcomes[0].data?.ticket_id as number);
    expect(t.status_history).toHaveLength(1);
    expect(t.status_history[0]).toMatchObject({ comments: 'Created from the ERP', is_public: 0, customer_notified: 0, admin_id: 1 });
    expect(outcomes[0].warnings.map((w) => w.code)).toContain('INTERNAL_ON_CREATE');
    expect((await fx().outbox()).filter((m) => m.kind === 'ticket_reply')).toHaveLength(0);
  });
});

describe('ticket update', () => {
  it('writes every field of the update table', async () => {
    const { outcomes } = await fx().client.update('tickets', [
      {
        ticket_id: 4,
        ticket_subject: 'Garantiefrage Mühle',
        ticket_type: 'haendler',
        ticket_status_id: 2,
        ticket_priority_id: 3,
        ticket_department_id: 3,
        ticket_date_hide_until: '2030-01-31 08:00:00',
        ticket_login_required: 1,
        ticket_allow_learning: 0,
        assigned_admins: [1],
      },
    ]);
    expect(outcomes[0].ok).toBe(true);
    const t = await ticket(4);
    expect(t).toMatchObject({
      ticket_subject: 'Garantiefrage Mühle', ticket_type: 'haendler', ticket_status_id: 2, ticket_priority_id: 3, department_id: 3,
      ticket_date_hide_until: '2030-01-31 08:00:00', ticket_login_required: 1, ticket_allow_learning: 0,
    });
    expect(t.assigned_admins).toEqual([{ admin_id: 1, admin_name: 'Anna Admin' }]);
    await fx().client.update('tickets', [{ ticket_id: 4, assigned_admins: [] }]);
    expect((await ticket(4)).assigned_admins).toEqual([]);
  });

  it('answers Not found for an unknown ticket and INVALID_PAYLOAD without ticket_id', async () => {
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 999, ticket_subject: 'x' }, { ticket_subject: 'y' }]);
    expect(outcomes[0].error?.apiCode).toBe('Not found');
    expect(outcomes[1].error?.details?.field).toBe('ticket_id');
  });

  it('counts only the JSON boolean true as a public reply and a notification', async () => {
    const { outcomes } = await fx().client.update('tickets', [
      { ticket_id: 4, ticket_comments: 'string flag', admin_id: 1, is_public_reply: 'true', notify_customer: 'true' },
      { ticket_id: 4, ticket_comments: 'number flag', admin_id: 1, is_public_reply: 1, notify_customer: 1 },
      { ticket_id: 4, ticket_comments: 'real reply', admin_id: 1, is_public_reply: true, notify_customer: true },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
    expect(outcomes[0].warnings.map((w) => w.code)).toEqual(['STRICT_BOOLEAN', 'STRICT_BOOLEAN']);
    const history = (await ticket(4)).status_history.slice(-3);
    expect(history.map((h: { is_public: number }) => h.is_public)).toEqual([0, 0, 1]);
    const mails = (await fx().outbox()).filter((m) => m.kind === 'ticket_reply');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: ['lea.schmidt@example.de'] });
    expect(String(mails[0].body)).toContain('real reply');
  });

  it('refuses a public reply without an administrator and sends no mail for an internal note', async () => {
    const { outcomes } = await fx().client.update('tickets', [
      { ticket_id: 4, ticket_comments: 'from system', admin_id: 0, is_public_reply: true },
      { ticket_id: 4, ticket_comments: 'no author', is_public_reply: true },
      { ticket_id: 4, ticket_comments: 'internal but notify', admin_id: 2, notify_customer: true },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, true]);
    expect(outcomes[0].error?.details?.field).toBe('admin_id');
    expect(outcomes[2].warnings.map((w) => w.code)).toContain('NOTIFY_WITHOUT_PUBLIC_REPLY');
    const history = (await ticket(4)).status_history;
    expect(history.map((h: { comments: string }) => h.comments)).not.toContain('from system');
    expect((await fx().outbox()).filter((m) => m.kind === 'ticket_reply')).toHaveLength(0);
  });

  it('appends the signature to public replies unless append_signature is false', async () => {
    await fx().client.update('tickets', [
      { ticket_id: 4, ticket_comments: 'with default', admin_id: 3, is_public_reply: true },
      { ticket_id: 4, ticket_comments: 'opted out', admin_id: 3, is_public_reply: true, append_signature: false },
      { ticket_id: 4, ticket_comments: 'string false', admin_id: 3, is_public_reply: true, append_signature: 'false' },
      { ticket_id: 4, ticket_comments: 'internal', admin_id: 3 },
    ]);
    const history = (await ticket(4)).status_history.slice(-4);
    expect(history.map((h: { signature_appended: number }) => h.signature_appended)).toEqual([1, 0, 1, 0]);
    expect(history[0].comments).toMatch(/^with default\n\n-- \nClara Support/);
    expect(history[1].comments).toBe('opted out');
    expect(history[3].comments).toBe('internal');
  });

  it('ignores linked_appointments in a write without an UNKNOWN_FIELD warning', async () => {
    const before = (await ticket(1)).linked_appointments;
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 1, ticket_priority_id: 3, linked_appointments: [{ appointment_id: 9, title: 'x' }] }]);
    expect(outcomes[0].ok).toBe(true);
    expect(outcomes[0].warnings).toEqual([]);
    const after = await ticket(1);
    expect(after.linked_appointments).toEqual(before);
    expect(after.ticket_priority_id).toBe(3);
  });
});

describe('ticket export', () => {
  it('carries status history, assigned admins, followers, linked appointments, claim and edit lock', async () => {
    const t = await ticket(1);
    expect(t.status_history).toHaveLength(3);
    expect(t.status_history[1]).toMatchObject({ admin_id: 3, admin_name: 'Clara Support', is_public: 1 });
    expect(t.assigned_admins).toEqual([{ admin_id: 3, admin_name: 'Clara Support' }]);
    expect(t.followers).toEqual([{ admin_id: 1, admin_name: 'Anna Admin' }]);
    expect(t.linked_appointments[0]).toMatchObject({ appointment_id: 501, allday: 0, done: 0, title: 'Call back Jana Becker' });
    expect(t.claim).toBeNull();
    expect(t.edit_lock).toMatchObject({ admin_id: 3, admin_name: 'Clara Support' });
    const claimed = await ticket(2);
    expect(claimed.claim).toMatchObject({ admin_id: 2, admin_name: 'Ben Backoffice', label: 'ERP sync' });
    expect(claimed.claim.expires_in_seconds).toBeGreaterThan(3 * 3600);
  });

  it('sets and clears an edit lock through PUT /sandbox/locks', async () => {
    const set = await fx().http.put('/sandbox/locks', { resource: 'tickets', ticket_id: 2, admin_id: 1 });
    expect(set.data.edit_lock).toMatchObject({ admin_id: 1, admin_name: 'Anna Admin' });
    expect((await ticket(2)).edit_lock).toMatchObject({ admin_id: 1 });
    await fx().http.put('/sandbox/locks', { resource: 'tickets', ticket_id: 2, admin_id: null });
    expect((await ticket(2)).edit_lock).toBeNull();
    expect((await fx().http.put('/sandbox/locks', { resource: 'tickets', ticket_id: 999, admin_id: 1 })).status).toBe(404);
  });

  it('drops the edit lock 300 seconds after the last form activity', async () => {
    // A minute of margin on each side: the sandbox clock runs with the wall clock, and a loaded machine is slow.
    await fx().advanceClock(240);
    expect((await ticket(1)).edit_lock).not.toBeNull();
    await fx().advanceClock(70);
    expect((await ticket(1)).edit_lock).toBeNull();
  });

  it('filters by status, priority, department, customer, assigned admin, type, language and dates', async () => {
    const ids = async (filters: Record<string, string | number>) => (await collect(fx().client.exportAll('tickets', { filters }))).map((t) => t.ticket_id);
    expect(await ids({ status: 4 })).toEqual([3]);
    expect(await ids({ priority: 3 })).toEqual([3]);
    expect(await ids({ department: 3 })).toEqual([2]);
    expect(await ids({ admin_id: 3 })).toEqual([1, 3]);
    expect(await ids({ language: 'en' })).toEqual([3]);
    expect(await ids({ language: 1 })).toEqual([3]);
    expect(await ids({ type: 'kunde' })).toEqual([1, 2, 3, 4]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids({ date_from: today })).toEqual([]);
    expect(await ids({ date_to: today })).toEqual([1, 2, 3, 4]);
    await fx().client.update('tickets', [{ ticket_id: 2, ticket_customers_id: 7, ticket_comments: 'note', admin_id: 2 }]);
    expect(await ids({ last_modified: today })).toEqual([2]);
  });

  it('pages with limit and offset and reports the total', async () => {
    const res = await fx().http.get('/export/json/tickets', { params: { limit: 3, offset: 2 } });
    expect(res.data.pagination).toEqual({ total: 4, limit: 3, offset: 2 });
    expect(res.data.data.map((t: { ticket_id: number }) => t.ticket_id)).toEqual([3, 4]);
    const clamped = await fx().http.get('/export/json/tickets', { params: { limit: 1000 } });
    expect(clamped.data.pagination.limit).toBe(250);
  });
});

describe('ticket delete', () => {
  it('cascades and answers with the deleted ticket details', async () => {
    const before = await ticket(1);
    const answer = await fx().client.delete('tickets', 1);
    expect(answer).toMatchObject({ success: true, deleted_id: 1, details: { ticket_id: 1, ticket_subject: 'Lieferung unvollständig', ticket_link_id: before.ticket_link_id } });
    expect(answer.cascade).toEqual({ status_history: 3, assigned_admins: 1, followers: 1, appointment_links: 1, files: 0 });
    expect(await fx().client.exportOne('tickets', 1)).toBeUndefined();
    const again = await fx().http.delete('/delete/json/ticket/1');
    expect(again.status).toBe(404);
  });
});
