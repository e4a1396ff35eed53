import { describe, expect, it } from 'vitest';
import { BatchRejectedError, ConflictError, NotFoundError, ValidationError } from '../../../src/shop/index.js';
import { splitBatches } from '../../../src/shop/client/batches.js';
import { shop, testClient, useNock, writeAnswer } from './helpers.js';

type Envelope = { type: string; data: Record<string, unknown>[] };
const sizes: number[] = [];
const recordSizes = (body: Envelope) => {
  sizes.push(body.data.length);
  return true;
};

describe('batch writes', () => {
  useNock();

  it('splits records into consecutive batches of the configured size', () => {
    expect(splitBatches([1, 2, 3, 4, 5], 2)).toEqual([
      { offset: 0, items: [1, 2] },
      { offset: 2, items: [3, 4] },
      { offset: 4, items: [5] },
    ]);
    expect(splitBatches([], 3)).toEqual([]);
  });

  it('sends 7 records as batches of 3, 3 and 1 and returns outcomes in the caller order', async () => {
    sizes.length = 0;
    const answer = (ids: number[]) => writeAnswer('customers', 'update', { data: ids.map((customers_id, index) => ({ index, customers_id })) });
    const startsAt = (id: number) => (body: Envelope) => body.data[0].customers_id === id && recordSizes(body);
    shop().put('/import/json/customers', startsAt(100)).reply(200, answer([100, 101, 102]));
    shop().put('/import/json/customers', startsAt(103)).reply(200, answer([103, 104, 105]));
    shop().put('/import/json/customers', startsAt(106)).reply(200, answer([106]));
    const { client } = testClient();
    const records = Array.from({ length: 7 }, (_, i) => ({ customers_id: 100 + i }));
    const result = await client.update('customers', records, { batchSize: 3 });
    expect(sizes.sort()).toEqual([1, 3, 3]);
    expect(result.requests).toBe(3);
    expect(result.outcomes.map((o) => [o.index, o.ok, o.data?.customers_id])).toEqual(records.map((r, i) => [i, true, r.customers_id]));
  });

  it('sends nothing for a batch that is not JSON data: its records fail with INVALID_ARGUMENT, not with an unknown outcome', async () => {
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'A', products_price: 10n }]);
    expect(result.requests).toBe(0);
    expect(result.outcomes[0]?.error).toBeInstanceOf(ValidationError);
    expect(result.outcomes[0]?.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(result.outcomes[0]?.error?.message).toMatch(/not JSON data.*nothing was sent/);
  });

  it('shares one frozen empty warning list between the records the shop warned nothing about', async () => {
    shop()
      .post('/import/json/products')
      .reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 1 }, { index: 1, products_id: 2 }], warnings: [{ index: 1, code: 'TRUNCATED', message: 'cut' }] }));
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'A' }, { products_model: 'B' }]);
    expect(result.outcomes.map((o) => o.warnings.map((w) => w.code))).toEqual([[], ['TRUNCATED']]);
    expect(Object.isFrozen(result.outcomes[0]?.warnings)).toBe(true);
  });

  it('gives a warning that names no record to every record, in the order the shop listed them', async () => {
    const warnings = [{ index: 1, code: 'ONE' }, { code: 'ALL' }, { index: 0, code: 'ZERO' }];
    shop()
      .post('/import/json/products')
      .reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 1 }, { index: 1, products_id: 2 }], warnings }));
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'A' }, { products_model: 'B' }]);
    expect(result.outcomes.map((o) => o.warnings.map((w) => w.code))).toEqual([
      ['ALL', 'ZERO'],
      ['ONE', 'ALL'],
    ]);
  });

  it('uses the client batch size when the write names none', async () => {
    shop().post('/import/json/customers', (b: Envelope) => b.data.length === 2).times(2).reply(200, writeAnswer('customers', 'create', {}));
    const { client } = testClient({ batchSize: 2 });
    const result = await client.create('customers', [{}, {}, {}, {}]);
    expect(result.requests).toBe(2);
  });

  it('puts errors and warnings of the second batch on the right records of the full array', async () => {
    shop()
      .post('/import/json/products', (b: Envelope) => b.data[0].products_model === 'A')
      .reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 1 }, { index: 1, products_id: 2 }] }));
    shop()
      .post('/import/json/products', (b: Envelope) => b.data[0].products_model === 'C')
      .reply(
        200,
        writeAnswer('products', 'create', {
          data: [{ index: 1, products_id: 4 }],
          warnings: [{ index: 1, code: 'STORAGE_NOT_FOUND', message: 'storage 9 unknown' }],
          errors: [{ index: 0, code: 'Already exists', message: 'products_model C exists', details: { products_id: 77 } }],
        }),
      );
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'A' }, { products_model: 'B' }, { products_model: 'C' }, { products_model: 'D' }], { batchSize: 2 });
    expect(result.outcomes.map((o) => o.ok)).toEqual([true, true, false, true]);
    const failed = result.outcomes[2];
    expect(failed.error).toBeInstanceOf(ConflictError);
    expect(failed.error).toMatchObject({ code: 'ALREADY_EXISTS', apiCode: 'Already exists', details: { products_id: 77 }, record: { index: 2, resource: 'products' } });
    expect(result.outcomes[3].warnings).toEqual([{ index: 1, code: 'STORAGE_NOT_FOUND', message: 'storage 9 unknown' }]);
    expect(result.outcomes[3].data).toEqual({ index: 1, products_id: 4 });
    expect(result.outcomes[2].warnings).toEqual([]);
  });

  it('reads claims-style entries that name the record with `record`', async () => {
    shop()
      .put('/import/json/customers')
      .reply(200, writeAnswer('customers', 'update', { data: [{ index: 0, customers_id: 1 }], errors: [{ record: 1, error: 'Not found', message: 'customer 2 does not exist' }] }));
    const { client } = testClient();
    const result = await client.update('customers', [{ customers_id: 1 }, { customers_id: 2 }]);
    expect(result.outcomes[1].error).toBeInstanceOf(NotFoundError);
    expect(result.outcomes[1].error?.record).toMatchObject({ index: 1, shopId: 2 });
    expect(result.outcomes[0].ok).toBe(true);
  });

  it('falls back to position when data entries carry no index', async () => {
    shop().post('/import/json/customers').reply(200, writeAnswer('customers', 'create', { data: [{ customers_id: 31 }, { customers_id: 32 }] }));
    const { client } = testClient();
    const result = await client.create('customers', [{ customers_email_address: 'a@x.test' }, { customers_email_address: 'b@x.test' }]);
    expect(result.outcomes.map((o) => o.data?.customers_id)).toEqual([31, 32]);
  });

  it('marks the failing order of a rejected request and the others BATCH_REJECTED', async () => {
    shop()
      .post('/import/json/orders')
      .reply(422, { success: false, api_version: '2.32.0', error: { code: 'TOTAL_DRIFT', message: 'expected 119.00, calculated 118.50', details: { index: 1, expected: '119.00', calculated: '118.50', tolerance: 0.01 } } });
    shop().post('/import/json/orders').reply(200, writeAnswer('orders', 'create', { data: [{ index: 0, orders_id: 500 }] }));
    const { client } = testClient();
    const orders = [{ customers_id: 1 }, { customers_id: 2, strict_totals: true }, { customers_id: 3 }, { customers_id: 4 }];
    const result = await client.create('orders', orders, { batchSize: 3 });
    const [first, culprit, third, fourth] = result.outcomes;
    expect(culprit.error).toBeInstanceOf(ValidationError);
    expect(culprit.error).toMatchObject({ code: 'TOTAL_DRIFT', status: 422, details: { expected: '119.00', calculated: '118.50', tolerance: 0.01 }, record: { index: 1 } });
    for (const o of [first, third]) {
      expect(o.error).toBeInstanceOf(BatchRejectedError);
      expect(o.error).toMatchObject({ code: 'BATCH_REJECTED', details: { rejectedBy: 1, cause: 'TOTAL_DRIFT' } });
      expect(o.error?.retryable).toBe(true);
    }
    expect(fourth).toMatchObject({ index: 3, ok: true, data: { orders_id: 500 } });
  });

  it('gives every record of a rejected request the error when it names no index', async () => {
    shop().post('/import/json/orders').reply(400, { success: false, error: { code: 'INVALID_PAYLOAD', message: 'body is not an envelope' } });
    const { client } = testClient();
    const result = await client.create('orders', [{ customers_id: 1 }, { customers_id: 2 }]);
    expect(result.outcomes.map((o) => o.error?.code)).toEqual(['INVALID_PAYLOAD', 'INVALID_PAYLOAD']);
    expect(result.outcomes.map((o) => o.error?.record?.index)).toEqual([0, 1]);
  });

  it('gives every record INVALID_RESPONSE when the write answer does not match the envelope', async () => {
    shop().put('/import/json/products').reply(200, { success: 'yes', data: 'none' });
    const { client } = testClient();
    const result = await client.update('products', [{ products_id: 1 }]);
    expect(result.outcomes[0].error).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect(result.outcomes[0].error?.message).toMatch(/success/);
  });

  it('puts an error without index on the records the shop did not confirm', async () => {
    shop().put('/import/json/products').reply(200, writeAnswer('products', 'update', { data: [{ index: 0, products_id: 1 }], errors: [{ code: 'INVALID_PAYLOAD', message: 'something was wrong' }] }));
    const { client } = testClient();
    const result = await client.update('products', [{ products_id: 1 }, { products_id: 2 }]);
    expect(result.outcomes.map((o) => o.ok)).toEqual([true, false]);
  });

  it('marks records of batches not yet sent as NOT_SENT when the write is stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'A' }], { signal: controller.signal });
    expect(result.outcomes[0].error).toMatchObject({ code: 'NOT_SENT' });
    expect(result.requests).toBe(0);
  });

  it('refuses a write for a resource without that operation, without a request', async () => {
    const { client } = testClient();
    await expect(client.update('newsdesk_categories' as 'products', [{}])).rejects.toMatchObject({ code: 'METHOD_NOT_FOUND' });
    await expect(client.create('nonsense' as 'products', [{}])).rejects.toMatchObject({ code: 'METHOD_NOT_FOUND' });
  });
});
