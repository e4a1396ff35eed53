import { describe, expect, it } from 'vitest';
import { NotFoundError, OutcomeUnknownError, ShopUnreachableError, type ClientEvent } from '../../../src/shop/index.js';
import { backoffMs, parseRetryAfter } from '../../../src/shop/client/retry.js';
import { collect, page, shop, testClient, useNock, writeAnswer } from './helpers.js';

const requests = (events: ClientEvent[]) => events.filter((e) => e.type === 'request');
/** A connection reset after the request went out (nock 15.0.0 needs an Error instance here). */
const netError = (code: string, message: string) => Object.assign(new Error(message), { code });
const lost = netError('ECONNRESET', 'socket hang up');
const order = (n: number, withRef = true) => ({ customers_id: n, ...(withRef ? { external_reference: { source: 'erp', external_id: `A-${n}` } } : {}) });

describe('retry policy', () => {
  useNock();

  it('retries a 429 after the Retry-After the shop asked for, and reports the throttling', async () => {
    shop().get('/export/json/products').query(true).reply(429, { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'Retry-After': '1' });
    shop().get('/export/json/products').query(true).reply(200, page('products', [], 0, 250, 0));
    const { client, events } = testClient({ retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5000 } });
    expect(await collect(client.exportAll('products'))).toEqual([]);
    expect(requests(events).map((e) => e.type === 'request' && e.status)).toEqual([429, 200]);
    expect(events.find((e) => e.type === 'throttled')).toEqual({ type: 'throttled', resource: 'products', retryAfterMs: 1000 });
  });

  it('does not retry a 400', async () => {
    shop().put('/import/json/products').once().reply(400, { success: false, error: { code: 'INVALID_PAYLOAD', message: 'not an envelope' } });
    const { client, events } = testClient();
    const result = await client.update('products', [{ products_id: 1 }]);
    expect(result.outcomes[0].error?.code).toBe('INVALID_PAYLOAD');
    expect(result.requests).toBe(1);
    expect(requests(events)).toHaveLength(1);
  });

  it('retries a product POST answered 503, because the shop did not process it', async () => {
    shop().post('/import/json/products').reply(503, 'busy');
    shop().post('/import/json/products').reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 3 }] }));
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'X' }]);
    expect(result.outcomes[0]).toMatchObject({ ok: true, data: { products_id: 3 } });
    expect(result.requests).toBe(2);
  });

  it('gives OUTCOME_UNKNOWN when the answer to a product POST is lost, and does not repeat it', async () => {
    shop().post('/import/json/products').replyWithError(lost);
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'X' }, { products_model: 'Y' }]);
    for (const outcome of result.outcomes) {
      expect(outcome.error).toBeInstanceOf(OutcomeUnknownError);
      expect(outcome.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', details: { networkCode: 'ECONNRESET' } });
    }
    expect(result.outcomes.map((o) => o.error?.record?.index)).toEqual([0, 1]);
    expect(result.requests).toBe(1);
  });

  it('gives OUTCOME_UNKNOWN when a product POST times out', async () => {
    shop().post('/import/json/products').delay(300).reply(200, writeAnswer('products', 'create', {}));
    const { client } = testClient({ timeoutMs: 30 });
    const result = await client.create('products', [{ products_model: 'X' }]);
    expect(result.outcomes[0].error).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(result.requests).toBe(1);
  });

  it('gives OUTCOME_UNKNOWN when a gateway answers 502 to a product POST', async () => {
    shop().post('/import/json/products').reply(502, 'bad gateway');
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'X' }]);
    expect(result.outcomes[0].error).toMatchObject({ code: 'OUTCOME_UNKNOWN', status: 502 });
  });

  it('retries an order POST whose answer was lost when every order carries external_reference', async () => {
    shop().post('/import/json/orders').replyWithError(lost);
    shop().post('/import/json/orders').reply(200, writeAnswer('orders', 'create', { data: [{ index: 0, orders_id: 11 }, { index: 1, orders_id: 12 }] }));
    const { client } = testClient();
    const result = await client.create('orders', [order(1), order(2)]);
    expect(result.outcomes.map((o) => o.data?.orders_id)).toEqual([11, 12]);
    expect(result.requests).toBe(2);
  });

  it('reports the repeat answer DUPLICATE_EXTERNAL_REFERENCE with the existing order and afterLostAnswer', async () => {
    shop().post('/import/json/orders').replyWithError(lost);
    shop()
      .post('/import/json/orders')
      .reply(409, { success: false, error: { code: 'DUPLICATE_EXTERNAL_REFERENCE', message: 'erp/A-1 exists', details: { index: 0, orders_id: 11, source: 'erp', external_id: 'A-1' } } });
    const { client } = testClient();
    const [outcome] = (await client.create('orders', [order(1)])).outcomes;
    expect(outcome.error).toMatchObject({ code: 'DUPLICATE_EXTERNAL_REFERENCE', details: { orders_id: 11, afterLostAnswer: true } });
  });

  it('does not repeat an order POST where one order lacks external_reference', async () => {
    shop().post('/import/json/orders').replyWithError(lost);
    const { client } = testClient();
    const result = await client.create('orders', [order(1), order(2, false)]);
    expect(result.outcomes.map((o) => o.error?.code)).toEqual(['OUTCOME_UNKNOWN', 'OUTCOME_UNKNOWN']);
    expect(result.requests).toBe(1);
  });

  it('repeats a plain order PUT but not one that appends status_history', async () => {
    shop().put('/import/json/orders', (b: { data: Record<string, unknown>[] }) => b.data[0].orders_status === 3).replyWithError(lost);
    shop().put('/import/json/orders', (b: { data: Record<string, unknown>[] }) => b.data[0].orders_status === 3).reply(200, writeAnswer('orders', 'update', { data: [{ index: 0, orders_id: 5 }] }));
    shop().put('/import/json/orders', (b: { data: Record<string, unknown>[] }) => Array.isArray(b.data[0].status_history)).replyWithError(lost);
    const { client } = testClient();
    const plain = await client.update('orders', [{ orders_id: 5, orders_status: 3 }]);
    expect(plain.outcomes[0].ok).toBe(true);
    const history = await client.update('orders', [{ orders_id: 5, status_history: [{ orders_status_id: 3, comments: 'shipped' }] }]);
    expect(history.outcomes[0].error).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(history.requests).toBe(1);
  });

  it('repeats any write whose connection was refused, because it never reached the shop', async () => {
    shop().post('/import/json/products').replyWithError(netError('ECONNREFUSED', 'connect ECONNREFUSED'));
    shop().post('/import/json/products').reply(200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 8 }] }));
    const { client } = testClient();
    const result = await client.create('products', [{ products_model: 'X' }]);
    expect(result.outcomes[0].ok).toBe(true);
  });

  it('retries reads on network errors and 502/504, then gives up with NETWORK_ERROR', async () => {
    shop().get('/export/json/product/1').replyWithError(lost);
    shop().get('/export/json/product/1').reply(504, 'gateway timeout');
    shop().get('/export/json/product/1').reply(200, { success: true, data: [{ products_id: 1, products_model: 'M' }] });
    const { client } = testClient();
    expect(await client.exportOne('products', 1)).toMatchObject({ products_id: 1 });
    shop().get('/export/json/product/2').times(3).replyWithError(lost);
    const { client: second } = testClient({ retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    await expect(second.exportOne('products', 2)).rejects.toMatchObject({ name: 'TransportError', code: 'NETWORK_ERROR' });
  });

  it('gives up on a shop whose host name does not resolve after two quick retries, with ShopUnreachableError, while 5xx gets every retry', async () => {
    shop().get('/export/json/product/3').times(3).replyWithError(netError('ENOTFOUND', 'getaddrinfo ENOTFOUND shop.example'));
    const { client, events } = testClient({ retry: { retries: 5, baseDelayMs: 1, maxDelayMs: 5 } });
    const error = await client.exportOne('products', 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopUnreachableError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true, details: { networkCode: 'ENOTFOUND' } });
    expect(requests(events)).toHaveLength(3);

    shop().get('/export/json/product/4').times(6).reply(503, 'busy');
    const { client: busy, events: busyEvents } = testClient({ retry: { retries: 5, baseDelayMs: 1, maxDelayMs: 5 } });
    await expect(busy.exportOne('products', 4)).rejects.toMatchObject({ code: 'SHOP_UNAVAILABLE' });
    expect(requests(busyEvents)).toHaveLength(6);
  });

  it('repeats a delete whose answer was lost and flags a 404 on the repeat', async () => {
    shop().delete('/delete/json/products').query({ products_id: 4 }).replyWithError(lost);
    shop().delete('/delete/json/products').query({ products_id: 4 }).reply(404, { success: false, error: { code: 'Not found', message: 'product 4 does not exist' } });
    const { client } = testClient();
    const error = await client.delete('products', 4).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ details: { afterLostAnswer: true } });
  });
});

