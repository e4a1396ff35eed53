/**
 * An unreachable shop (connection refused, DNS failure) fails the run within seconds with the
 * hint to check shop.baseUrl; a shop that answers 5xx still gets the full retry budget of the
 * client and the pipeline. "Within seconds" is asserted by what bounds the time, not by a clock:
 * the one pipeline attempt makes 1 + UNREACHABLE_RETRIES requests per batch (short backoffs, no 5xx
 * budget), where the full budget would be 5 attempts × 6 requests per batch; a wall-clock bound would fail on a busy machine.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hintFor } from '../../src/cli/format.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { UNREACHABLE_RETRIES } from '../../src/shop/client/retry.js';
import { createShopClient } from '../../src/shop/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, setFaults, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };

/** A port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

describe('a shop that cannot be reached', () => {
  it('fails the run after the short unreachable budget (not the full backoff) when the connection is refused, with the hint to check shop.baseUrl, and keeps every record for the next run', async () => {
    const mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    upsertProducts(f.erp, 1, 120);
    // The shipped defaults: 5 client retries from 250 ms, 5 pipeline attempts.
    const shop = createShopClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, auth: { kind: 'token', token: 'irrelevant' } });
    const summary = await runPipeline(def, { state: f.state, shop, mapping, source: sqliteSource(f.erpFile) });
    await shop.close();
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'NETWORK_ERROR', message: expect.stringMatching(/after 3 attempts: the shop is unreachable.*ECONNREFUSED/) } });
    // One pipeline attempt, each of its two batches (100 + 20 records, both in flight) at most
    // 1 + UNREACHABLE_RETRIES requests: not the 5 attempts × 6 requests of the 5xx budget.
    expect(summary.counts.requests).toBeGreaterThanOrEqual(1 + UNREACHABLE_RETRIES);
    expect(summary.counts.requests).toBeLessThanOrEqual(2 * (1 + UNREACHABLE_RETRIES));
    expect(hintFor(summary.error!.code)).toMatch(/shop\.baseUrl/);
    expect(await f.state.deadLetters.list({ pipeline: 'products' })).toHaveLength(0);
    expect(await f.state.cursors.get('products')).toBeUndefined();
  });

  it('still gives a shop answering 5xx the full backoff: every client retry on every pipeline attempt', async () => {
    const mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    upsertProducts(f.erp, 1, 3);
    await setFaults(f.sandbox, { error_rate: 1, error_status: 503 });
    const shop = createShopClient({ baseUrl: f.sandbox.url, auth: { kind: 'token', token: f.sandbox.token }, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    const summary = await runPipeline({ ...def, options: { maxAttempts: 3 } }, { state: f.state, shop, mapping, source: sqliteSource(f.erpFile) });
    await shop.close();
    expect(summary).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/gave up after 3 attempts/) } });
    // 3 pipeline attempts × (1 + 3 client retries) requests for the one batch.
    expect(summary.counts.requests).toBe(12);
  });
});
