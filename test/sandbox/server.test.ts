/**
 * Common rules of the sandbox: envelopes, routing, auth, paging, control endpoints, OAuth, faults.
 *
 * | rule | spec line |
 * |---|---|
 * | write envelope success/api_version/type/operation/data/warnings/errors | shop-api.md:15 (convention 5) |
 * | several records per request | :13 (convention 3) |
 * | unknown fields ignored | :16 (convention 6) |
 * | replace-on-present / absent untouched | :17 (convention 7) |
 * | 501 Method not found for unknown resources and operations | :18 (convention 8) |
 * | every request carries a bearer token; scope per endpoint | :645-646 |
 * | path segments in either case | :12, :348 |
 * | default and maximum page sizes, pagination object | :716-717, :351 |
 * | OAuth client credentials (token issuing: gap) | :647 |
 */
import { describe, expect, it } from 'vitest';
import { parseClientSpec, parseTokenSpec, startSandbox } from '../../src/sandbox/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openShop, useShop } from './harness.js';

const shop = useShop();

describe('envelopes and routing', () => {
  it('answers a write with the full envelope and processes several records independently', async () => {
    const res = await shop.api('POST', '/import/json/manufacturers', {
      type: 'manufacturers',
      data: [{ manufacturers_name: 'Acme' }, { manufacturers_image: 'x.png' }, { manufacturers_name: 'Beta', not_a_field: 1 }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, api_version: expect.any(String), type: 'manufacturers', operation: 'create' });
    expect(res.body.data.map((d: { index: number }) => d.index)).toEqual([0, 2]);
    expect(res.body.errors).toEqual([expect.objectContaining({ index: 1, code: 'INVALID_PAYLOAD', field: 'manufacturers_name' })]);
    expect(res.body.warnings).toEqual([]);
    const beta = (await shop.all('manufacturers')).find((m) => m.manufacturers_name === 'Beta');
    expect(beta).toBeDefined();
    expect(beta).not.toHaveProperty('not_a_field');
  });

  it('answers 501 Method not found for unknown resources and operations', async () => {
    const attribute = await shop.api('GET', '/export/json/attributes');
    expect(attribute.status).toBe(501);
    expect(attribute.body.error.code).toBe('Method not found');
    const deleteOrderPut = await shop.api('PUT', '/delete/json/products', {});
    expect(deleteOrderPut.status).toBe(501);
  });

  it('answers path segments in either case', async () => {
    const upper = await shop.api('GET', '/Export/JSON/Products?limit=1');
    const lower = await shop.api('GET', '/export/json/products?limit=1');
    expect(upper.status).toBe(200);
    expect(upper.body.data).toEqual(lower.body.data);
    const single = await shop.api('GET', '/Export/JSON/Product/3');
    expect(single.body.data[0].products_id).toBe(3);
  });

  it('rejects a body that is no envelope with INVALID_PAYLOAD', async () => {
    const notJson = await shop.api('POST', '/import/json/products', '{oops');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_PAYLOAD');
    const noData = await shop.api('POST', '/import/json/products', { type: 'products' });
    expect(noData.status).toBe(400);
    const wrongType = await shop.api('POST', '/import/json/products', { type: 'orders', data: [] });
    expect(wrongType.body.error.message).toContain('products');
  });

  it('pages with default and maximum limits and a pagination object', async () => {
    const products = await shop.api('GET', '/export/json/products');
    expect(products.body.pagination).toEqual({ total: 50, limit: 50, offset: 0 });
    const clamped = await shop.api('GET', '/export/json/products?limit=1000&offset=45');
    expect(clamped.body.pagination).toEqual({ total: 50, limit: 250, offset: 45 });
    expect(clamped.body.data).toHaveLength(5);
    const categories = await shop.api('GET', '/export/json/categories');
    expect(categories.body.pagination.limit).toBe(100);
    const orders = await shop.api('GET', '/export/json/orders');
    expect(orders.body.pagination.limit).toBe(100);
    const viaClient = await shop.all('products');
    expect(viaClient).toHaveLength(50);
  });

  it('replaces a list that is present and leaves an absent one untouched', async () => {
    await shop.client.update('products', [{ products_id: 5, categories: [3] }]);
    await shop.client.update('products', [{ products_id: 5, products_price: 70 }]);
    const product = await shop.client.exportOne('products', 5);
    expect(product?.categories).toEqual([3]);
    expect(product?.products_price).toBe(70);
  });
});

describe('authentication and scopes', () => {
  it('answers 401 for a missing or invalid token', async () => {
    const missing = await shop.api('GET', '/export/json/products', undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'missing' } });
    const invalid = await shop.api('GET', '/export/json/products', undefined, 'nope');
    expect(invalid.status).toBe(401);
    expect(invalid.body.error.details.reason).toBe('invalid');
  });

  it('checks the scope of every endpoint and names the missing one', async () => {
    const scoped = await startSandbox({ dbPath: ':memory:', tokens: [parseTokenSpec('reader=products:read,orders:read')] });
    try {
      const headers = { Authorization: 'Bearer reader', 'Content-Type': 'application/json' };
      expect((await fetch(`${scoped.url}/export/json/products`, { headers })).status).toBe(200);
      const write = await fetch(`${scoped.url}/import/json/products`, { method: 'POST', headers, body: JSON.stringify({ type: 'products', data: [] }) });
      expect(write.status).toBe(403);
      expect(await write.json()).toMatchObject({ success: false, error: { code: 'INSUFFICIENT_SCOPE', details: { required: 'products:write' } } });
      const orderDelete = await fetch(`${scoped.url}/delete/json/orders?orders_id=1`, { method: 'DELETE', headers });
      expect(((await orderDelete.json()) as { error: { details: { required: string } } }).error.details.required).toBe('orders:write');
    } finally {
      await scoped.close();
    }
  });

  it('issues OAuth tokens for client credentials, form-encoded or JSON, with the client scopes', async () => {
    const oauth = await startSandbox({ dbPath: ':memory:', clients: [parseClientSpec('erp:s3cret=products:read')] });
    try {
      const form = await fetch(`${oauth.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=erp&client_secret=s3cret',
      });
      const token = (await form.json()) as { access_token: string };
      expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'products:read' });
      const json = await fetch(`${oauth.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'erp', client_secret: 'wrong' }) });
      expect(json.status).toBe(401);
      const client = createShopClient({ baseUrl: oauth.url, auth: { kind: 'oauth', clientId: 'erp', clientSecret: 's3cret' }, retry: { retries: 0 } });
      const first = await client.exportOne('products', 1);
      expect(first?.products_model).toBe('DEMO-1001');
      await client.close();
      const denied = await fetch(`${oauth.url}/import/json/products`, { method: 'PUT', headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' }, body: '{"type":"products","data":[]}' });
      expect(denied.status).toBe(403);
    } finally {
      await oauth.close();
    }
  });

  it('parses token and client specs of the CLI', () => {
    expect(parseTokenSpec('abc')).toEqual({ value: 'abc' });
    expect(parseTokenSpec('abc=products:read,orders:read')).toEqual({ value: 'abc', scopes: ['products:read', 'orders:read'] });
    expect(parseClientSpec('id:se:cret=customers:write')).toEqual({ id: 'id', secret: 'se:cret', scopes: ['customers:write'] });
    expect(() => parseTokenSpec('abc=products:readd')).toThrow(/Invalid scope/);
    expect(() => parseClientSpec('nosecret')).toThrow(/<id>:<secret>/);
  });
});

