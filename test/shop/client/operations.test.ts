import { describe, expect, it } from 'vitest';
import { fileNameFrom, isResourceName, type ResourceName } from '../../../src/shop/index.js';
import { collect, page, shop, testClient, useNock } from './helpers.js';

describe('resource-specific operations', () => {
  useNock();

  it('downloads an attachment as bytes with its Content-Type and file name', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
    shop()
      .get('/export/json/ticket_attachment/12')
      .query({ file: 'report.pdf' })
      .reply(200, bytes, { 'Content-Type': 'application/pdf', 'Content-Disposition': 'attachment; filename="12_3_report.pdf"' });
    const { client } = testClient();
    const file = await client.downloadTicketAttachment(12, 'report.pdf');
    expect(file.contentType).toBe('application/pdf');
    expect(file.fileName).toBe('12_3_report.pdf');
    expect(file.data.equals(bytes)).toBe(true);
  });

  it('turns a JSON error of the download into its typed error', async () => {
    shop().get('/export/json/ticket_attachment/12').query({ file: '../etc/passwd' }).reply(404, { success: false, error: { code: 'Not found', message: 'no such file' } });
    const { client } = testClient();
    await expect(client.downloadTicketAttachment(12, '../etc/passwd')).rejects.toMatchObject({ name: 'NotFoundError', code: 'NOT_FOUND' });
  });

  it('reads file names from Content-Disposition, preferring filename* and dropping directories', () => {
    expect(fileNameFrom("attachment; filename=\"a.txt\"; filename*=UTF-8''%C3%BCbersicht.pdf")).toBe('übersicht.pdf');
    expect(fileNameFrom('attachment; filename=plain.csv')).toBe('plain.csv');
    expect(fileNameFrom('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(fileNameFrom('attachment; filename=".."')).toBeUndefined();
    expect(fileNameFrom('attachment')).toBeUndefined();
    expect(fileNameFrom(undefined)).toBeUndefined();
  });

  it('lists the attachments of a ticket and validates the listing', async () => {
    shop().get('/export/json/ticket_attachments/12').reply(200, { success: true, ticket_id: 12, ticket_link_id: 'T12', files: [{ name: '12_3_report.pdf', size: 6, mime_type: 'application/pdf', last_modified: '2026-11-01 10:00:00' }] });
    shop().get('/export/json/ticket_attachments/13').reply(200, { success: true, ticket_id: 13, files: [] });
    const { client } = testClient();
    expect((await client.listTicketAttachments(12)).files[0].name).toBe('12_3_report.pdf');
    await expect(client.listTicketAttachments(13)).rejects.toMatchObject({ code: 'INVALID_RESPONSE', message: expect.stringContaining('ticket_link_id') });
  });

  it('returns a claim conflict (HTTP 200) as a response, not an error', async () => {
    const holder = { admin_id: 2, admin_name: 'Eva', label: 'erp', claimed_at: '2026-11-22 02:00:00', expires_at: '2026-11-22 03:00:00', expires_in_seconds: 3000 };
    shop()
      .put('/import/json/ticket_claims', { type: 'ticket_claims', data: [{ ticket_id: 5, admin_id: 1, state: 'claimed', ttl_minutes: 30 }] })
      .reply(200, {
        success: false,
        outcome: 'failed',
        stats: { total: 1, claimed: 0, refreshed: 0, taken_over: 0, released: 0, unchanged: 0, failed: 1 },
        errors: [{ record: 0, error: 'Ticket 5 is claimed by Eva; use force=true to take it over' }],
        records: [{ index: 0, ticket_id: 5, status: 'conflict', claim: holder }],
      });
    const { client } = testClient();
    const answer = await client.claimTickets([{ ticket_id: 5, admin_id: 1, state: 'claimed', ttl_minutes: 30 }]);
    expect(answer.records[0]).toMatchObject({ status: 'conflict', claim: { admin_id: 2 } });
    expect(answer.errors[0].record).toBe(0);
  });

  it('refuses claims the shop would misread before sending them', async () => {
    const { client } = testClient();
    await expect(client.claimTickets([{ ticket_id: 5, admin_id: 1, state: 'claimed', force: 'true' as unknown as boolean }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('[0].force') });
    await expect(client.claimTickets([])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('changes a contract status and never repeats it after a lost answer', async () => {
    shop().put('/import/json/contracts/3/status', { contracts_status: 2 }).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const { client } = testClient();
    await expect(client.setContractStatus(3, 2)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
  });

  it('deletes by an alternative key where the registry allows one', async () => {
    shop().delete('/delete/json/products').query({ products_model: 'M-1' }).reply(200, { success: true, deleted: [4] });
    const { client } = testClient();
    expect((await client.delete('products', { products_model: 'M-1' })).deleted).toEqual([4]);
    await expect(client.delete('products', { ean: '1' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it.skipIf(!isResourceName('seohistory'))('bulk deletes by ids in the body or by query selectors', async () => {
    shop().delete('/delete/json/seohistory', { sh_id: [1, 2] }).reply(200, { success: true, deleted: [1, 2] });
    shop().delete('/delete/json/seohistory').query({ expired: 1 }).reply(200, { success: true, deleted: [7] });
    const { client } = testClient();
    const name = 'seohistory' as ResourceName;
    expect((await client.bulkDelete(name, { sh_id: [1, 2] })).deleted).toEqual([1, 2]);
    expect((await client.bulkDelete(name, { expired: 1 })).deleted).toEqual([7]);
    await expect(client.bulkDelete(name, {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it.skipIf(!isResourceName('categories'))('pages through the category productlist', async () => {
    const { client } = testClient();
    const categories = (await import('../../../src/shop/index.js')).getResource('categories');
    const limit = categories.ops.export?.paging.maxLimit ?? 100;
    const rows = Array.from({ length: limit }, (_, i) => ({ categories_id: i + 1, products: [] }));
    shop().get('/categories/productlist').query({ status: 1, limit, offset: 0 }).reply(200, page('categories_productlist', rows, limit + 1, limit, 0));
    shop().get('/categories/productlist').query({ status: 1, limit, offset: limit }).reply(200, page('categories_productlist', [{ categories_id: limit + 1 }], limit + 1, limit, limit));
    expect(await collect(client.categoryProductList({ status: 1 }))).toHaveLength(limit + 1);
  });
});
