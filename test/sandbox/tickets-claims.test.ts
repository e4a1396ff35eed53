/**
 * Ticket processing claims in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | no claim + claimed -> `claimed` | l.325 |
 * | same admin -> `refreshed`, claimed_at kept, expiry never shortened | l.326, l.415 |
 * | other admin, no force -> `conflict`, HTTP 200, success:false, outcome failed, error names holder, advises force | l.327, l.419, l.702 |
 * | other admin, force=true -> `taken_over` with previous_claim | l.328 |
 * | release own or forced -> `released` with previous_claim; nothing to release -> `unchanged` | l.329-330 |
 * | auto release: public reply (any author), actual change to a closing status, expiry; internal note keeps it | l.331-333, l.335 |
 * | ttl_minutes default 60, clamped to 5..240; label max 32 without HTML; force JSON boolean only | l.415-417, l.720-721 |
 * | response: success, outcome, api_version, type, stats, errors[record, error], timestamp, records[] | l.419 |
 * | claims change neither ticket_date_last_modified nor history nor the delta export | l.335 |
 * | of two simultaneous claims exactly one gets `conflict` | l.335 |
 * | 503 TICKET_CLAIMS_UNAVAILABLE while the claim storage is missing | l.700 |
 */
import { describe, expect, it } from 'vitest';
import type { ClaimRequest } from '../../src/shop/index.js';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

const claim = (ticket_id: number, admin_id: number, extra: Partial<ClaimRequest> = {}): ClaimRequest => ({ ticket_id, admin_id, state: 'claimed', ...extra });
const release = (ticket_id: number, admin_id: number, extra: Partial<ClaimRequest> = {}): ClaimRequest => ({ ticket_id, admin_id, state: 'released', ...extra });

const seconds = (from: string, to: string) => (Date.parse(`${to.replace(' ', 'T')}Z`) - Date.parse(`${from.replace(' ', 'T')}Z`)) / 1000;

async function currentClaim(id: number): Promise<Record<string, unknown> | null> {
  return ((await fx().client.exportOne('tickets', id))?.claim ?? null) as Record<string, unknown> | null;
}

