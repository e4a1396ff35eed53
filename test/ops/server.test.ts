import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { readiness, trackShopContact } from '../../src/ops/readiness.js';
import { startOpsServer, type OpsServer } from '../../src/ops/server.js';
import { ConfigError } from '../../src/errors.js';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startOpsServer', () => {
  it('answers /healthz while the process lives', async () => {
    server = await startOpsServer({ port: 0, metrics: createMetrics(), readiness: () => readiness({}), logger: silentLogger, version: '0.1.0' });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', version: '0.1.0' });
  });

  it('reports /readyz 503 with the failing check once the shop stops answering, 200 when it answers again', async () => {
    const shop = trackShopContact();
    let stateOpen = true;
    server = await startOpsServer({
      port: 0,
      metrics: createMetrics(),
      logger: silentLogger,
      readiness: () =>
        readiness({
          state: () => ({ ok: stateOpen, detail: stateOpen ? 'open' : 'closed' }),
          shop: () => shop.check(),
        }),
    });
    const ready = async () => {
      const res = await fetch(`${server!.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { ok: boolean; detail: string }> } };
    };
    expect((await ready()).status).toBe(200);
    shop.observe({ type: 'request', resource: 'products', method: 'GET', status: 'network', durationMs: 30000, attempt: 1 });
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body.checks.shop).toMatchObject({ ok: false });
    expect(down.body.checks.shop.detail).toContain('no answer');
    shop.observe({ type: 'request', resource: 'products', method: 'GET', status: 429, durationMs: 5, attempt: 2 });
    expect((await ready()).status).toBe(200);
    shop.observe({ type: 'request', resource: 'products', method: 'GET', status: 401, durationMs: 5, attempt: 1 });
    expect((await ready()).status).toBe(503);
    shop.observe({ type: 'request', resource: 'products', method: 'GET', status: 200, durationMs: 5, attempt: 1 });
    stateOpen = false;
    const noState = await ready();
    expect(noState.status).toBe(503);
    expect(noState.body.checks.state.ok).toBe(false);
    expect(noState.body.checks.shop.ok).toBe(true);
  });

  it('exposes the listed series on /metrics from a registry of its own', async () => {
    const metrics = createMetrics({
      deadLetters: () => ({ products: 3 }),
      pipelines: ['products', 'stock'],
      shopRates: () => ({ default: { mode: 'adaptive', phase: 'steady', concurrency: 5, requestsPerSecond: 18.5, learntLimitPerSecond: 20 } }),
    });
    metrics.clientEvent({ type: 'request', resource: 'products', method: 'POST', status: 200, durationMs: 120, attempt: 1 });
    metrics.clientEvent({ type: 'request', resource: 'products', method: 'POST', status: 429, durationMs: 4, attempt: 1 });
    metrics.clientEvent({ type: 'queue', size: 7, pending: 2 });
    metrics.recordsSettled('products', 'created', 5);
    metrics.recordsSettled('products', 'failed');
    metrics.runFinished('products', 'succeeded', new Date('2026-01-02T03:04:05Z'));
    metrics.runFinished('stock', 'failed', new Date());
    server = await startOpsServer({ port: 0, metrics, readiness: () => readiness({}), logger: silentLogger });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('shopsync_records_total{shop="default",pipeline="products",outcome="created"} 5');
    expect(text).toContain('shopsync_records_total{shop="default",pipeline="products",outcome="failed"} 1');
    expect(text).toMatch(/shopsync_shop_request_duration_seconds_count\{shop="default",resource="products",method="POST",status="200"\} 1/);
    expect(text).toContain('shopsync_shop_throttled_total{shop="default",resource="products"} 1');
    expect(text).toContain('shopsync_shop_queue_depth{shop="default",state="waiting"} 7');
    expect(text).toContain('shopsync_shop_queue_depth{shop="default",state="running"} 2');
    expect(text).toContain('shopsync_shop_rate_requests_per_second{shop="default"} 18.5');
    expect(text).toContain('shopsync_shop_rate_concurrency{shop="default"} 5');
    expect(text).toContain('shopsync_dead_letters{shop="default",pipeline="products"} 3');
    expect(text).toContain('shopsync_dead_letters{shop="default",pipeline="stock"} 0');
    expect(text).toContain(`shopsync_last_success_timestamp_seconds{shop="default",pipeline="products"} ${Date.parse('2026-01-02T03:04:05Z') / 1000}`);
    expect(text).not.toMatch(/shopsync_last_success_timestamp_seconds\{[^}]*pipeline="stock"/);
    expect(text).toContain('shopsync_runs_total{shop="default",pipeline="stock",status="failed"} 1');
    expect(text).toContain('shopsync_process_resident_memory_bytes');
    // A second process-level registry does not clash with the first.
    expect(() => createMetrics()).not.toThrow();
  });

  it('refuses to bind beyond loopback without a token', async () => {
    await expect(startOpsServer({ host: '0.0.0.0', port: 0, metrics: createMetrics(), readiness: () => readiness({}), logger: silentLogger })).rejects.toBeInstanceOf(ConfigError);
  });

  it('says which port is taken', async () => {
    server = await startOpsServer({ port: 0, metrics: createMetrics(), readiness: () => readiness({}), logger: silentLogger });
    await expect(startOpsServer({ port: server.port, metrics: createMetrics(), readiness: () => readiness({}), logger: silentLogger })).rejects.toThrow(/in use/);
  });
});
