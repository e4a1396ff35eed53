/**
 * The shops page and the overview's shop and status filters, over HTTP, against three real shop
 * clients fed into the daemon's per-shop health tracker: `de` talks to a sandbox, `at` to the same
 * sandbox with a token it refuses, `ch` to a port where nothing listens.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDashboard, type DashboardPipeline } from '../../src/dashboard/index.js';
import { silentLogger } from '../../src/log.js';
import { trackShopHealth } from '../../src/ops/shopHealth.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient, type ShopClient } from '../../src/shop/index.js';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

const PIPELINES: DashboardPipeline[] = [
  { name: 'products-de', shop: 'de', resource: 'products', direction: 'push', schedule: '*/10 * * * *', nextRun: () => undefined },
  { name: 'stock-at', shop: 'at', resource: 'products', direction: 'push', schedule: '*/10 * * * *', nextRun: () => undefined },
  { name: 'products-at', shop: 'at', resource: 'products', direction: 'push', schedule: '*/10 * * * *', nextRun: () => undefined },
  { name: 'products-ch', shop: 'ch', resource: 'products', direction: 'push', nextRun: () => undefined },
];

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A finished run of `pipeline` in its shop; `letters` dead letters left by it. */
async function finishedRun(state: StateStore, shop: string, pipeline: string, status: 'succeeded' | 'partial' | 'failed', letters = 0): Promise<number> {
  const scoped = state.forShop(shop);
  const runId = await scoped.runs.start({ pipeline, mode: 'sync', lane: pipeline });
  if (letters) await scoped.write((tx) => {
    for (let i = 0; i < letters; i++) tx.deadLetters.add({ pipeline, resource: 'products', erpKey: `${pipeline}-${i}`, record: { sku: i }, code: 'INVALID_PAYLOAD', reason: 'price missing', runId });
  });
  const error = status === 'failed' ? { code: shop === 'at' ? 'UNAUTHORIZED' : 'NETWORK_ERROR', message: 'the shop said no' } : undefined;
  await scoped.runs.finish(runId, status, { ...emptyCounts(), read: 5, failed: letters, deadLettered: letters }, error);
  return runId;
}

