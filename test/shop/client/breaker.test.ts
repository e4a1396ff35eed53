/**
 * The shop's circuit breaker against a sandbox whose fault injection takes it down (every request
 * answered 503): it opens after the configured failures in a row, fails fast while open without a
 * request reaching the shop, probes once the wait is over, and closes when the shop answers again.
 * The runs it failed lose nothing: their records go out with the first run after it closed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../../src/pipeline/index.js';
import { createShopClient, ShopCircuitOpenError, type ClientEvent, type ShopClient } from '../../../src/shop/index.js';
import { sleep } from '../../../src/util/time.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, setFaults, shopRecords, sqliteSource, upsertProducts, type PushFixture } from '../../pipeline/support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', options: { maxAttempts: 2 } };

/** Requests that reached the sandbox's API paths since the last reset. */
async function traffic(sandbox: { url: string; token: string }, reset = false): Promise<number> {
  const res = await fetch(`${sandbox.url}/sandbox/traffic`, { method: reset ? 'DELETE' : 'GET', headers: { authorization: `Bearer ${sandbox.token}` } });
  const body = (await res.json()) as { requests?: number };
  if (typeof body.requests !== 'number') throw new Error(`unexpected traffic answer: ${JSON.stringify(body)}`);
  return body.requests;
}

let f: PushFixture;
let shop: ShopClient;
let events: ClientEvent[];
/** Three requests that give up (two attempts each) open it; the first probe after `probeAfterMs`. Retries are fast: the test is about counts, not waits. */
function breakerClient(probeAfterMs: number): ShopClient {
  return createShopClient({
    baseUrl: f.sandbox.url,
    auth: { kind: 'token', token: f.sandbox.token },
    rateLimit: { concurrency: 1, intervalCap: 10_000, intervalMs: 1000 },
    retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 },
    breaker: { failures: 3, probeAfterMs, maxProbeAfterMs: Math.max(1000, probeAfterMs) },
    onEvent: (e) => events.push(e),
  });
}

beforeEach(async () => {
  f = await pushFixture();
  events = [];
  shop = breakerClient(300);
});
afterEach(async () => {
  await shop.close();
  await f.close();
});