describe('control endpoints', () => {
  it('publishes the reference data', async () => {
    const ref = (await shop.api('GET', '/sandbox/reference')).body;
    expect(ref.languages.map((l: { code: string }) => l.code).sort()).toEqual(['de', 'en']);
    expect(ref.default_language).toBe('de');
    expect(ref.customer_groups.map((g: { show_tax: number; tax_exempt: number }) => `${g.show_tax}${g.tax_exempt}`)).toEqual(expect.arrayContaining(['10', '00', '01']));
    expect(ref.tax_classes.map((t: { rate: number }) => t.rate).sort()).toEqual([19, 7]);
    expect(ref.admins.length).toBeGreaterThanOrEqual(2);
    expect(ref.ticket_statuses.some((s: { closing: boolean }) => s.closing)).toBe(true);
    expect(ref.storages).toEqual(expect.arrayContaining([{ storages_id: 1, name: expect.any(String), active: 1 }, expect.objectContaining({ active: 0 })]));
    expect(ref.settings).toMatchObject({ EXTENDED_STORAGE_SYSTEM: 'true', SHOP_NEWSLETTER_DOUBLE_OPT_IN: 'true' });
    for (const key of ['ticket_priorities', 'ticket_departments', 'order_statuses', 'project_statuses', 'task_statuses']) expect(ref[key].length).toBeGreaterThan(0);
  });

  it('changes settings at run time and refuses malformed ones', async () => {
    const put = await shop.api('PUT', '/sandbox/settings', { STORE_NAME: 'Changed', DISPLAY_PRICE_WITH_TAX: true });
    expect(put.body.settings).toMatchObject({ STORE_NAME: 'Changed', DISPLAY_PRICE_WITH_TAX: 'true' });
    expect((await shop.api('PUT', '/sandbox/settings', { lower: 'x' })).status).toBe(400);
    expect(shop.sandbox.settings().STORE_NAME).toBe('Changed');
  });

  it('resets to the empty seed and back to the demo seed', async () => {
    const other = await openShop();
    try {
      expect((await other.api('POST', '/sandbox/reset', { seed: 'empty' })).body).toEqual({ success: true, seed: 'empty' });
      expect((await other.api('GET', '/export/json/products')).body.pagination.total).toBe(0);
      expect((await other.api('GET', '/sandbox/reference')).body.languages).toHaveLength(2);
      await other.api('POST', '/sandbox/reset', { seed: 'demo' });
      expect((await other.api('GET', '/export/json/products')).body.pagination.total).toBe(50);
    } finally {
      await other.close();
    }
  });

  it('requires the bearer token on control endpoints', async () => {
    expect((await shop.api('GET', '/sandbox/outbox', undefined, null)).status).toBe(401);
  });
});

