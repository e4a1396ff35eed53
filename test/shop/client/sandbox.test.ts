/** The client against the real sandbox over HTTP: paging, writes, lost answers and rate limits end to end. */
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';
import { allResources, createShopClient, type ClientEvent, type ResourceName, type ShopClient } from '../../../src/shop/index.js';
import { collect } from './helpers.js';

let sandbox: SandboxHandle;
let client: ShopClient;
const events: ClientEvent[] = [];

async function setFaults(faults: Record<string, number>): Promise<void> {
  await axios.put(`${sandbox.url}/sandbox/faults`, faults, { headers: { Authorization: `Bearer ${sandbox.token}` } });
}

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'demo', dbPath: ':memory:', clients: [{ id: 'erp', secret: 'sandbox-client-secret' }] });
  client = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, retry: { retries: 4, baseDelayMs: 5, maxDelayMs: 2000 }, rateLimit: { concurrency: 4, intervalCap: 100, intervalMs: 1000 }, onEvent: (e) => events.push(e) });
});

afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

describe('client against the sandbox', () => {
  for (const resource of allResources.filter((r) => r.ops.export)) {
    it(`exports every ${resource.name} record page by page, each valid against the registry schema`, async () => {
      const name = resource.name as ResourceName;
      const all = await collect(client.exportAll(name));
      const small = await collect(client.exportAll(name, { pageSize: 2 }));
      expect(small.map((r) => r[resource.key.id])).toEqual(all.map((r) => r[resource.key.id]));
    });
  }

  it('reads id ranges, bounded and open-ended', async () => {
    const ids = (await collect(client.exportAll('products'))).map((p) => p.products_id as number).filter((id) => id >= 3 && id <= 40);
    expect((await client.exportRange('products', 3, 40)).map((r) => r.products_id)).toEqual(ids);
    const news = (await collect(client.exportAll('newsdesk' as ResourceName))).map((n) => n.newsdesk_id as number).filter((id) => id >= 2);
    expect((await client.exportRange('newsdesk' as ResourceName, 2, 1_000_000)).map((r) => r.newsdesk_id)).toEqual(news);
  });

  it('creates, reads, updates and deletes a product', async () => {
    const created = await client.create('products', [{ products_model: 'CLIENT-1', products_price: 12.5 }]);
    expect(created.outcomes[0].ok).toBe(true);
    const id = created.outcomes[0].data?.products_id as number;
    const updated = await client.update('products', [{ products_id: id, products_price: 13 }]);
    expect(updated.outcomes[0].ok).toBe(true);
    expect(Number((await client.exportOne('products', id))?.products_price)).toBe(13);
    expect((await client.delete('products', id)).success).toBe(true);
    expect(await client.exportOne('products', id)).toBeUndefined();
  });

  it('reports OUTCOME_UNKNOWN for a product POST whose answer was lost, although the shop stored it', async () => {
    await setFaults({ reset_after_write_rate: 1 });
    try {
      const result = await client.create('products', [{ products_model: 'LOST-1' }]);
      expect(result.outcomes[0].error).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
      expect(result.requests).toBe(1);
    } finally {
      await setFaults({ reset_after_write_rate: 0 });
    }
    const stored = (await collect(client.exportAll('products'))).filter((p) => p.products_model === 'LOST-1');
    expect(stored).toHaveLength(1);
  });

  it('repeats an order POST whose answer was lost and creates the order exactly once', async () => {
    const [customer] = await collect(client.exportAll('customers', { pageSize: 1 })).then((c) => c.slice(0, 1));
    const [product] = await collect(client.exportAll('products', { pageSize: 1 })).then((p) => p.slice(0, 1));
    const order = (ref: string) => ({ customers_id: customer.customers_id, products: [{ products_id: product.products_id, quantity: 1 }], external_reference: { source: 'erp', external_id: ref } });
    // 0.5: the first request passes, the second loses its answer after the write, the third passes.
    await setFaults({ reset_after_write_rate: 0.5 });
    let first;
    let second;
    try {
      first = await client.create('orders', [order('SB-1')]);
      second = await client.create('orders', [order('SB-2')]);
    } finally {
      await setFaults({ reset_after_write_rate: 0 });
    }
    expect(first.outcomes[0].ok).toBe(true);
    expect(second.requests).toBe(2);
    const error = second.outcomes[0].error;
    expect(error).toMatchObject({ code: 'DUPLICATE_EXTERNAL_REFERENCE', details: { afterLostAnswer: true } });
    const stored = (await collect(client.exportAll('orders'))).filter((o) => (o.external_reference as { external_id?: string } | null)?.external_id === 'SB-2');
    expect(stored).toHaveLength(1);
    expect(error?.details?.orders_id).toBe(stored[0].orders_id);
  });

  it('slows down on 429 and still reads every page', async () => {
    const expected = await collect(client.exportAll('products'));
    const before = events.filter((e) => e.type === 'throttled').length;
    await setFaults({ rate_limit_per_second: 4 });
    try {
      const records = await collect(client.exportAll('products', { pageSize: 5 }));
      expect(records).toHaveLength(expected.length);
    } finally {
      await setFaults({ rate_limit_per_second: 0 });
    }
    expect(events.filter((e) => e.type === 'throttled').length).toBeGreaterThan(before);
  });

  it('reads the category productlist for every category', async () => {
    const categories = await collect(client.exportAll('categories' as ResourceName));
    const list = await collect(client.categoryProductList());
    expect(list.map((c) => c.categories_id).sort()).toEqual(categories.map((c) => c.categories_id).sort());
  });

  it('changes a contract status', async () => {
    const [contract] = await collect(client.exportAll('contracts' as ResourceName, { pageSize: 1 })).then((c) => c.slice(0, 1));
    const id = contract.contracts_id as number;
    await client.setContractStatus(id, 2, 'paused by the client test');
    expect((await client.exportOne('contracts' as ResourceName, id))?.contracts_status).toBe(2);
  });

  it('claims a ticket and reports a second admin as a conflict', async () => {
    const admins = sandbox.reference().admins.map((a) => a.admin_id);
    const [ticket] = await collect(client.exportAll('tickets' as ResourceName, { pageSize: 1 })).then((t) => t.slice(0, 1));
    const ticketId = ticket.ticket_id as number;
    const first = await client.claimTickets([{ ticket_id: ticketId, admin_id: admins[0], state: 'claimed', label: 'erp' }]);
    expect(first.records[0].status).toBe('claimed');
    const second = await client.claimTickets([{ ticket_id: ticketId, admin_id: admins[1], state: 'claimed' }]);
    expect(second.records[0].status).toBe('conflict');
    expect(second.success).toBe(false);
  });

  it('attaches a file to a ticket, lists it and downloads it byte for byte', async () => {
    const [ticket] = await collect(client.exportAll('tickets' as ResourceName, { pageSize: 1 })).then((t) => t.slice(0, 1));
    const ticketId = ticket.ticket_id as number;
    const content = Buffer.from('delivery note\nline 2\n', 'utf8');
    const written = await client.update('tickets' as ResourceName, [{ ticket_id: ticketId, ticket_comments: 'note with file', attachments: [{ name: 'note.txt', content_base64: content.toString('base64') }] }]);
    expect(written.outcomes[0].ok).toBe(true);
    const listing = await client.listTicketAttachments(ticketId);
    const file = listing.files.find((f) => f.name.endsWith('note.txt'));
    expect(file).toBeDefined();
    const downloaded = await client.downloadTicketAttachment(ticketId, file?.name ?? '');
    expect(downloaded.data.equals(content)).toBe(true);
    expect(downloaded.fileName).toBe(file?.name);
    expect(downloaded.contentType).toMatch(/^text\/plain/);
  });

  it('authenticates with OAuth client credentials and gets a new token when the shop expires it', async () => {
    const oauthEvents: ClientEvent[] = [];
    const oauth = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'oauth', clientId: 'erp', clientSecret: 'sandbox-client-secret' }, onEvent: (e) => oauthEvents.push(e) });
    try {
      const before = await collect(oauth.exportAll('customers'));
      expect(before.length).toBeGreaterThan(0);
      await axios.post(`${sandbox.url}/sandbox/expire-tokens`, {}, { headers: { Authorization: `Bearer ${sandbox.token}` } });
      expect(await collect(oauth.exportAll('customers'))).toHaveLength(before.length);
      expect(oauthEvents.some((e) => e.type === 'request' && e.status === 401)).toBe(true);
    } finally {
      await oauth.close();
    }
  });
});