describe('claim states', () => {
  it('claims a free ticket with the default term of 60 minutes and answers the full shape', async () => {
    const answer = await fx().client.claimTickets([claim(4, 1, { label: 'ERP' })]);
    expect(answer).toMatchObject({ success: true, outcome: 'success', api_version: '2.118.1', type: 'ticket_claims', errors: [] });
    expect(answer.stats).toEqual({ total: 1, claimed: 1, refreshed: 0, taken_over: 0, released: 0, unchanged: 0, failed: 0 });
    expect(answer.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const record = answer.records[0];
    expect(record).toMatchObject({ index: 0, ticket_id: 4, status: 'claimed', claim: { admin_id: 1, admin_name: 'Anna Admin', label: 'ERP' } });
    expect(seconds(record.claim!.claimed_at, record.claim!.expires_at)).toBe(3600);
    expect(await currentClaim(4)).toMatchObject({ admin_id: 1, label: 'ERP' });
  });

  it('refreshes the own claim: claimed_at kept, expiry extended but never shortened', async () => {
    const first = (await fx().client.claimTickets([claim(4, 1, { ttl_minutes: 120 })])).records[0].claim!;
    await fx().advanceClock(60);
    const shorter = (await fx().client.claimTickets([claim(4, 1, { ttl_minutes: 5 })])).records[0];
    expect(shorter.status).toBe('refreshed');
    expect(shorter.claim).toMatchObject({ claimed_at: first.claimed_at, expires_at: first.expires_at });
    const longer = (await fx().client.claimTickets([claim(4, 1, { ttl_minutes: 240 })])).records[0];
    expect(longer.claim!.claimed_at).toBe(first.claimed_at);
    expect(seconds(first.claimed_at, longer.claim!.expires_at)).toBe(60 + 240 * 60);
  });

  it('answers a conflict with HTTP 200, success false, the holder named and nothing written', async () => {
    const res = await fx().http.put('/import/json/ticket_claims', { type: 'ticket_claims', data: [claim(2, 3)] });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ success: false, outcome: 'failed', stats: { failed: 1, claimed: 0 } });
    expect(res.data.records[0]).toMatchObject({ status: 'conflict', claim: { admin_id: 2, admin_name: 'Ben Backoffice' } });
    expect(res.data.errors[0].record).toBe(0);
    expect(res.data.errors[0].error).toMatch(/Ben Backoffice/);
    expect(res.data.errors[0].error).toMatch(/force=true/);
    expect(await currentClaim(2)).toMatchObject({ admin_id: 2, label: 'ERP sync' });
  });

  it('takes over with force=true and reports the previous claim', async () => {
    const answer = await fx().client.claimTickets([claim(2, 3, { force: true, label: 'desk' })]);
    expect(answer.records[0]).toMatchObject({ status: 'taken_over', claim: { admin_id: 3, label: 'desk' }, previous_claim: { admin_id: 2, label: 'ERP sync' } });
    expect(answer.stats.taken_over).toBe(1);
  });

  it('releases an own claim, refuses another admin without force, releases with force, and reports unchanged', async () => {
    const foreign = await fx().client.claimTickets([release(2, 1)]);
    expect(foreign.records[0].status).toBe('conflict');
    expect(await currentClaim(2)).not.toBeNull();
    const forced = await fx().client.claimTickets([release(2, 1, { force: true })]);
    expect(forced.records[0]).toMatchObject({ status: 'released', claim: null, previous_claim: { admin_id: 2 } });
    await fx().client.claimTickets([claim(4, 1)]);
    const own = await fx().client.claimTickets([release(4, 1), release(3, 1)]);
    expect(own.records.map((r) => r.status)).toEqual(['released', 'unchanged']);
    expect(own.stats).toMatchObject({ total: 2, released: 1, unchanged: 1, failed: 0 });
    expect(await currentClaim(4)).toBeNull();
  });
});

describe('claim input rules', () => {
  it('clamps ttl_minutes to 5..240', async () => {
    const answer = await fx().client.claimTickets([claim(1, 1, { ttl_minutes: 1 }), claim(3, 1, { ttl_minutes: 1000 })]);
    const [short, long] = answer.records.map((r) => seconds(r.claim!.claimed_at, r.claim!.expires_at));
    expect([short, long]).toEqual([5 * 60, 240 * 60]);
  });

  it('removes HTML from the label and cuts it to 32 characters', async () => {
    const short = await fx().client.claimTickets([claim(1, 1, { label: '<b>ERP</b> <i>sync</i>' })]);
    expect(short.records[0].claim?.label).toBe('ERP sync');
    // The client refuses labels over 32 characters before sending; the shop side cuts what it gets.
    await expect(fx().client.claimTickets([claim(3, 1, { label: 'x'.repeat(33) })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const res = await fx().http.put('/import/json/ticket_claims', { type: 'ticket_claims', data: [claim(3, 1, { label: '<b>ERP</b> <i>nightly</i> sync from the warehouse system' })] });
    expect(res.data.records[0].claim.label).toBe('ERP nightly sync from the wareho');
  });

  it('takes force only as a JSON boolean and names invalid records in errors[]', async () => {
    const res = await fx().http.put('/import/json/ticket_claims', {
      type: 'ticket_claims',
      data: [claim(2, 3, { force: 'true' as unknown as boolean }), claim(999, 1), claim(4, 99), { ticket_id: 4, admin_id: 1 }],
    });
    expect(res.data.success).toBe(false);
    expect(res.data.stats).toMatchObject({ total: 4, failed: 4 });
    expect(res.data.errors.map((e: { record: number }) => e.record)).toEqual([0, 1, 2, 3]);
    expect(res.data.errors[0].error).toMatch(/force must be a JSON boolean/);
    expect(await currentClaim(2)).toMatchObject({ admin_id: 2 });
  });
});

describe('automatic release', () => {
  it('releases on a public reply by any administrator but not on an internal note', async () => {
    await fx().client.update('tickets', [{ ticket_id: 2, ticket_comments: 'internal note', admin_id: 3 }]);
    expect(await currentClaim(2)).not.toBeNull();
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 2, ticket_comments: 'Here is your copy', admin_id: 3, is_public_reply: true }]);
    expect(outcomes[0].data?.claim_released).toBe(true);
    expect(await currentClaim(2)).toBeNull();
  });

  it('releases on an actual change to a closing status only', async () => {
    await fx().client.claimTickets([claim(3, 1)]);
    await fx().client.update('tickets', [{ ticket_id: 3, ticket_status_id: 4, ticket_subject: 'Return of a damaged kettle (done)' }]);
    expect(await currentClaim(3)).not.toBeNull();
    await fx().client.update('tickets', [{ ticket_id: 3, ticket_status_id: 5 }]);
    expect(await currentClaim(3)).toBeNull();
    await fx().client.claimTickets([claim(4, 1)]);
    await fx().client.update('tickets', [{ ticket_id: 4, ticket_status_id: 2 }]);
    expect(await currentClaim(4)).not.toBeNull();
  });

  it('releases when the term expires, so another admin can claim without conflict', async () => {
    await fx().client.claimTickets([claim(4, 1, { ttl_minutes: 5 })]);
    // A minute of margin on each side: the sandbox clock runs with the wall clock, and a loaded machine is slow.
    await fx().advanceClock(240);
    expect(await currentClaim(4)).not.toBeNull();
    await fx().advanceClock(70);
    expect(await currentClaim(4)).toBeNull();
    const answer = await fx().client.claimTickets([claim(4, 3)]);
    expect(answer.records[0].status).toBe('claimed');
  });
});

