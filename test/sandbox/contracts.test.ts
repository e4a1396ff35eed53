/**
 * Contracts in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | export filters status (1..7), customer_id, product_id, interval, date_from/date_to | l.364, l.724 |
 * | create body customers_id, products_id, status, interval, price, attributes, domains | l.364 |
 * | prices are sent and returned as decimal strings | l.31 |
 * | text labels for status and interval (export only) | l.26-27, l.36-37 |
 * | attributes (key/value) and domains (domain, active) | l.38-39 |
 * | status endpoint: body {contracts_status, comment}, history entry | l.358, l.339 |
 * | delete cascades to attributes, domains, status history; bulk delete by ids | l.359-360 |
 * | the numeric enum filter interval matches the stored number in the shared filter code; other values 400 | l.364 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

async function contract(id: number): Promise<Record<string, any>> {
  const record = await fx().client.exportOne('contracts', id);
  if (!record) throw new Error(`contract ${id} missing`);
  return record as Record<string, any>;
}

describe('contract export', () => {
  it('returns prices as decimal strings with text labels for status and interval', async () => {
    const c = await contract(1);
    expect(c).toMatchObject({ contracts_price: '29.90', contracts_status: 1, contracts_status_text: 'active', contracts_interval: 12, contracts_interval_text: 'monthly' });
    expect(c.attributes).toEqual([{ id: 1, key: 'plan', value: 'pro' }, { id: 2, key: 'seats', value: '5' }]);
    expect(c.domains).toEqual([{ id: 1, domain: 'shop.example.org', active: 1 }, { id: 2, domain: 'old-shop.example.org', active: 0 }]);
    expect((await contract(2)).contracts_interval_text).toBe('yearly');
    expect((await contract(3)).contracts_status_text).toBe('cancelled');
  });

  it('filters by status, customer, product, interval and creation date', async () => {
    const ids = async (filters: Record<string, string | number>) => (await collect(fx().client.exportAll('contracts', { filters }))).map((c) => c.contracts_id);
    expect(await ids({ status: 2 })).toEqual([2]);
    expect(await ids({ status: 7 })).toEqual([]);
    expect(await ids({ customer_id: 1 })).toEqual([1, 3]);
    expect(await ids({ product_id: 2 })).toEqual([3]);
    expect(await ids({ interval: 4 })).toEqual([3]);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    expect(await ids({ date_from: day(100) })).toEqual([1]);
    expect(await ids({ date_to: day(100) })).toEqual([2, 3]);
  });

  it('compares the numeric interval filter with the stored number and refuses values outside 1, 2, 4, 12', async () => {
    const ids = async (interval: number) => (await collect(fx().client.exportAll('contracts', { filters: { interval } }))).map((c) => c.contracts_id);
    expect(await ids(12)).toEqual([1]);
    expect(await ids(1)).toEqual([2]);
    const res = await fx().http.get('/export/json/contracts', { params: { interval: 3 } });
    expect(res.status).toBe(400);
    expect(res.data.error).toMatchObject({ code: 'INVALID_PAYLOAD' });
    expect(res.data.error.message).toContain('interval');
  });

  it('answers 400 for a status filter outside 1..7', async () => {
    const res = await fx().http.get('/export/json/contracts', { params: { status: 8 } });
    expect(res.status).toBe(400);
    expect(res.data.error.code).toBe('INVALID_PAYLOAD');
    expect(res.data.error.message).toContain('status');
    await expect(collect(fx().client.exportAll('contracts', { filters: { status: 8 } }))).rejects.toMatchObject({ code: 'INVALID_FILTER' });
  });
});

describe('contract writes', () => {
  it('creates a contract with attributes and domains and returns the price as a decimal string', async () => {
    const { outcomes } = await fx().client.create('contracts', [
      { customers_id: 2, products_id: 2, contracts_interval: 4, contracts_price: '49.9', attributes: [{ key: 'plan', value: 'basic' }], domains: [{ domain: 'Example.COM' }] },
    ]);
    expect(outcomes[0].ok).toBe(true);
    const c = await contract(outcomes[0].data?.contracts_id as number);
    expect(c).toMatchObject({ contracts_status: 1, contracts_status_text: 'active', contracts_interval_text: 'quarterly', contracts_price: '49.90' });
    expect(c.attributes).toEqual([{ id: 1, key: 'plan', value: 'basic' }]);
    expect(c.domains).toEqual([{ id: 1, domain: 'example.com', active: 1 }]);
    expect(c.status_history).toHaveLength(1);
  });

  it('rejects a comma decimal, unknown customers or products and missing required fields', async () => {
    const base = { customers_id: 1, products_id: 1, contracts_interval: 12, contracts_price: '10.00' };
    const { outcomes } = await fx().client.create('contracts', [
      { ...base, contracts_price: '10,50' },
      { ...base, customers_id: 999 },
      { ...base, products_id: 999 },
      { ...base, contracts_interval: 3 },
      { customers_id: 1, products_id: 1, contracts_price: '1.00' },
    ]);
    expect(outcomes.map((o) => o.error?.details?.field)).toEqual(['contracts_price', 'customers_id', 'products_id', 'contracts_interval', 'contracts_interval']);
  });

  it('replaces attributes and domains only when they are sent', async () => {
    await fx().client.update('contracts', [{ contracts_id: 1, contracts_price: 31 }]);
    let c = await contract(1);
    expect(c.contracts_price).toBe('31.00');
    expect(c.attributes).toHaveLength(2);
    expect(c.domains).toHaveLength(2);
    await fx().client.update('contracts', [{ contracts_id: 1, attributes: [{ key: 'plan', value: 'enterprise' }], domains: [] }]);
    c = await contract(1);
    expect(c.attributes).toEqual([{ id: 1, key: 'plan', value: 'enterprise' }]);
    expect(c.domains).toEqual([]);
  });

  it('answers Not found for an unknown contract on update', async () => {
    const { outcomes } = await fx().client.update('contracts', [{ contracts_id: 77, contracts_price: '1.00' }]);
    expect(outcomes[0].error?.apiCode).toBe('Not found');
  });
});

describe('contract status endpoint', () => {
  it('sets the status with a comment and appends a history entry', async () => {
    const answer = await fx().client.setContractStatus(1, 2, 'Paused on request');
    expect(answer).toMatchObject({ success: true, contracts_id: 1, previous_status: 1, contracts_status: 2, contracts_status_text: 'paused' });
    const c = await contract(1);
    expect(c.contracts_status).toBe(2);
    expect(c.status_history.at(-1)).toMatchObject({ contracts_status: 2, contracts_status_text: 'paused', previous_status: 1, comment: 'Paused on request' });
  });

  it('accepts statuses 4 to 7 and refuses anything outside 1..7 or an unknown contract', async () => {
    await fx().client.setContractStatus(2, 7);
    expect((await contract(2)).contracts_status).toBe(7);
    await expect(fx().client.setContractStatus(2, 8)).rejects.toMatchObject({ status: 400 });
    await expect(fx().client.setContractStatus(99, 1)).rejects.toMatchObject({ status: 404 });
  });

  it('records a status change made through PUT in the history too', async () => {
    await fx().client.update('contracts', [{ contracts_id: 2, contracts_status: 3 }]);
    expect((await contract(2)).status_history.at(-1)).toMatchObject({ contracts_status: 3, previous_status: 2 });
  });
});

describe('contract delete', () => {
  it('deletes one contract with its attributes, domains and history', async () => {
    const answer = await fx().client.delete('contracts', 1);
    expect(answer).toMatchObject({ success: true, deleted: [1], cascade: { attributes: 2, domains: 2, status_history: 1 } });
    expect(await fx().client.exportOne('contracts', 1)).toBeUndefined();
    await expect(fx().client.delete('contracts', 1)).rejects.toMatchObject({ status: 404 });
  });

  it('bulk deletes by ids and names the ids it did not find', async () => {
    const answer = await fx().client.bulkDelete('contracts', { ids: [2, 3, 42] });
    expect(answer).toMatchObject({ success: true, deleted: [2, 3], not_found: [42] });
    expect((await collect(fx().client.exportAll('contracts'))).map((c) => c.contracts_id)).toEqual([1]);
  });
});