describe('the shops page and the overview of several shops', () => {
  let dir: string;
  let sandbox: SandboxHandle;
  let state: StateStore;
  let app: FastifyInstance;
  let base: string;
  const clients = new Map<string, ShopClient>();

  beforeAll(async () => {
    dir = tempDir('shopsync-dashboard-shops-');
    sandbox = await startSandbox({ dbPath: join(dir, 'shop.sqlite'), seed: 'empty' });
    state = await openState(join(dir, 'state.sqlite'));
    const health = trackShopHealth(['de', 'at', 'ch']);
    const down = `http://127.0.0.1:${await closedPort()}`;
    for (const [name, baseUrl, token] of [['de', sandbox.url, sandbox.token], ['at', sandbox.url, 'not-the-token'], ['ch', down, sandbox.token]] as const) {
      clients.set(name, createShopClient({ baseUrl, auth: { kind: 'token', token }, logger: silentLogger, retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 20 }, onEvent: (e) => health.observe(name, e) }));
    }
    // One request each, as a run would send: de answers, at refuses the token, ch is not there.
    for (const client of clients.values()) await client.exportOne('products', 1).catch(() => undefined);

    await finishedRun(state, 'de', 'products-de', 'succeeded');
    await finishedRun(state, 'at', 'stock-at', 'succeeded');
    await finishedRun(state, 'at', 'products-at', 'failed');
    await finishedRun(state, 'ch', 'products-ch', 'partial', 2);

    app = Fastify();
    await registerDashboard(app, {
      state,
      events: new SyncEvents(),
      pipelines: PIPELINES,
      runNow: async () => undefined,
      retryDeadLetters: async () => undefined,
      dropDeadLetters: async () => undefined,
      shopRates: () => Object.fromEntries([...clients].map(([name, c]) => [name, c.rate()])),
      shopHealth: () => health.shopHealth(),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = listeningUrl(app.server);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    for (const c of clients.values()) await c.close();
    await sandbox?.close();
    await state?.close();
    removeDir(dir);
  });

  const get = async (path: string) => {
    const res = await fetch(base + path);
    return { status: res.status, body: await res.text() };
  };
  const cards = (body: string) => [...body.matchAll(/<section class="panel card \w+" data-pipeline="([^"]+)"/g)].map((m) => m[1]);
  const rowOf = (body: string, shop: string) => new RegExp(`<tr data-shop-row="${shop}"[\\s\\S]*?</tr>`).exec(body)?.[0] ?? '';

  it('shows failing pipelines first on the overview, each with why it is failing', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(cards(page.body)).toEqual(['products-at', 'products-ch', 'products-de', 'stock-at']);
    expect(page.body).toContain('data-failing-count="2"');
    expect(page.body).toMatch(/data-failing="run-failed">last run #\d+ failed \[UNAUTHORIZED\]/);
    expect(page.body).toMatch(/data-failing="records-failed dead-letters">last run #\d+ left 2 record\(s\) failed<br>2 dead letter\(s\) wait/);
  });

  it('narrows the overview page to one shop and one status: /?shop=at&status=failing', async () => {
    expect(cards((await get('/?shop=at&status=failing')).body)).toEqual(['products-at']);
    expect(cards((await get('/?shop=at')).body)).toEqual(['products-at', 'stock-at']);
    expect(cards((await get('/?status=failing')).body)).toEqual(['products-at', 'products-ch']);
    expect(cards((await get('/?status=ok')).body)).toEqual(['products-de', 'stock-at']);
    expect(cards((await get('/?shop=de&status=failing')).body)).toEqual([]);
    const wrong = await get('/?status=broken');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('No status "broken": use failing, ok, running');
  });

  it('narrows /api/overview the same way and says why each pipeline is failing', async () => {
    const names = async (query: string) => {
      const res = await fetch(`${base}/api/overview${query}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { pipelines: { name: string; shop: string; failing: boolean }[] }).pipelines.map((p) => `${p.shop}/${p.name}:${p.failing ? 'failing' : 'ok'}`);
    };
    expect(await names('')).toEqual(['at/products-at:failing', 'ch/products-ch:failing', 'de/products-de:ok', 'at/stock-at:ok']);
    expect(await names('?shop=at')).toEqual(['at/products-at:failing', 'at/stock-at:ok']);
    expect(await names('?shop=at&status=failing')).toEqual(['at/products-at:failing']);
    const json = (await (await fetch(`${base}/api/overview?shop=ch`)).json()) as { shopRates: Record<string, unknown>; pipelines: { reasons: { code: string }[] }[] };
    expect(Object.keys(json.shopRates)).toEqual(['ch']);
    expect(json.pipelines[0]!.reasons.map((r) => r.code)).toEqual(['records-failed', 'dead-letters']);
    expect((await fetch(`${base}/api/overview?status=nope`)).status).toBe(400);
  });

  it('lists every shop as one table row with its health, failing shops first', async () => {
    const page = await get('/shop-health');
    expect(page.status).toBe(200);
    expect([...page.body.matchAll(/<tr data-shop-row="([^"]+)" data-health="([^"]+)"/g)].map((m) => `${m[1]}:${m[2]}`)).toEqual(['at:failing', 'ch:failing', 'de:ok']);
    expect(page.body).toContain('data-failing-shops="2"');
    const at = rowOf(page.body, 'at');
    expect(at).toContain('<span class="badge b-bad">refused</span>');
    expect(at).toContain('HTTP 401: the shop refused the credentials');
    expect(at).toContain('href="/?shop=at&amp;status=failing" title="products-at"');
    const ch = rowOf(page.body, 'ch');
    expect(ch).toContain('<td><span class="badge b-bad">no</span></td>');
    expect(ch).toContain('href="/dead-letters?shop=ch"><span class="badge b-bad">2</span>');
    const de = rowOf(page.body, 'de');
    expect(de).toContain('<span class="badge b-ok">accepted</span>');
    expect(de).toContain('<td class="num"><span class="muted">0</span></td>');
    expect(rowOf((await get('/shop-health?status=failing')).body, 'de')).toBe('');
  });

  it('shows a failing shop\'s rate as held, not growing, while its requests fail', async () => {
    const page = await get('/shop-health');
    for (const shop of ['at', 'ch']) {
      const rate = /data-shop-rate="[^"]+">([\s\S]*?)<\/td>/.exec(rowOf(page.body, shop))?.[1] ?? '';
      expect(rate, shop).toContain('held: not learning while requests fail');
      expect(rate, shop).not.toContain('growing');
    }
    // The controller itself never heard an answer from ch: it is still in slow start.
    expect(clients.get('ch')!.rate().phase).toBe('slow-start');
    expect(rowOf(page.body, 'de')).not.toContain('held');
    const overview = await get('/?shop=ch');
    expect(/data-shop-rate="ch">[\s\S]*?<\/div><\/div>/.exec(overview.body)?.[0]).toContain('held: not learning while requests fail');
  });

  it('shows the requests actually sent beside the rate allowed, on the overview tile and the shops row', async () => {
    // de sent one request a moment ago and nothing is running: the allowed rate is no traffic.
    const tile = /data-shop-rate="de">[\s\S]*?<\/div><\/div>/.exec((await get('/?shop=de')).body)?.[0] ?? '';
    expect(tile).toMatch(/<div class="v" title="[^"]*">0\.0\/s actual<\/div><div class="k">shop <b>de<\/b> requests of [\d.]+\/s allowed \(adaptive[^)]*\), 0 of \d+ in flight<\/div>/);
    const cell = /data-shop-rate="de">([\s\S]*?)<\/td>/.exec(rowOf((await get('/shop-health')).body, 'de'))?.[1] ?? '';
    expect(cell).toMatch(/^<b title="[^"]*">0\.0\/s<\/b> actual of <b>[\d.]+\/s<\/b> allowed <span class="small muted">\(adaptive[^)]*\), 0 of \d+ in flight<\/span>$/);
    const api = (await (await fetch(`${base}/api/overview?shop=de`)).json()) as { shopRates: Record<string, { sent?: { inFlight: number } }> };
    expect(api.shopRates.de?.sent?.inFlight).toBe(0);
  });

  it('answers the shops as JSON at /api/shops', async () => {
    const json = (await (await fetch(`${base}/api/shops`)).json()) as { shops: { name: string; health: string; reachable: boolean | null; tokenAccepted: boolean | null; pipelines: number; failingPipelines: string[]; deadLetters: number }[] };
    expect(json.shops.map((s) => [s.name, s.health, s.reachable, s.tokenAccepted, s.pipelines, s.failingPipelines, s.deadLetters])).toEqual([
      ['at', 'failing', true, false, 2, ['products-at'], 0],
      ['ch', 'failing', false, null, 1, ['products-ch'], 2],
      ['de', 'ok', true, true, 1, [], 0],
    ]);
  });
});