describe('the circuit breaker of a shop that is down', () => {
  it('opens after 3 requests in a row gave up, then fails fast without a request, naming when it probes and the last error', async () => {
    // A probe a minute away: the 20 refused asks below cannot reach it however slowly they run (300 ms could be passed on a busy machine).
    await shop.close();
    shop = breakerClient(60_000);
    await setFaults(f.sandbox, { error_rate: 1, error_status: 503 });
    await traffic(f.sandbox, true);
    // Three reads of two attempts each give up: the breaker opens, and the fourth read is refused unsent.
    for (let i = 0; i < 3; i++) await expect(shop.exportOne('products', 1)).rejects.toMatchObject({ code: 'SHOP_UNAVAILABLE' });
    const refused = await shop.exportOne('products', 1).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ShopCircuitOpenError);
    expect(await traffic(f.sandbox)).toBe(6);
    expect(shop.circuit()).toMatchObject({ state: 'open', lastError: expect.stringContaining('HTTP 503') });
    const error = refused as ShopCircuitOpenError;
    expect(error.message).toContain(`probe at ${shop.circuit().probeAt}`);
    expect(error.message).toContain('last error: HTTP 503');
    expect(error.details).toMatchObject({ probeAt: shop.circuit().probeAt });

    // While open nothing reaches the shop, however often it is asked.
    for (let i = 0; i < 20; i++) await expect(shop.exportOne('products', 1)).rejects.toMatchObject({ code: 'SHOP_CIRCUIT_OPEN' });
    expect(await traffic(f.sandbox)).toBe(6);
    expect(events.filter((e) => e.type === 'circuit').map((e) => (e as { state: string }).state)).toEqual(['open']);
  });

  it('probes once the wait is over: a failed probe opens it for longer, an answered one closes it and the request goes out', async () => {
    await setFaults(f.sandbox, { error_rate: 1, error_status: 503 });
    for (let i = 0; i < 3; i++) await shop.exportOne('products', 1).catch(() => undefined);
    expect(shop.circuit().state).toBe('open');
    await traffic(f.sandbox, true);

    // Past the wait, with the shop still down: exactly one probe goes out, and the next one waits twice as long.
    const firstProbeAt = Date.parse(shop.circuit().probeAt!);
    await sleep(Math.max(0, firstProbeAt - Date.now()) + 20);
    await expect(shop.exportOne('products', 1)).rejects.toMatchObject({ code: 'SHOP_CIRCUIT_OPEN', message: expect.stringContaining('the probe') });
    expect(await traffic(f.sandbox)).toBe(1);
    // Twice the first wait from the failed probe, which came no sooner than the first probe time (no clock read after it).
    const secondProbeAt = Date.parse(shop.circuit().probeAt!);
    expect(secondProbeAt - firstProbeAt).toBeGreaterThanOrEqual(600 - 5);

    // The shop is back: the probe is answered, the breaker closes and the asking request is sent.
    await setFaults(f.sandbox, { error_rate: 0 });
    await sleep(Math.max(0, secondProbeAt - Date.now()) + 20);
    await expect(shop.exportOne('products', 1)).resolves.toBeUndefined();
    expect(shop.circuit()).toMatchObject({ state: 'closed', failures: 0 });
    expect(await traffic(f.sandbox)).toBe(3);
    expect(events.filter((e) => e.type === 'circuit').map((e) => (e as { state: string }).state)).toEqual(['open', 'open', 'closed']);
  });

  it('is not opened by answers that prove the shop is there (4xx), nor by a shop that recovers within the retries', async () => {
    await setFaults(f.sandbox, { error_rate: 1, error_status: 404 });
    for (let i = 0; i < 6; i++) await shop.exportOne('products', 1).catch(() => undefined);
    await setFaults(f.sandbox, { error_rate: 0.5, error_status: 503 });
    // 503, 200, 503, 200…: every request succeeds on its retry, none gives up.
    for (let i = 0; i < 6; i++) await shop.exportOne('products', 1);
    expect(shop.circuit()).toMatchObject({ state: 'closed', failures: 0 });
  });
});

describe('runs of a shop whose breaker is open', () => {
  it('fail with SHOP_CIRCUIT_OPEN without moving the cursor or dead-lettering anything, and the records go out after it closed', async () => {
    const mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    upsertProducts(f.erp, 1, 30);
    const run = () => runPipeline(def, { state: f.state, shop, mapping, source: sqliteSource(f.erpFile) });
    await setFaults(f.sandbox, { error_rate: 1, error_status: 503 });

    // Each run sends its one batch twice (maxAttempts 2), two attempts each: the second run's second send opens the breaker.
    expect(await run()).toMatchObject({ status: 'failed', error: { code: 'SHOP_UNAVAILABLE' } });
    expect(await run()).toMatchObject({ status: 'failed' });
    expect(shop.circuit().state).toBe('open');
    await traffic(f.sandbox, true);
    const second = await run();
    expect(second).toMatchObject({ status: 'failed', error: { code: 'SHOP_CIRCUIT_OPEN' } });
    expect(second.counts).toMatchObject({ created: 0, updated: 0, deadLettered: 0 });
    expect(await traffic(f.sandbox)).toBe(0);
    expect(await f.state.cursors.get('products')).toBeUndefined();
    expect(await f.state.deadLetters.count('products')).toBe(0);

    await setFaults(f.sandbox, { error_rate: 0 });
    await sleep(Math.max(0, Date.parse(shop.circuit().probeAt!) - Date.now()) + 20);
    const third = await run();
    expect(third).toMatchObject({ status: 'succeeded', counts: { created: 30 } });
    expect(shop.circuit().state).toBe('closed');
    expect(await shopRecords(shop, 'products')).toHaveLength(30);
    expect(await f.state.cursors.get('products')).toBeDefined();
  });
});
