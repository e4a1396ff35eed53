import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/shop/index.js';
import { collect, page, shop, testClient, useNock } from './helpers.js';

const product = (id: number) => ({ products_id: id, products_model: `M-${id}` });
const products = (from: number, n: number) => Array.from({ length: n }, (_, i) => product(from + i));

describe('exports', () => {
  useNock();

  it('runs to the last page and stops when offset reaches pagination.total', async () => {
    shop().get('/export/json/products').query({ limit: 2, offset: 0 }).reply(200, page('products', products(1, 2), 4, 2, 0));
    shop().get('/export/json/products').query({ limit: 2, offset: 2 }).reply(200, page('products', products(3, 2), 4, 2, 2));
    const { client } = testClient();
    const pages = await collect(client.exportPages('products', { pageSize: 2 }));
    expect(pages.map((p) => [p.offset, p.records.length, p.total])).toEqual([
      [0, 2, 4],
      [2, 2, 4],
    ]);
  });

  it('stops at a page shorter than the limit when the shop sends no pagination', async () => {
    shop().get('/export/json/orders').query({ limit: 3, offset: 0 }).reply(200, [{ orders_id: 1, customers_id: 1 }, { orders_id: 2, customers_id: 1 }, { orders_id: 3, customers_id: 2 }]);
    shop().get('/export/json/orders').query({ limit: 3, offset: 3 }).reply(200, [{ orders_id: 4, customers_id: 2 }]);
    const { client } = testClient();
    const records = await collect(client.exportAll('orders', { pageSize: 3 }));
    expect(records.map((r) => r.orders_id)).toEqual([1, 2, 3, 4]);
  });

  it('clamps the page size to the resource maximum', async () => {
    shop().get('/export/json/products').query({ limit: 250, offset: 0 }).reply(200, page('products', products(1, 1), 1, 250, 0));
    const { client } = testClient();
    expect(await collect(client.exportAll('products', { pageSize: 10_000 }))).toHaveLength(1);
  });

  it('keeps paging when the shop clamps harder than its documented maximum', async () => {
    shop().get('/export/json/customers').query({ limit: 250, offset: 0 }).reply(200, page('customers', [{ customers_id: 1, customers_email_address: 'a@x.test' }, { customers_id: 2, customers_email_address: 'b@x.test' }], 3, 2, 0));
    shop().get('/export/json/customers').query({ limit: 250, offset: 2 }).reply(200, page('customers', [{ customers_id: 3, customers_email_address: 'c@x.test' }], 3, 2, 2));
    const { client } = testClient();
    expect((await collect(client.exportAll('customers'))).map((r) => r.customers_id)).toEqual([1, 2, 3]);
  });

  it('starts at the given offset and passes validated filters', async () => {
    shop().get('/export/json/orders').query({ customers_id: 5, date_from: '2026-01-01', limit: 250, offset: 10 }).reply(200, page('orders', [], 10, 250, 10));
    const { client } = testClient();
    expect(await collect(client.exportAll('orders', { offset: 10, filters: { customers_id: 5, date_from: '2026-01-01' } }))).toEqual([]);
  });

  it('refuses an unknown filter and a malformed date before sending anything', async () => {
    const { client } = testClient();
    await expect(collect(client.exportAll('orders', { filters: { colour: 'red' } }))).rejects.toMatchObject({ code: 'INVALID_FILTER' });
    await expect(collect(client.exportAll('orders', { filters: { date_from: '01.01.2026' } }))).rejects.toThrow(/YYYY-MM-DD/);
  });

  it('reports a record that does not match the resource schema as INVALID_RESPONSE naming the path', async () => {
    shop().get('/export/json/products').query(true).reply(200, page('products', [product(1), { products_id: 'two', products_model: 'X' }], 2, 250, 0));
    const { client } = testClient();
    const error = await collect(client.exportAll('products')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect((error as Error).message).toContain('data[1].products_id');
  });

  it('reports an answer that is not an export page as INVALID_RESPONSE', async () => {
    shop().get('/export/json/products').query(true).reply(200, { success: true, rows: [] });
    const { client } = testClient();
    await expect(collect(client.exportAll('products'))).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('reads one record, and undefined for an unknown id', async () => {
    shop().get('/export/json/product/3').reply(200, { success: true, type: 'products', data: [product(3)] });
    shop().get('/export/json/product/4').reply(404, { success: false, error: { code: 'Not found', message: 'product 4 does not exist' } });
    const { client } = testClient();
    expect(await client.exportOne('products', 3)).toMatchObject({ products_id: 3 });
    expect(await client.exportOne('products', 4)).toBeUndefined();
  });

  it('reads one record through the id filter where the resource has no single route', async () => {
    shop().get('/export/json/customers').query({ customers_id: 9, limit: 1, offset: 0 }).reply(200, page('customers', [{ customers_id: 9, customers_email_address: 'n@x.test' }], 1, 1, 0));
    const { client } = testClient();
    expect(await client.exportOne('customers', 9)).toMatchObject({ customers_email_address: 'n@x.test' });
  });

  it('reads an id range page by page', async () => {
    shop().get('/export/json/products/2:400').query({ limit: 250, offset: 0 }).reply(200, page('products', products(2, 250), 399, 250, 0));
    shop().get('/export/json/products/2:400').query({ limit: 250, offset: 250 }).reply(200, page('products', products(252, 149), 399, 250, 250));
    const { client } = testClient();
    const ids = (await client.exportRange('products', 2, 400)).map((r) => r.products_id);
    expect(ids).toHaveLength(399);
    expect(ids.at(-1)).toBe(400);
  });

  it('stops a range when the shop ignores paging and repeats the same records', async () => {
    shop().get('/export/json/products/1:250').query({ limit: 250, offset: 0 }).reply(200, { success: true, data: products(1, 250) });
    shop().get('/export/json/products/1:250').query({ limit: 250, offset: 250 }).reply(200, { success: true, data: products(1, 250) });
    const { client } = testClient();
    expect(await client.exportRange('products', 1, 250)).toHaveLength(250);
  });

  it('turns a request-level error into its typed error', async () => {
    shop().get('/export/json/products').query(true).reply(403, { success: false, error: { code: 'INSUFFICIENT_SCOPE', message: 'needs products:read', details: { required: 'products:read' } } });
    const { client } = testClient();
    await expect(collect(client.exportAll('products'))).rejects.toMatchObject({ name: 'ScopeError', code: 'INSUFFICIENT_SCOPE', status: 403, details: { required: 'products:read' } });
  });
});