describe('claims and the rest of the ticket', () => {
  it('change neither last-modified, history nor the delta export', async () => {
    const before = await fx().client.exportOne('tickets', 4);
    await fx().client.claimTickets([claim(4, 1)]);
    await fx().client.claimTickets([claim(4, 3, { force: true })]);
    const released = await fx().client.claimTickets([release(4, 3)]);
    const after = await fx().client.exportOne('tickets', 4);
    expect(after?.ticket_date_last_modified).toBe(before?.ticket_date_last_modified);
    expect(after?.status_history).toEqual(before?.status_history);
    // The shop's own day, not this process's: the sandbox clock was advanced by earlier tests, so near
    // midnight the wall clock's date and the shop's differ (and the seed's "a day ago" moves with the shop's).
    const today = (released.timestamp ?? '').slice(0, 10);
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const delta = await collect(fx().client.exportAll('tickets', { filters: { last_modified: today } }));
    expect(delta).toEqual([]);
  });

  it('gives exactly one of two simultaneous claims a conflict', async () => {
    const [a, b] = await Promise.all([fx().client.claimTickets([claim(4, 1)]), fx().client.claimTickets([claim(4, 3)])]);
    const statuses = [a.records[0].status, b.records[0].status].sort();
    expect(statuses).toEqual(['claimed', 'conflict']);
    const winner = a.records[0].status === 'claimed' ? 1 : 3;
    expect(await currentClaim(4)).toMatchObject({ admin_id: winner });
  });

  it('answers 503 TICKET_CLAIMS_UNAVAILABLE while the claim storage is missing', async () => {
    await fx().setSettings({ SANDBOX_TICKET_CLAIMS_MISSING: 'true' });
    await expect(fx().client.claimTickets([claim(4, 1)])).rejects.toMatchObject({ status: 503, apiCode: 'TICKET_CLAIMS_UNAVAILABLE' });
    expect(await currentClaim(2)).toBeNull();
    await fx().setSettings({ SANDBOX_TICKET_CLAIMS_MISSING: 'false' });
    expect((await fx().client.claimTickets([claim(4, 1)])).records[0].status).toBe('claimed');
  });
});
