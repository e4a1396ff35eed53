/** Every code the API documents becomes its typed error, over the wire it arrives on. */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  MethodNotFoundError,
  NotFoundError,
  RateLimitedError,
  ScopeError,
  UnavailableError,
  ValidationError,
  type ShopApiError,
} from '../../../src/shop/index.js';
import { collect, shop, testClient, useNock, writeAnswer } from './helpers.js';

type Family = abstract new (...args: never[]) => ShopApiError;

/** Order error envelope codes (an order request is all-or-nothing). */
const ORDER_CODES: [apiCode: string, status: number, family: Family, code: string, details: Record<string, unknown>][] = [
  ['INVALID_PAYLOAD', 400, ValidationError, 'INVALID_PAYLOAD', { index: 0, field: 'products' }],
  ['CUSTOMER_NOT_FOUND', 404, NotFoundError, 'CUSTOMER_NOT_FOUND', { index: 0, customers_id: 99 }],
  ['PRODUCT_NOT_FOUND', 404, NotFoundError, 'PRODUCT_NOT_FOUND', { index: 0, products_id: 98 }],
  ['TOTAL_DRIFT', 422, ValidationError, 'TOTAL_DRIFT', { index: 0, expected: '119.00', calculated: '118.50', tolerance: 0.01 }],
  ['STOCK_INSUFFICIENT', 409, ValidationError, 'STOCK_INSUFFICIENT', { index: 0, products_id: 3, available: 1 }],
  ['DUPLICATE_EXTERNAL_REFERENCE', 409, ConflictError, 'DUPLICATE_EXTERNAL_REFERENCE', { index: 0, orders_id: 4711, source: 'erp', external_id: 'A-1' }],
];

/** Per-record codes in a write answer's errors[]. */
const ENTRY_CODES: [apiCode: string, family: Family, code: string][] = [
  ['INVALID_PAYLOAD', ValidationError, 'INVALID_PAYLOAD'],
  ['Already exists', ConflictError, 'ALREADY_EXISTS'],
  ['Not found', NotFoundError, 'NOT_FOUND'],
  ['LOCKED', ConflictError, 'LOCKED'],
  ['HAS_SENT_ENTRIES', ConflictError, 'HAS_SENT_ENTRIES'],
  ['MISSING_ID', ValidationError, 'MISSING_ID'],
];

/** Request-level answers of single-record endpoints and the API as a whole. */
const REQUEST_CODES: [apiCode: string, status: number, family: Family, code: string][] = [
  ['LOCKED', 409, ConflictError, 'LOCKED'],
  ['HAS_SENT_ENTRIES', 409, ConflictError, 'HAS_SENT_ENTRIES'],
  ['Already exists', 409, ConflictError, 'ALREADY_EXISTS'],
  ['MISSING_ID', 400, ValidationError, 'MISSING_ID'],
  ['Not found', 404, NotFoundError, 'NOT_FOUND'],
  ['Method not found', 501, MethodNotFoundError, 'METHOD_NOT_FOUND'],
  ['UNAUTHORIZED', 401, AuthenticationError, 'UNAUTHORIZED'],
  ['INSUFFICIENT_SCOPE', 403, ScopeError, 'INSUFFICIENT_SCOPE'],
];

describe('typed errors', () => {
  useNock();

  for (const [apiCode, status, family, code, details] of ORDER_CODES) {
    it(`turns an order ${status} ${apiCode} into ${family.name} ${code} with its details`, async () => {
      shop().post('/import/json/orders').reply(status, { success: false, api_version: '2.32.0', error: { code: apiCode, message: `order refused: ${apiCode}`, details } });
      const { client } = testClient();
      const [outcome] = (await client.create('orders', [{ customers_id: 1 }])).outcomes;
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toBeInstanceOf(family);
      expect(outcome.error).toMatchObject({ code, apiCode, status, details, record: { index: 0, resource: 'orders' } });
    });
  }

  for (const [apiCode, family, code] of ENTRY_CODES) {
    it(`turns an errors[] entry ${apiCode} into ${family.name} ${code}`, async () => {
      shop()
        .put('/import/json/products')
        .reply(200, writeAnswer('products', 'update', { errors: [{ index: 0, code: apiCode, message: `refused: ${apiCode}`, field: 'products_id' }] }));
      const { client } = testClient();
      const [outcome] = (await client.update('products', [{ products_id: 5 }])).outcomes;
      expect(outcome.error).toBeInstanceOf(family);
      expect(outcome.error).toMatchObject({ code, apiCode, details: { field: 'products_id' }, record: { index: 0, shopId: 5 } });
    });
  }

  for (const [apiCode, status, family, code] of REQUEST_CODES) {
    it(`turns a request-level ${status} ${apiCode} into ${family.name} ${code}`, async () => {
      shop().delete('/delete/json/products').query({ products_id: 5 }).reply(status, { success: false, api_version: '2.32.0', error: { code: apiCode, message: `refused: ${apiCode}` } });
      const { client } = testClient();
      const error = await client.delete('products', 5).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(family);
      expect(error).toMatchObject({ code, apiCode, status, record: { resource: 'products', shopId: 5 } });
    });
  }

  it('turns 503 TICKET_CLAIMS_UNAVAILABLE into UnavailableError without retrying it', async () => {
    shop().put('/import/json/ticket_claims').once().reply(503, { success: false, error: { code: 'TICKET_CLAIMS_UNAVAILABLE', message: 'claim storage does not exist yet' } });
    const { client, events } = testClient();
    const error = await client.claimTickets([{ ticket_id: 1, admin_id: 1, state: 'claimed' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'TICKET_CLAIMS_UNAVAILABLE', status: 503 });
    expect((error as ShopApiError).retryable).toBe(true);
    expect(events.filter((e) => e.type === 'request')).toHaveLength(1);
  });

  it('turns a 501 on an export into MethodNotFoundError', async () => {
    shop().get('/export/json/products').query(true).reply(501, { success: false, error: { code: 'Method not found', message: 'Method not found' } });
    const { client } = testClient();
    await expect(collect(client.exportAll('products'))).rejects.toBeInstanceOf(MethodNotFoundError);
  });

  it('gives up with RateLimitedError after the retry budget of 429s', async () => {
    shop().get('/export/json/products').query(true).times(3).reply(429, { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'Retry-After': '0' });
    const { client } = testClient({ retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    const error = await collect(client.exportAll('products')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as ShopApiError).retryable).toBe(true);
  });

  it('treats an answer without an error envelope by its status', async () => {
    shop().get('/export/json/product/1').reply(500, '<html>oops</html>');
    const { client } = testClient({ retry: { retries: 0 } });
    await expect(client.exportOne('products', 1)).rejects.toMatchObject({ name: 'TransportError', code: 'SHOP_UNAVAILABLE', status: 500 });
  });
});
