/** The adaptive rate against the real sandbox over HTTP, with a limit the client is not told about. */
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';
import { createShopClient, type ClientEvent, type ShopClient } from '../../../src/shop/index.js';

let sandbox: SandboxHandle;

async function setFaults(faults: Record<string, number>): Promise<void> {
  await axios.put(`${sandbox.url}/sandbox/faults`, faults, { headers: { Authorization: `Bearer ${sandbox.token}` } });
}

function client(events: ClientEvent[]): ShopClient {
  // Defaults: adaptive mode, no rate configured.
  return createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, onEvent: (e) => events.push(e) });
}

const products = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ products_model: `RATE-${from + i}`, products_price: 10 }));

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
});

afterAll(async () => {
  await setFaults({ rate_limit_per_second: 0, latency_ms: 0 });
  await sandbox?.close();
});

describe('adaptive rate against a shop with a hidden limit', () => {
  it('backs off to the limit it learns from 429, recovers without a sawtooth of 429s and writes everything', async () => {
    await setFaults({ rate_limit_per_second: 20, latency_ms: 50 });
    const events: ClientEvent[] = [];
    const shop = client(events);
    try {
      // 100 requests of 2 records: five seconds at the hidden limit.
      const result = await shop.create('products', products(0, 200), { batchSize: 2 });
      expect(result.outcomes.every((o) => o.ok)).toBe(true);
      const statuses = events.flatMap((e) => (e.type === 'request' ? [e.status] : []));
      const throttled = statuses.filter((s) => s === 429).length;
      expect(throttled).toBeGreaterThan(0); // it did meet the limit
      // How few 429s follow depends on how evenly this machine's timers fire against the shop's wall-clock second
      // (5.7 % with `stress --cpu 2` beside it, about 2 % idle): the share is a figure of the benchmark (hidden limit,
      // docs/benchmarks.md); that the controller keeps below the learnt limit, and probes beyond it slowly, is
      // controller.test.ts on its own clock.
      const rates = events.flatMap((e) => (e.type === 'rate' ? [e] : []));
      const lowest = Math.min(...rates.map((r) => r.requestsPerSecond));
      expect(lowest).toBeLessThanOrEqual(20); // backed off from the 500/s cap to the shop's limit
      expect(rates.at(-1)!.learntLimitPerSecond).toBeLessThanOrEqual(25);
      const afterLowest = rates.slice(rates.findIndex((r) => r.requestsPerSecond === lowest));
      expect(Math.max(...afterLowest.map((r) => r.requestsPerSecond))).toBeGreaterThan(lowest); // and recovered
      expect(shop.rate()).toMatchObject({ mode: 'adaptive', phase: 'steady' });
    } finally {
      await shop.close();
      await setFaults({ rate_limit_per_second: 0, latency_ms: 0 });
    }
  });

  it('climbs back after each 5xx cut when the caller sends one request at a time (the rate is what spaces them)', async () => {
    await setFaults({ rate_limit_per_second: 5, error_rate: 0.2, error_status: 503 });
    const events: ClientEvent[] = [];
    const shop = client(events);
    try {
      // One request after the other, as a pipeline with options.concurrency 1 sends its batches.
      for (let i = 0; i < 30; i++) expect((await shop.create('products', products(90_000 + i * 2, 2), { batchSize: 2 })).outcomes.every((o) => o.ok)).toBe(true);
      const rates = events.flatMap((e) => (e.type === 'rate' ? [e.requestsPerSecond] : []));
      // Six 503s cut the rate by a fifth each; with nothing waiting at answer time it once stayed at the floor of 1/s.
      expect(rates.at(-1)).toBeGreaterThanOrEqual(3);
      expect(shop.rate().learntLimitPerSecond).toBe(5);
    } finally {
      await shop.close();
      await setFaults({ rate_limit_per_second: 0, error_rate: 0 });
    }
  });

  it('grows from the polite floor while answers are fast and clean, up to its hard cap', async () => {
    const events: ClientEvent[] = [];
    // A steady 100 ms: the machine's own load (a loaded CI box) then stays well inside the latency brake's slack.
    await setFaults({ latency_ms: 100 });
    const shop = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, rateLimit: { concurrency: 6 }, onEvent: (e) => events.push(e) });
    try {
      expect(shop.rate().concurrency).toBe(2);
      const result = await shop.create('products', products(1000, 60), { batchSize: 2 });
      expect(result.outcomes.every((o) => o.ok)).toBe(true);
      expect(shop.rate()).toMatchObject({ concurrency: 6, phase: 'slow-start' });
      const peak = Math.max(...events.flatMap((e) => (e.type === 'queue' ? [e.pending] : [])));
      expect(peak).toBe(6);
    } finally {
      await shop.close();
      await setFaults({ latency_ms: 0 });
    }
  });

  it('keeps a fixed rate when told the shop publishes one', async () => {
    const shop = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, rateLimit: { mode: 'fixed', concurrency: 3, intervalCap: 50, intervalMs: 1000 } });
    try {
      await shop.create('products', products(2000, 20), { batchSize: 2 });
      expect(shop.rate()).toMatchObject({ mode: 'fixed', phase: 'fixed', concurrency: 3, requestsPerSecond: 50 });
    } finally {
      await shop.close();
    }
  });
});