describe('stopping', () => {
  useNock();

  it('stops an export that waits to retry when its signal aborts', async () => {
    shop().get('/export/json/products').query(true).reply(503, 'busy', { 'Retry-After': '30' });
    const { client } = testClient({ retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 60_000 } });
    const controller = new AbortController();
    const pending = collect(client.exportAll('products', { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortedError', code: 'ABORTED' });
  });

  it('answers a product POST already on its way when its signal aborts: cut off, its outcome would be unknown', async () => {
    shop().post('/import/json/products').delay(500).reply(200, writeAnswer('products', 'create', {}));
    const { client } = testClient();
    const controller = new AbortController();
    const pending = client.create('products', [{ products_model: 'X' }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.outcomes[0]).toMatchObject({ ok: true });
  });

  it('gives NOT_SENT to a product POST that waits to retry after a 429 when its signal aborts', async () => {
    shop().post('/import/json/products').reply(429, { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'Retry-After': '30' });
    const { client } = testClient({ retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 60_000 } });
    const controller = new AbortController();
    const pending = client.create('products', [{ products_model: 'X' }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.outcomes[0].error).toMatchObject({ code: 'NOT_SENT' });
  });
});

describe('backoff and Retry-After', () => {
  it('waits a random time up to base × 2^attempt, capped at the maximum (full jitter)', () => {
    const top = () => 0.9999;
    expect([0, 1, 2, 3].map((a) => backoffMs(a, 100, 10_000, top))).toEqual([99, 199, 399, 799]);
    expect(backoffMs(10, 100, 1000, top)).toBe(999);
    expect(backoffMs(3, 100, 10_000, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T03:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 03:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 02:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
