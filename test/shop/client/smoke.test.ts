import { describe, expect, it } from 'vitest';
import { collect, page, shop, testClient, useNock, writeAnswer } from './helpers.js';

describe('shop client basics', () => {
  useNock();

  it('pages through a product export until the last short page', async () => {
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ products_id: from + i, products_model: `M${from + i}` }));
    shop().get('/export/json/products').query({ limit: 2, offset: 0 }).reply(200, page('products', rows(1, 2), 3, 2, 0));
    shop().get('/export/json/products').query({ limit: 2, offset: 2 }).reply(200, page('products', rows(3, 1), 3, 2, 2));
    const { client } = testClient();
    const records = await collect(client.exportAll('products', { pageSize: 2 }));
    expect(records.map((r) => r.products_id)).toEqual([1, 2, 3]);
    await client.close();
  });

  it('maps per-record errors of a product create back to the caller index', async () => {
    shop()
      .post('/import/json/products', (body: { type: string; data: unknown[] }) => body.type === 'products' && body.data.length === 2)
      .reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 10 }], errors: [{ index: 1, code: 'INVALID_PAYLOAD', message: 'products_model missing', field: 'products_model' }] }));
    shop()
      .post('/import/json/products', (body: { data: unknown[] }) => body.data.length === 1)
      .reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 12 }] }));
    const { client } = testClient({ batchSize: 2 });
    const result = await client.create('products', [{ products_model: 'A' }, {}, { products_model: 'C' }]);
    expect(result.outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(result.outcomes[1].error?.code).toBe('INVALID_PAYLOAD');
    expect(result.outcomes[1].error?.record?.index).toBe(1);
    expect(result.outcomes[2].data?.products_id).toBe(12);
    expect(result.requests).toBe(2);
    await client.close();
  });
});
