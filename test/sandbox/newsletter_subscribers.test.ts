/**
 * Newsletter subscribers in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | with SHOP_NEWSLETTER_DOUBLE_OPT_IN a new subscriber starts unconfirmed and gets a confirmation mail | l.340, l.675 |
 * | subscribe_status_key is never exported | l.135 |
 * | export filters status, email (exact), customer_id, language_id, last_modified | l.432 |
 * | import and every delete are written to the privacy log | l.432, l.675 |
 * | delete one by id; bulk delete by subscribe_id or subscribe_email | l.429-430 |
 * | POST with a known e-mail answers Already exists (lead's wire convention) | contracts.md |
 * | the email filter compares case-insensitively (shared filter code) | l.432 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

describe('subscriber create', () => {
  it('starts unconfirmed with a confirmation mail when double opt-in is on', async () => {
    const { outcomes } = await fx().client.create('newsletter_subscribers', [{ subscribe_email: 'new@example.org', subscribe_firstname: 'Nia', subscribe_language_id: 1 }]);
    expect(outcomes[0].data).toMatchObject({ subscribe_status: 'unconfirmed', confirmation_mail_sent: true });
    const id = outcomes[0].data?.subscribe_id as number;
    const mails = (await fx().outbox()).filter((m) => m.kind === 'newsletter_double_opt_in');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: ['new@example.org'], recordId: id });
    expect(await fx().client.exportOne('newsletter_subscribers', id)).toMatchObject({ subscribe_status: 'unconfirmed', subscribe_firstname: 'Nia', subscribe_language_id: 1 });
  });

  it('starts confirmed without a mail when double opt-in is off', async () => {
    await fx().setSettings({ SHOP_NEWSLETTER_DOUBLE_OPT_IN: 'false' });
    const { outcomes } = await fx().client.create('newsletter_subscribers', [{ subscribe_email: 'direct@example.org' }]);
    expect(outcomes[0].data).toMatchObject({ subscribe_status: 'confirmed', confirmation_mail_sent: false });
    expect((await fx().outbox()).filter((m) => m.kind === 'newsletter_double_opt_in')).toHaveLength(0);
  });

  it('answers Already exists for a known e-mail, naming the existing subscriber', async () => {
    const { outcomes } = await fx().client.create('newsletter_subscribers', [{ subscribe_email: 'M.Wolf@example.com' }, { subscribe_email: 'no-address' }]);
    expect(outcomes[0].error?.apiCode).toBe('Already exists');
    expect(outcomes[0].error?.details).toMatchObject({ subscribe_id: 2 });
    expect(outcomes[1].error?.details?.field).toBe('subscribe_email');
  });
});

describe('subscriber export', () => {
  it('never returns the status key', async () => {
    const all = await collect(fx().client.exportAll('newsletter_subscribers'));
    expect(all).toHaveLength(4);
    for (const s of all) expect(s).not.toHaveProperty('subscribe_status_key');
    expect(await fx().client.exportOne('newsletter_subscribers', 1)).not.toHaveProperty('subscribe_status_key');
    const { outcomes } = await fx().client.create('newsletter_subscribers', [{ subscribe_email: 'key@example.org' }]);
    expect(JSON.stringify(outcomes[0].data)).not.toMatch(/status_key/);
  });

  it('finds a subscriber by e-mail whatever the case, and only by the whole address', async () => {
    const ids = async (email: string) => (await collect(fx().client.exportAll('newsletter_subscribers', { filters: { email } }))).map((s) => s.subscribe_id);
    expect(await ids('SAM.Taylor@Example.NET')).toEqual([3]);
    expect(await ids('sam_taylor@example.net')).toEqual([]);
    expect(await ids('%@example.net')).toEqual([]);
  });

  it('filters by status, exact e-mail, customer, language and last modified day', async () => {
    const ids = async (filters: Record<string, string | number>) => (await collect(fx().client.exportAll('newsletter_subscribers', { filters }))).map((s) => s.subscribe_id);
    expect(await ids({ status: 'confirmed' })).toEqual([1, 2]);
    expect(await ids({ status: 'unconfirmed' })).toEqual([3, 4]);
    expect(await ids({ email: 'sam.taylor@example.net' })).toEqual([3]);
    expect(await ids({ email: 'sam.taylor@example' })).toEqual([]);
    expect(await ids({ language_id: 1 })).toEqual([3]);
    await fx().client.update('newsletter_subscribers', [{ subscribe_id: 2, customers_id: 5 }]);
    expect(await ids({ customer_id: 5 })).toEqual([2]);
    expect(await ids({ last_modified: new Date().toISOString().slice(0, 10) })).toEqual([2]);
  });
});

describe('subscriber update and delete', () => {
  it('updates by id or by e-mail and answers Not found for unknown ones', async () => {
    const { outcomes } = await fx().client.update('newsletter_subscribers', [
      { subscribe_id: 1, subscribe_lastname: 'Becker-Lange' },
      { subscribe_email: 'lea.schmidt@example.de', subscribe_firstname: 'Leah' },
      { subscribe_id: 99, subscribe_firstname: 'x' },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
    expect(outcomes[2].error?.apiCode).toBe('Not found');
    expect(await fx().client.exportOne('newsletter_subscribers', 1)).toMatchObject({ subscribe_lastname: 'Becker-Lange' });
    expect(await fx().client.exportOne('newsletter_subscribers', 4)).toMatchObject({ subscribe_firstname: 'Leah' });
  });

  it('writes the privacy log on import and on every delete', async () => {
    await fx().client.create('newsletter_subscribers', [{ subscribe_email: 'p@example.org' }]);
    await fx().client.update('newsletter_subscribers', [{ subscribe_id: 1, subscribe_firstname: 'J.' }]);
    await fx().client.delete('newsletter_subscribers', 2);
    await fx().client.bulkDelete('newsletter_subscribers', { data: [{ subscribe_id: 3 }, { subscribe_email: 'LEA.schmidt@example.de' }] });
    const log = await fx().privacyLog();
    expect(log.map((e) => [e.event, e.email])).toEqual([
      ['subscriber_import', 'p@example.org'],
      ['subscriber_import', 'jana.becker@example.org'],
      ['subscriber_delete', 'm.wolf@example.com'],
      ['subscriber_delete', 'sam.taylor@example.net'],
      ['subscriber_delete', 'lea.schmidt@example.de'],
    ]);
  });

  it('bulk deletes by id or e-mail and reports entries it did not find', async () => {
    const answer = await fx().client.bulkDelete('newsletter_subscribers', { data: [{ subscribe_id: 1 }, { subscribe_email: 'm.wolf@example.com' }, { subscribe_id: 404 }] });
    expect(answer).toMatchObject({ success: true, deleted: [1, 2], not_found: [{ index: 2, code: 'Not found' }] });
    expect((await collect(fx().client.exportAll('newsletter_subscribers'))).map((s) => s.subscribe_id)).toEqual([3, 4]);
  });

  it('answers 404 when deleting an unknown subscriber', async () => {
    await expect(fx().client.delete('newsletter_subscribers', 404)).rejects.toMatchObject({ status: 404 });
  });
});