describe('fault injection', () => {
  it('answers 429 with Retry-After beyond the rate limit', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/faults', { rate_limit_per_second: 2 });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await other.api('GET', '/export/json/products?limit=1'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
      expect(Number(answers[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answers[2].body.error.code).toBe('RATE_LIMITED');
      expect((await other.api('GET', '/sandbox/faults')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('counts the API requests it received, those answered 429 and the busiest second, but not control requests', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/faults', { rate_limit_per_second: 3 });
      for (let i = 0; i < 5; i++) await other.api('GET', '/export/json/products?limit=1');
      const traffic = await other.api('GET', '/sandbox/traffic');
      expect(traffic.body).toMatchObject({ requests: 5, rate_limited: 2, busiest_second: 5, busiest_second_passed: 3 });
      expect((await other.api('DELETE', '/sandbox/traffic')).body).toMatchObject({ requests: 0, rate_limited: 0, busiest_second: 0, busiest_second_passed: 0 });
      expect((await other.api('GET', '/sandbox/traffic')).body.requests).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('answers error_rate faults before the write takes effect', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/faults', { error_rate: 0.5 });
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await other.api('POST', '/import/json/manufacturers', { type: 'manufacturers', data: [{ manufacturers_name: `Fault ${i}` }] }));
      expect(results.map((r) => r.status)).toEqual([200, 503, 200, 503]);
      await other.api('PUT', '/sandbox/faults', { error_rate: 0 });
      const names = (await other.all('manufacturers')).map((m) => m.manufacturers_name).filter((n: string) => n.startsWith('Fault'));
      expect(names).toEqual(['Fault 0', 'Fault 2']);
    } finally {
      await other.close();
    }
  });

  it('drops the connection before or after the write as configured', async () => {
    const other = await openShop();
    try {
      const post = (name: string) =>
        fetch(`${other.sandbox.url}/import/json/manufacturers`, { method: 'POST', headers: { Authorization: `Bearer ${other.sandbox.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'manufacturers', data: [{ manufacturers_name: name }] }) });
      await other.api('PUT', '/sandbox/faults', { reset_rate: 1 });
      await expect(post('Before')).rejects.toThrow();
      await other.api('PUT', '/sandbox/faults', { reset_rate: 0, reset_after_write_rate: 1 });
      await expect(post('After')).rejects.toThrow();
      await other.api('PUT', '/sandbox/faults', { reset_after_write_rate: 0 });
      const names = (await other.all('manufacturers')).map((m) => m.manufacturers_name);
      expect(names).toContain('After');
      expect(names).not.toContain('Before');
    } finally {
      await other.close();
    }
  });

  it('does not apply faults to control endpoints', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/faults', { error_rate: 1 });
      expect((await other.api('GET', '/sandbox/reference')).status).toBe(200);
      expect((await other.api('GET', '/export/json/products')).status).toBe(503);
    } finally {
      await other.close();
    }
  });
});

describe('lifecycle and tokens', () => {
  it('keeps a database file across restarts unless a seed is given', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-file-'));
    const dbPath = join(dir, 'shop.sqlite');
    try {
      const first = await startSandbox({ dbPath });
      const headers = { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' };
      await fetch(`${first.url}/import/json/manufacturers`, { method: 'POST', headers, body: JSON.stringify({ type: 'manufacturers', data: [{ manufacturers_name: 'Persisted' }] }) });
      await first.close();
      const second = await startSandbox({ dbPath });
      const names = ((await (await fetch(`${second.url}/export/json/manufacturers`, { headers })).json()) as { data: { manufacturers_name: string }[] }).data.map((m) => m.manufacturers_name);
      expect(names).toContain('Persisted');
      await second.close();
      const third = await startSandbox({ dbPath, seed: 'demo' });
      const again = ((await (await fetch(`${third.url}/export/json/manufacturers`, { headers })).json()) as { data: { manufacturers_name: string }[] }).data.map((m) => m.manufacturers_name);
      expect(again).not.toContain('Persisted');
      expect(third.reference().languages.map((l) => l.code)).toEqual(['en', 'de']);
      await third.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('expires OAuth tokens with the clock or on request, answering 401 expired', async () => {
    const oauth = await startSandbox({ dbPath: ':memory:', tokens: [{ value: 'admin' }], clients: [{ id: 'c', secret: 's' }] });
    try {
      const issue = async () => ((await (await fetch(`${oauth.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":"client_credentials","client_id":"c","client_secret":"s"}' })).json()) as { access_token: string }).access_token;
      const get = (token: string) => fetch(`${oauth.url}/export/json/products?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
      const admin = { Authorization: 'Bearer admin', 'Content-Type': 'application/json' };
      const first = await issue();
      expect((await get(first)).status).toBe(200);
      await fetch(`${oauth.url}/sandbox/clock`, { method: 'PUT', headers: admin, body: '{"advance_seconds":3601}' });
      const expired = await get(first);
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('expired');
      const second = await issue();
      expect((await get(second)).status).toBe(200);
      await fetch(`${oauth.url}/sandbox/expire-tokens`, { method: 'POST', headers: admin });
      expect((await get(second)).status).toBe(401);
    } finally {
      await oauth.close();
    }
  });
});
