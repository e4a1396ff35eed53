/**
 * Ticket attachments in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | attachments are name + content_base64, stored as `<ticket>_<history id>_<name>`, names returned per record | l.120, l.402 (rule 4) |
 * | extension allowlist, invalid Base64, size over API_MEDIA_MAX_FILESIZE: one error per file, update succeeds | l.403 (rule 5), l.704, l.722 |
 * | attachments without ticket_comments: each file rejected | l.401 (rule 3) |
 * | identical content is deduplicated by hash | l.402 (rule 4) |
 * | listing: success, ticket_id, ticket_link_id, files[name, size, mime_type, last_modified] | l.122, l.395 |
 * | download: binary, right Content-Type, Content-Disposition attachment, safe against path traversal | l.395 |
 * | with public reply + notify_customer the files are written before the mail and go out with it | l.403 (rule 5) |
 * | the outbox mail lists its files in `attachments` (name, size, mime_type), not in `data` | l.403 (rule 5) |
 */
import { describe, expect, it } from 'vitest';
import { b64, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

const PDF = '%PDF-1.4\n% shopsync test\n';

describe('ticket attachments', () => {
  it('stores valid files under <ticket>_<history id>_<name> and returns the assigned names', async () => {
    const { outcomes } = await fx().client.update('tickets', [
      { ticket_id: 2, ticket_comments: 'Invoice copy attached', admin_id: 2, attachments: [{ name: 'invoice 1002.pdf', content_base64: b64(PDF) }, { name: 'notes.txt', content_base64: b64('hello') }] },
    ]);
    expect(outcomes[0].ok).toBe(true);
    const historyId = outcomes[0].data?.history_id as number;
    expect(outcomes[0].data?.attachments).toEqual([`2_${historyId}_invoice_1002.pdf`, `2_${historyId}_notes.txt`]);
    const listing = await fx().client.listTicketAttachments(2);
    const ticket = await fx().client.exportOne('tickets', 2);
    expect(listing).toMatchObject({ success: true, ticket_id: 2, ticket_link_id: ticket?.ticket_link_id });
    expect(listing.files.map((f) => [f.name, f.size, f.mime_type])).toEqual([
      [`2_${historyId}_invoice_1002.pdf`, Buffer.byteLength(PDF), 'application/pdf'],
      [`2_${historyId}_notes.txt`, 5, 'text/plain'],
    ]);
    expect(listing.files[0].last_modified).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('rejects each bad file with its own error while the update itself succeeds', async () => {
    await fx().setSettings({ API_MEDIA_MAX_FILESIZE: '64' });
    const { outcomes } = await fx().client.update('tickets', [
      {
        ticket_id: 4,
        ticket_comments: 'Four files',
        admin_id: 1,
        attachments: [
          { name: 'tool.exe', content_base64: b64('MZ') },
          { name: 'broken.pdf', content_base64: 'not base64!!' },
          { name: 'big.txt', content_base64: b64('x'.repeat(65)) },
          { name: 'ok.txt', content_base64: b64('x'.repeat(64)) },
        ],
      },
    ]);
    expect(outcomes[0].ok).toBe(true);
    expect(outcomes[0].data?.attachment_errors).toEqual([
      expect.objectContaining({ index: 0, name: 'tool.exe', code: 'ATTACHMENT_EXTENSION' }),
      expect.objectContaining({ index: 1, name: 'broken.pdf', code: 'ATTACHMENT_BASE64' }),
      expect.objectContaining({ index: 2, name: 'big.txt', code: 'ATTACHMENT_TOO_LARGE' }),
    ]);
    expect(outcomes[0].warnings.map((w) => w.field)).toEqual(['attachments[0]', 'attachments[1]', 'attachments[2]']);
    const listing = await fx().client.listTicketAttachments(4);
    expect(listing.files.map((f) => f.name)).toEqual([(outcomes[0].data?.attachments as string[])[0]]);
    expect(listing.files[0].name).toMatch(/_ok\.txt$/);
    const history = (await fx().client.exportOne('tickets', 4))?.status_history as { comments: string }[];
    expect(history.at(-1)?.comments).toBe('Four files');
  });

  it('uses the media limit of 10 MB when API_MEDIA_MAX_FILESIZE is not set', async () => {
    await fx().setSettings({ API_MEDIA_MAX_FILESIZE: '' });
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 65).toString('base64');
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 4, ticket_comments: 'big', admin_id: 1, attachments: [{ name: 'big.txt', content_base64: big }] }]);
    expect(outcomes[0].error, String(outcomes[0].error)).toBeUndefined();
    expect(outcomes[0].data?.attachment_errors).toEqual([expect.objectContaining({ code: 'ATTACHMENT_TOO_LARGE' })]);
  });

  it('rejects every file sent without ticket_comments, on update and on create', async () => {
    const update = await fx().client.update('tickets', [{ ticket_id: 4, ticket_status_id: 2, attachments: [{ name: 'a.txt', content_base64: b64('a') }, { name: 'b.txt', content_base64: b64('b') }] }]);
    expect(update.outcomes[0].ok).toBe(true);
    expect((update.outcomes[0].data?.attachment_errors as { code: string }[]).map((e) => e.code)).toEqual(['ATTACHMENT_NO_COMMENT', 'ATTACHMENT_NO_COMMENT']);
    const create = await fx().client.create('tickets', [{ ticket_subject: 's', ticket_customers_email: 'x@example.org', ticket_customers_name: 'X', attachments: [{ name: 'a.txt', content_base64: b64('a') }] }]);
    expect(create.outcomes[0].ok).toBe(true);
    expect(create.outcomes[0].data?.attachment_errors).toEqual([expect.objectContaining({ code: 'ATTACHMENT_NO_COMMENT' })]);
    expect((await fx().client.listTicketAttachments(4)).files).toEqual([]);
    expect((await fx().client.listTicketAttachments(create.outcomes[0].data?.ticket_id as number)).files).toEqual([]);
  });

  it('deduplicates identical content by hash and returns the existing name', async () => {
    const first = await fx().client.update('tickets', [{ ticket_id: 2, ticket_comments: 'first', admin_id: 2, attachments: [{ name: 'scan.pdf', content_base64: b64(PDF) }] }]);
    const second = await fx().client.update('tickets', [{ ticket_id: 2, ticket_comments: 'again', admin_id: 2, attachments: [{ name: 'scan-copy.pdf', content_base64: b64(PDF) }] }]);
    expect(second.outcomes[0].data?.attachments).toEqual(first.outcomes[0].data?.attachments);
    expect((await fx().client.listTicketAttachments(2)).files).toHaveLength(1);
  });

  it('downloads a file as binary with its Content-Type and Content-Disposition: attachment', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 3, ticket_comments: 'photo', admin_id: 1, attachments: [{ name: 'lid.png', content_base64: png.toString('base64') }] }]);
    const name = (outcomes[0].data?.attachments as string[])[0];
    const file = await fx().client.downloadTicketAttachment(3, name);
    expect(file.contentType).toBe('image/png');
    expect(file.fileName).toBe(name);
    expect(file.data.equals(png)).toBe(true);
    const raw = await fx().http.get('/export/json/ticket_attachment/3', { params: { file: name }, responseType: 'arraybuffer' });
    expect(raw.headers['content-disposition']).toBe(`attachment; filename="${name}"`);
  });

  it('refuses path traversal and files of other tickets', async () => {
    const { outcomes } = await fx().client.update('tickets', [{ ticket_id: 3, ticket_comments: 'x', admin_id: 1, attachments: [{ name: 'a.txt', content_base64: b64('secret') }] }]);
    const name = (outcomes[0].data?.attachments as string[])[0];
    for (const file of ['../../sandbox.sqlite', '..%2F..%2Fetc%2Fpasswd', '/etc/passwd', `../ticket_attachments/${name}`, '.hidden']) {
      const res = await fx().http.get('/export/json/ticket_attachment/3', { params: { file } });
      expect([400, 404]).toContain(res.status);
      expect(res.data.success).toBe(false);
    }
    const other = await fx().http.get('/export/json/ticket_attachment/2', { params: { file: name } });
    expect(other.status).toBe(404);
    await expect(fx().client.downloadTicketAttachment(2, name)).rejects.toMatchObject({ status: 404 });
  });

  it('writes the files before the customer mail so the mail carries them', async () => {
    const { outcomes } = await fx().client.update('tickets', [
      { ticket_id: 1, ticket_comments: 'Your label', admin_id: 3, is_public_reply: true, notify_customer: true, attachments: [{ name: 'label.pdf', content_base64: b64(PDF) }] },
    ]);
    const names = outcomes[0].data?.attachments as string[];
    const mail = (await fx().outbox()).find((m) => m.kind === 'ticket_reply');
    expect(mail?.attachments).toEqual([{ name: names[0], size: PDF.length, mime_type: 'application/pdf' }]);
    expect(mail?.data).not.toHaveProperty('attachments');
    const stored = (await fx().client.listTicketAttachments(1)).files.map((f) => f.name);
    expect(stored).toEqual(names);
  });

  it('removes the files of a deleted ticket from disk', async () => {
    await fx().client.update('tickets', [{ ticket_id: 3, ticket_comments: 'x', admin_id: 1, attachments: [{ name: 'a.txt', content_base64: b64('gone') }] }]);
    const answer = await fx().client.delete('tickets', 3);
    expect(answer.cascade).toMatchObject({ files: 1 });
    const listing = await fx().http.get('/export/json/ticket_attachments/3');
    expect(listing.status).toBe(404);
  });
});
