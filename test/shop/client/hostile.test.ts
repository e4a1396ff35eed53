/**
 * The shop client against a hostile shop (issue 29 items 2 and 7): every request has ONE deadline
 * (`timeoutMs`) covering connect, headers and body, so a shop dribbling its body a byte a second
 * cannot hold a run; an answer larger than `maxResponseBytes` is refused with its own error instead
 * of filling memory (or being reported as "shop unreachable"). Timings are lower bounds only (the
 * deadline did not fire early); that it fired at all is proven by the error naming it, and by the
 * test's own timeout (30 s), far below the two minutes the dribbled body would take: an upper bound
 * on the wall clock would only measure how busy the machine is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopClient, OutcomeUnknownError, ShopApiError, ShopUnreachableError, TransportError, type ShopClient, type ShopClientOptions } from '../../../src/shop/index.js';
import { startHostileServer, type HostileServer } from '../../support/hostile.js';

// Not helpers.js: it loads nock, whose stand-in sockets time out differently from real ones.
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => {
  await hostile.close();
});

const clients: ShopClient[] = [];
function client(route: string, extra: Partial<ShopClientOptions> = {}): ShopClient {
  const c = createShopClient({ baseUrl: `${hostile.url}/${route}`, auth: { kind: 'token', token: 'hostile-test-token' }, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 5 }, ...extra });
  clients.push(c);
  return c;
}
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** Requests the hostile server has seen whose first segment is `route` (with or without `;` parameters). */
const seen = (route: string) => hostile.requests.filter((r) => r.url.split('/')[1]?.split(';')[0] === route).length;

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure, got an answer');
}

describe('a shop that sends its body one byte per second', () => {
  it('ends a read at the deadline with a typed transport timeout, however long the body would take', async () => {
    const c = client('slow-body;intervalMs=200', { timeoutMs: 500 });
    const started = Date.now();
    const err = await failure(collect(c.exportPages('products', { pageSize: 1 })));
    // 600 bytes at one per 200 ms would take two minutes; the socket is never idle for 500 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).not.toBeInstanceOf(ShopUnreachableError);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', details: { networkCode: 'ETIMEDOUT' } });
    expect((err as Error).message).toMatch(/no complete answer within 500 ms.*shop\.timeoutMs/);
  });

  it('retries a read after a timeout, each attempt with a deadline of its own', async () => {
    const before = seen('slow-body');
    const c = client('slow-body;intervalMs=200', { timeoutMs: 400, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
    const started = Date.now();
    const err = await failure(collect(c.exportPages('products', { pageSize: 1 })));
    // Two attempts, each cut at its own 400 ms deadline.
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', details: { networkCode: 'ETIMEDOUT' } });
    expect(seen('slow-body') - before).toBe(2);
  });

  it('does not repeat a write whose answer did not arrive in time: its outcome is unknown', async () => {
    const before = seen('slow-body');
    const c = client('slow-body;intervalMs=200', { timeoutMs: 400, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    const result = await c.create('products', [{ products_model: 'HOSTILE-1', products_price: '1.00' }]);
    expect(result.outcomes[0]?.ok).toBe(false);
    expect(result.outcomes[0]?.error).toBeInstanceOf(OutcomeUnknownError);
    expect(result.outcomes[0]?.error).toMatchObject({ code: 'OUTCOME_UNKNOWN', details: { networkCode: 'ETIMEDOUT' } });
    expect(seen('slow-body') - before).toBe(1);
  });
});

describe('a shop answering more than maxResponseBytes', () => {
  it('is refused with SHOP_RESPONSE_TOO_LARGE naming the setting to raise, not "shop unreachable", and not asked again', async () => {
    const before = seen('huge');
    const c = client(`huge;bytes=${3 * 1024 * 1024}`, { maxResponseBytes: 1024 * 1024, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await failure(collect(c.exportPages('products', { pageSize: 1 })));
    expect(err).toBeInstanceOf(ShopApiError);
    expect(err).not.toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ code: 'SHOP_RESPONSE_TOO_LARGE', details: { limitBytes: 1024 * 1024 } });
    expect((err as Error).message).toMatch(/more than 1 MiB.*shop\.maxResponseBytes/);
    expect(seen('huge') - before).toBe(1);
  });

  it('is refused as well when the shop does not say the length up front (chunked)', async () => {
    const c = client(`huge;bytes=${3 * 1024 * 1024};length=none`, { maxResponseBytes: 1024 * 1024 });
    await expect(collect(c.exportPages('products', { pageSize: 1 }))).rejects.toMatchObject({ code: 'SHOP_RESPONSE_TOO_LARGE' });
  });

  it('is refused by default above 64 MiB (a 200 MB answer used to be read whole)', async () => {
    const c = client(`huge;bytes=${200 * 1024 * 1024};length=none`);
    await expect(collect(c.exportPages('products', { pageSize: 1 }))).rejects.toMatchObject({ code: 'SHOP_RESPONSE_TOO_LARGE', details: { limitBytes: 64 * 1024 * 1024 } });
  });

  it('leaves a write it could not read as outcome unknown: the shop answered, so it may have taken effect', async () => {
    const c = client(`huge;bytes=${3 * 1024 * 1024}`, { maxResponseBytes: 1024 * 1024, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    const result = await c.create('products', [{ products_model: 'HOSTILE-2', products_price: '1.00' }]);
    expect(result.outcomes[0]?.error).toBeInstanceOf(OutcomeUnknownError);
    expect(result.outcomes[0]?.error?.message).toMatch(/shop\.maxResponseBytes/);
    expect(result.outcomes[0]?.error).toMatchObject({ details: { networkCode: 'SHOP_RESPONSE_TOO_LARGE' } });
  });
});

describe('a shop answering JSON that does not parse', () => {
  it('fails the read with a typed error naming the request', async () => {
    const c = client('invalid-json');
    const err = await failure(collect(c.exportPages('products', { pageSize: 1 })));
    expect(err).toBeInstanceOf(ShopApiError);
    expect(err).not.toBeInstanceOf(TransportError);
  });
});
