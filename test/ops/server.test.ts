import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { silentLogger } from '../../src/log.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { everyShopFailing, readiness } from '../../src/ops/readiness.js';
import { trackShopHealth } from '../../src/ops/shopHealth.js';
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

  it('reports /readyz 503 only when this process is the problem: its state, or every shop failing; one shop down is a detail', async () => {
    const shops = trackShopHealth(['de', 'at']);
    let stateOpen = true;
    server = await startOpsServer({
      port: 0,
      metrics: createMetrics(),
      logger: silentLogger,
      readiness: () =>
        readiness(
          {
            state: () => ({ ok: stateOpen, detail: stateOpen ? 'open' : 'closed' }),
            shops: () => everyShopFailing(shops.shopHealth()),
          },
          () => shops.shopHealth(),
        ),
      shops: () => shops.shopHealth(),
    });
    const ready = async () => {
      const res = await fetch(`${server!.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { ok: boolean; detail: string }>; shops: { name: string; health: string }[] } };
    };
    const request = (status: number | 'network') => ({ type: 'request' as const, resource: 'products', method: 'GET', status, durationMs: 5, attempt: 1 });
    expect((await ready()).status).toBe(200);
    shops.observe('at', request('network'));
    const oneDown = await ready();
    expect(oneDown.status).toBe(200);
    expect(oneDown.body.checks.shops.detail).toContain('failing: at');
    expect(oneDown.body.shops.map((s) => [s.name, s.health])).toEqual([['de', 'unknown'], ['at', 'failing']]);
    shops.observe('de', request(401));
    const allDown = await ready();
    expect(allDown.status).toBe(503);
    expect(allDown.body.checks.shops.detail).toMatch(/every shop fails .*de: HTTP 401.*at: no answer/);
    shops.observe('de', request(429));
    expect((await ready()).status).toBe(200);
    stateOpen = false;
    const noState = await ready();
    expect(noState.status).toBe(503);
    expect(noState.body.checks.state.ok).toBe(false);
    expect(noState.body.checks.shops.ok).toBe(true);
    const list = (await (await fetch(`${server.url}/shops`)).json()) as { failing: string[]; shops: { name: string; health: string; reachable: boolean | null; tokenAccepted: boolean | null }[] };
    expect(list.failing).toEqual(['at']);
    expect(list.shops).toMatchObject([
      { name: 'de', health: 'ok', reachable: true, tokenAccepted: true },
      { name: 'at', health: 'failing', reachable: false, tokenAccepted: null },
    ]);
  });

  it('exposes the listed series on /metrics from a registry of its own', async () => {
    const metrics = createMetrics({
      deadLetters: () => ({ products: 3 }),
      pipelines: ['products', 'stock'],
      shopRates: () => ({ default: { mode: 'adaptive', phase: 'steady', concurrency: 5, requestsPerSecond: 18.5, learntLimitPerSecond: 20, sent: { lastMinute: 90, perSecond: 1.5, inFlight: 1 } } }),
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
    // What was actually sent, beside the allowed rate: 90 requests in the last minute.
    expect(text).toContain('shopsync_shop_rate_sent_per_second{shop="default"} 1.5');
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

/** GET with a Host header of the caller's choice (fetch does not let a caller set Host; a rebinding browser sends the attacker's name). */
function getAs(url: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { ...headers, host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const TOKEN = 'a-long-dashboard-token-0123456789abcdef';

describe('startOpsServer: who may read what (DNS rebinding, tokens, details)', () => {
  let state: StateStore | undefined;
  afterEach(async () => {
    await state?.close();
    state = undefined;
  });

  /** An ops server with the dashboard mounted, as the daemon runs it. */
  async function withDashboard(options: { host?: string; token?: string; allowedHosts?: string[] } = {}): Promise<OpsServer> {
    state = await openState(':memory:');
    const dashboardState = state;
    return startOpsServer({
      port: 0,
      metrics: createMetrics(),
      logger: silentLogger,
      version: '0.1.0',
      readiness: () => readiness({ state: () => ({ ok: true, detail: 'open (/srv/shopsync/state/state.sqlite)' }) }),
      ...options,
      register: (app) =>
        registerDashboard(app, {
          state: dashboardState,
          events: new SyncEvents(),
          pipelines: [],
          runNow: async () => undefined,
          retryDeadLetters: async () => undefined,
          dropDeadLetters: async () => undefined,
          ...(options.token ? { token: options.token } : {}),
          ...(options.host ? { host: options.host } : {}),
        }),
    });
  }
  const ROUTES = ['/healthz', '/readyz', '/metrics', '/', '/login', '/api/overview', '/assets/dashboard.js'];

  it('on a loopback bind answers only loopback Host names, on every route, with a token or without', async () => {
    for (const token of [undefined, TOKEN]) {
      server = await withDashboard(token ? { token } : {});
      const port = server.port;
      for (const path of ROUTES) {
        for (const host of [`attacker.example:${port}`, 'attacker.example', `127.0.0.1.nip.io:${port}`, `localhost.attacker.example:${port}`]) {
          expect((await getAs(`${server.url}${path}`, host)).status, `${token ? 'token' : 'no token'} ${path} Host: ${host}`).toBe(403);
        }
      }
      // The names of this machine are fine, on any port (an SSH tunnel forwards another local port).
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost:9000', `127.0.0.2:${port}`]) {
        expect((await getAs(`${server.url}/healthz`, host)).status, host).toBe(200);
      }
      await server.close();
      server = undefined;
    }
  });

  it('answers the names listed in allowedHosts too (a reverse proxy that keeps the Host header)', async () => {
    server = await withDashboard({ token: TOKEN, allowedHosts: ['shopsync.example.com'] });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await getAs(`${server.url}/api/overview`, 'shopsync.example.com', bearer)).status).toBe(200);
    expect((await getAs(`${server.url}/healthz`, 'SHOPSYNC.example.com:443')).status).toBe(200);
    expect((await getAs(`${server.url}/healthz`, 'evil.example')).status).toBe(403);
    expect((await getAs(`${server.url}/healthz`, 'sub.shopsync.example.com')).status).toBe(403);
  });

  it('on a public bind answers any Host unless allowedHosts is set; then only those, loopback names and IP addresses (probes send the pod IP)', async () => {
    server = await withDashboard({ host: '0.0.0.0', token: TOKEN });
    const url = `http://127.0.0.1:${server.port}`;
    expect((await getAs(`${url}/healthz`, 'shopsync.internal:8080')).status).toBe(200);
    await server.close();
    server = await withDashboard({ host: '0.0.0.0', token: TOKEN, allowedHosts: ['shopsync.internal'] });
    const url2 = `http://127.0.0.1:${server.port}`;
    for (const host of ['shopsync.internal:8080', '10.1.2.3:8080', '[fd00::5]:8080', `127.0.0.1:${server.port}`, 'localhost']) {
      expect((await getAs(`${url2}/readyz`, host)).status, host).toBe(200);
    }
    expect((await getAs(`${url2}/readyz`, 'attacker.example:8080')).status).toBe(403);
  });

  it('asks for the dashboard token on /metrics when one is set (Prometheus sends it as a bearer token)', async () => {
    server = await withDashboard({ token: TOKEN });
    const none = await fetch(`${server.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).not.toContain('shopsync_');
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0000000' } })).status).toBe(401);
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('shopsync_process_resident_memory_bytes');
  });

  it('asks for the dashboard token on /shops, and gives the shops\' health in /readyz only with it', async () => {
    const shops = trackShopHealth(['b2b-kunde-mueller']);
    state = await openState(':memory:');
    server = await startOpsServer({ port: 0, metrics: createMetrics(), logger: silentLogger, token: TOKEN, readiness: () => readiness({}, () => shops.shopHealth()), shops: () => shops.shopHealth() });
    const none = await fetch(`${server.url}/shops`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).not.toContain('mueller');
    const bearer = { headers: { authorization: `Bearer ${TOKEN}` } };
    expect(await (await fetch(`${server.url}/shops`, bearer)).json()).toMatchObject({ failing: [], shops: [{ name: 'b2b-kunde-mueller', health: 'unknown' }] });
    expect(await (await fetch(`${server.url}/readyz`)).text()).not.toContain('mueller');
    expect(await (await fetch(`${server.url}/readyz`, bearer)).json()).toMatchObject({ status: 'ready', shops: [{ name: 'b2b-kunde-mueller' }] });
  });

  it('keeps /healthz and /readyz open for probes but gives their details (version, check details) only with the token', async () => {
    server = await withDashboard({ token: TOKEN });
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const healthBody = (await health.json()) as Record<string, unknown>;
    expect(healthBody).toMatchObject({ status: 'ok' });
    expect(healthBody).not.toHaveProperty('version');
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const text = await ready.text();
    expect(JSON.parse(text)).toEqual({ status: 'ready', checks: { state: { ok: true } } });
    expect(text).not.toContain('/srv/shopsync');
    const bearer = { headers: { authorization: `Bearer ${TOKEN}` } };
    expect(await (await fetch(`${server.url}/healthz`, bearer)).json()).toMatchObject({ status: 'ok', version: '0.1.0' });
    expect(await (await fetch(`${server.url}/readyz`, bearer)).json()).toMatchObject({ checks: { state: { ok: true, detail: expect.stringContaining('open') } } });
  });
});
