import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerDashboard, type DashboardDeps } from '../../src/dashboard/index.js';
import { ConfigError } from '../../src/errors.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

const XSS = '<img src=x onerror=alert(1)>';

interface Harness {
  app: FastifyInstance;
  base: string;
  state: StateStore;
  events: SyncEvents;
  calls: { runNow: string[]; retry: (number[] | 'all')[]; drop: (number[] | 'all')[] };
}

let dir: string;
let harness: Harness | undefined;

const PRODUCTS_PUSH: DashboardDeps['pipelines'][number] = { name: 'products-push', resource: 'products', direction: 'push', schedule: '*/5 * * * *', nextRun: () => new Date(Date.now() + 120_000) };

async function start(options: { token?: string; host?: string; pipelines?: DashboardDeps['pipelines'] } = {}): Promise<Harness> {
  const state = await openState(join(dir, 'state.sqlite'));
  const events = new SyncEvents();
  const calls: Harness['calls'] = { runNow: [], retry: [], drop: [] };
  const deps: DashboardDeps = {
    state,
    events,
    pipelines: options.pipelines ?? [PRODUCTS_PUSH],
    // The HTTP layer is under test here; the browser test drives the real pipeline behind these.
    runNow: async (name) => {
      calls.runNow.push(name);
    },
    retryDeadLetters: async (ids) => {
      calls.retry.push(ids === 'all' ? 'all' : [...ids]);
      for (const id of ids === 'all' ? (await state.deadLetters.list()).map((d) => d.id) : ids) await state.deadLetters.delete(id);
    },
    dropDeadLetters: async (ids) => {
      calls.drop.push(ids === 'all' ? 'all' : [...ids]);
      for (const id of ids === 'all' ? (await state.deadLetters.list()).map((d) => d.id) : ids) await state.deadLetters.delete(id);
    },
    ...(options.token ? { token: options.token } : {}),
    ...(options.host ? { host: options.host } : {}),
  };
  const app = Fastify();
  await registerDashboard(app, deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  harness = { app, base: listeningUrl(app.server), state, events, calls };
  return harness;
}

async function seed(state: StateStore): Promise<{ runId: number; deadLetterId: number }> {
  const runId = await state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
  await state.write((tx) => {
    tx.events.add({ runId, pipeline: 'products-push', resource: 'products', erpKey: 'SKU-1', shopId: 11, outcome: 'created', payload: { products_model: 'SKU-1', languages: { de: { products_name: XSS } } } });
    tx.events.add({
      runId,
      pipeline: 'products-push',
      resource: 'products',
      erpKey: 'SKU-2',
      shopId: 12,
      outcome: 'updated',
      payload: { products_model: 'SKU-2' },
      diff: { products_quantity: { shop: 3, next: 7 } },
    });
    tx.events.add({ runId, pipeline: 'products-push', resource: 'products', erpKey: 'SKU-3', outcome: 'dead-lettered', error: { code: 'INVALID_PAYLOAD', message: `bad field ${XSS}`, field: 'products_price' } });
    tx.deadLetters.add({ pipeline: 'products-push', resource: 'products', erpKey: 'SKU-3', record: { sku: 'SKU-3', name: XSS }, code: 'INVALID_PAYLOAD', reason: `price ${XSS}`, runId });
    tx.refs.put('products', 'SKU-1', 11);
  });
  await state.runs.finish(runId, 'partial', { ...emptyCounts(), read: 3, created: 1, updated: 1, failed: 1, deadLettered: 1 });
  const dl = await state.deadLetters.getByKey('products-push', 'SKU-3');
  if (!dl) throw new Error('the seeded dead letter is missing');
  return { runId, deadLetterId: dl.id };
}

/** GET a page and return its body plus the CSRF cookie the dashboard set. */
async function getPage(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; cookie: string; csrf: string }> {
  const res = await fetch(base + path, { headers, redirect: 'manual' });
  const body = await res.text();
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(body)?.[1] ?? '';
  return { status: res.status, body, cookie, csrf };
}

function post(base: string, path: string, form: Record<string, string | string[]>, headers: Record<string, string>): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return fetch(base + path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, redirect: 'manual' });
}

beforeEach(() => {
  dir = tempDir('shopsync-dashboard-');
});
afterEach(async () => {
  await harness?.app.close();
  await harness?.state.close();
  harness = undefined;
  removeDir(dir);
});

describe('dashboard pages', () => {
  it('shows ERP and shop values as text on every page', async () => {
    const h = await start();
    const { runId } = await seed(h.state);
    for (const path of [`/runs/${runId}`, '/dead-letters', '/records?q=SKU-1', '/records?q=SKU-3']) {
      const page = await getPage(h.base, path);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toContain('<img src=x');
      expect(page.body, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('renders every page with the run, its counts and what changed', async () => {
    const h = await start();
    const { runId } = await seed(h.state);
    const overview = await getPage(h.base, '/');
    expect(overview.body).toContain('products-push');
    expect(overview.body).toContain('failing');
    expect(overview.body).toContain('*/5 * * * *');
    const runs = await getPage(h.base, '/runs?pipeline=products-push&outcome=with-failures');
    expect(runs.body).toContain(`/runs/${runId}`);
    const none = await getPage(h.base, '/runs?outcome=succeeded');
    expect(none.body).toContain('No runs match');
    const detail = await getPage(h.base, `/runs/${runId}`);
    expect(detail.body).toContain('products_quantity');
    expect(detail.body).toMatch(/class="before mono">3<\/td><td class="after mono">7</);
    expect(detail.body).toContain('INVALID_PAYLOAD');
    const charts = await getPage(h.base, '/charts');
    expect(charts.body).toContain('<svg');
    expect((await getPage(h.base, '/runs/999')).status).toBe(404);
  });

  it('shows on a run page how many records the source could not use, and nothing of the kind for a clean run', async () => {
    const h = await start();
    const partial = await h.state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    await h.state.runs.finish(partial, 'partial', { ...emptyCounts(), read: 6, updated: 5, deadLettered: 1, unreadable: 1 });
    const clean = await h.state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    await h.state.runs.finish(clean, 'succeeded', { ...emptyCounts(), read: 5, unchanged: 5 });
    expect((await getPage(h.base, `/runs/${partial}`)).body).toMatch(/>1<\/div><div class="k">unreadable</);
    expect((await getPage(h.base, `/runs/${clean}`)).body).not.toContain('unreadable');
  });

  it('says a dry run\'s counts as what it would do ("would create 185"), a run\'s as what it did', async () => {
    const h = await start();
    const dry = await h.state.runs.start({ pipeline: 'products-push', mode: 'dry-run', lane: 'products-push' });
    await h.state.runs.finish(dry, 'succeeded', { ...emptyCounts(), read: 188, created: 185, updated: 3 });
    const page = (await getPage(h.base, `/runs/${dry}`)).body;
    expect(page).toMatch(/>185<\/div><div class="k">would create</);
    expect(page).toMatch(/>3<\/div><div class="k">would update</);
    expect(page).not.toMatch(/<div class="k">created</);
    expect((await getPage(h.base, '/')).body).toContain('would create 185 · would update 3 · 0 unchanged');
    const real = await h.state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    await h.state.runs.finish(real, 'succeeded', { ...emptyCounts(), read: 188, created: 185, updated: 3 });
    expect((await getPage(h.base, `/runs/${real}`)).body).toMatch(/>185<\/div><div class="k">created</);
    expect((await getPage(h.base, '/')).body).toContain('185 created · 3 updated · 0 unchanged');
  });

  it('says on a run page that its unchanged records are counted, not listed, and says nothing of the kind on a filter that would not hold them', async () => {
    const h = await start();
    const run = await h.state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    await h.state.runs.finish(run, 'succeeded', { ...emptyCounts(), read: 5, unchanged: 5 });
    expect((await getPage(h.base, `/runs/${run}`)).body).toMatch(/id="unlisted">Unchanged records without warnings are counted above \(5 unchanged in all\), not listed/);
    expect((await getPage(h.base, `/runs/${run}?show=problems`)).body).not.toContain('id="unlisted"');
  });

  it('says on the preview page when the dashboard was given no way to preview, instead of failing', async () => {
    const { base } = await start();
    const { status, body } = await getPage(base, '/pipelines/products-push/preview');
    expect(status).toBe(501);
    expect(body).toContain('<code class="code">PREVIEW_UNAVAILABLE</code>');
  });

  it('sends a restrictive content security policy and no-store on pages', async () => {
    const h = await start();
    const res = await fetch(`${h.base}/`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.getSetCookie()[0]).toMatch(/SameSite=Strict/);
  });
});

describe('dashboard actions', () => {
  it('runs a pipeline only for a same-origin POST carrying the CSRF token', async () => {
    const h = await start();
    const { cookie, csrf } = await getPage(h.base, '/');
    expect((await post(h.base, '/actions/run', { pipeline: 'products-push' }, { cookie })).status).toBe(403);
    expect((await post(h.base, '/actions/run', { pipeline: 'products-push', _csrf: 'forged' }, { cookie })).status).toBe(403);
    expect((await post(h.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, {})).status).toBe(403);
    expect((await post(h.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(h.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(h.calls.runNow).toEqual([]);
    const ok = await post(h.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, origin: h.base, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(303);
    expect(h.calls.runNow).toEqual(['products-push']);
  });

  it('refuses GET for actions', async () => {
    const h = await start();
    expect((await fetch(`${h.base}/actions/run?pipeline=products-push`)).status).toBe(404);
    expect(h.calls.runNow).toEqual([]);
  });

  it('retries one, a selection, or all dead letters of a pipeline and reports what was delivered', async () => {
    const h = await start();
    const { deadLetterId } = await seed(h.state);
    const { cookie, csrf } = await getPage(h.base, '/dead-letters');
    const one = await post(h.base, '/actions/dead-letters/retry', { _csrf: csrf, only: String(deadLetterId) }, { cookie });
    expect(one.status).toBe(303);
    expect(h.calls.retry).toEqual([[deadLetterId]]);
    const page = await getPage(h.base, one.headers.get('location') ?? '/', { cookie });
    expect(page.body).toContain('Retried 1 dead letter: 1 delivered, 0 still failing.');

    const empty = await post(h.base, '/actions/dead-letters/drop', { _csrf: csrf, scope: 'selected' }, { cookie, accept: 'application/json' });
    expect(empty.status).toBe(400);
    const all = await post(h.base, '/actions/dead-letters/drop', { _csrf: csrf, scope: 'all' }, { cookie, accept: 'application/json' });
    expect(await all.json()).toMatchObject({ ok: true, dropped: 0 });
    expect(h.calls.drop).toEqual(['all']);
  });
});

describe('dashboard with several shops', () => {
  const pipelines = [
    { ...PRODUCTS_PUSH, shop: 'default' },
    { name: 'products-at', shop: 'at', resource: 'products', direction: 'push', nextRun: () => undefined },
  ];

  /** A partial run of products-at in shop `at` that dead-lettered AT-1 and AT-2. */
  async function seedAt(state: StateStore): Promise<{ runId: number; letterIds: number[] }> {
    const at = state.forShop('at');
    const runId = await at.runs.start({ pipeline: 'products-at', mode: 'sync', lane: 'products-at' });
    await at.write((tx) => {
      for (const erpKey of ['AT-1', 'AT-2']) tx.deadLetters.add({ pipeline: 'products-at', resource: 'products', erpKey, record: { sku: erpKey }, code: 'INVALID_PAYLOAD', reason: 'price missing', runId });
    });
    await at.runs.finish(runId, 'partial', { ...emptyCounts(), read: 2, failed: 2, deadLettered: 2 });
    const letterIds = (await state.deadLetters.list({ pipeline: 'products-at' })).map((d) => d.id).sort((a, b) => a - b);
    return { runId, letterIds };
  }

  const runRow = (body: string, runId: number) => new RegExp(`<tr data-run-id="${runId}">[\\s\\S]*?</tr>`).exec(body)?.[0];

  it('says on the run list how far back the record history goes (state.retention prunes older events)', async () => {
    const h = await start({ pipelines });
    expect((await getPage(h.base, '/runs')).body).toContain('<p class="muted small" data-history-since>No record history kept yet.</p>');
    await seed(h.state);
    const since = (await h.state.retention.historySince())!;
    const page = await getPage(h.base, '/runs');
    expect(page.body).toContain(`Record history goes back to ${since.replace('T', ' ').slice(0, 16)} UTC; older events are pruned by state.retention.`);
  });

  it('shows the shop of every run and lists only the runs of the shop chosen with ?shop=', async () => {
    const h = await start({ pipelines });
    const { runId } = await seed(h.state);
    const at = await seedAt(h.state);
    const all = await getPage(h.base, '/runs');
    expect(runRow(all.body, runId)).toContain('<td class="nowrap" data-shop="default">default</td>');
    expect(runRow(all.body, at.runId)).toContain('<td class="nowrap" data-shop="at">at</td>');
    expect(all.body).toContain('<select name="shop" data-shop-filter>');

    const onlyAt = await getPage(h.base, '/runs?shop=at');
    expect(runRow(onlyAt.body, at.runId)).toBeDefined();
    expect(runRow(onlyAt.body, runId)).toBeUndefined();
    expect(onlyAt.body).toContain('<option value="at" selected>at</option>');
    const onlyDefault = await getPage(h.base, '/runs?shop=default');
    expect(runRow(onlyDefault.body, runId)).toBeDefined();
    expect(runRow(onlyDefault.body, at.runId)).toBeUndefined();
    expect((await getPage(h.base, '/runs?shop=ch')).body).toContain('No runs match');

    const overview = await getPage(h.base, '/?shop=at');
    expect(overview.body).toContain('data-pipeline="products-at"');
    expect(overview.body).not.toContain('data-pipeline="products-push"');
  });

  it('lists only the dead letters of the shop chosen with ?shop=, and "drop all" there drops only that shop\'s letters', async () => {
    const h = await start({ pipelines });
    const { deadLetterId } = await seed(h.state);
    const at = await seedAt(h.state);
    const keys = (body: string) => [...body.matchAll(/<tr data-dead-letter-id="\d+" data-erp-key="([^"]+)"/g)].map((m) => m[1]).sort();
    expect(keys((await getPage(h.base, '/dead-letters')).body)).toEqual(['AT-1', 'AT-2', 'SKU-3']);
    expect(keys((await getPage(h.base, '/dead-letters?shop=default')).body)).toEqual(['SKU-3']);
    const page = await getPage(h.base, '/dead-letters?shop=at');
    expect(keys(page.body)).toEqual(['AT-1', 'AT-2']);
    expect(page.body).toContain('Drop all (2 of shop at)');
    expect(page.body).toContain('<input type="hidden" name="shop" value="at">');

    // What the page's "Drop all" button posts: the shop filter goes along.
    const drop = await post(h.base, '/actions/dead-letters/drop', { _csrf: page.csrf, scope: 'all', shop: 'at' }, { cookie: page.cookie });
    expect(drop.status).toBe(303);
    expect(drop.headers.get('location')).toMatch(/^\/dead-letters\?shop=at/);
    expect(h.calls.drop.map((ids) => (ids === 'all' ? ids : [...ids].sort((x, y) => x - y)))).toEqual([at.letterIds]);
    expect((await h.state.deadLetters.list()).map((d) => d.id)).toEqual([deadLetterId]);
  });
});

describe('dashboard access', () => {
  it('refuses to mount on a public address without a token', async () => {
    const state = await openState(':memory:');
    const app = Fastify();
    const deps = { state, events: new SyncEvents(), pipelines: [], runNow: async () => undefined, retryDeadLetters: async () => undefined, dropDeadLetters: async () => undefined };
    await expect(registerDashboard(app, { ...deps, host: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);
    await expect(registerDashboard(app, { ...deps, host: '0.0.0.0', token: 'short' })).rejects.toBeInstanceOf(ConfigError);
    await app.close();
    await state.close();
  });

  it('skips the sign-in page when no token is configured', async () => {
    const h = await start();
    const res = await fetch(`${h.base}/login?next=/runs`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/runs');
  });

  it('signs out by clearing the session cookie', async () => {
    const token = 'another-long-dashboard-token-0123456789';
    const h = await start({ token });
    const login = await getPage(h.base, '/login');
    const right = await post(h.base, '/login', { token, _csrf: login.csrf }, { cookie: login.cookie });
    const session = right.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const cookie = `${login.cookie}; ${session}`;
    const out = await post(h.base, '/logout', { _csrf: login.csrf }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie().join()).toMatch(/shopsync_session_\d+=; .*Max-Age=0/);
  });

  it('refuses a foreign Host header when no token is set (DNS rebinding)', async () => {
    const h = await start();
    // fetch does not let a caller set Host; a rebinding browser would send the attacker's name.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${h.base}/`, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    expect((await fetch(`${h.base}/`)).status).toBe(200);
  });

  it('asks for the token and accepts it as a session cookie or a bearer header', async () => {
    const token = 'a-long-dashboard-token-0123456789abcdef';
    const h = await start({ token, host: '0.0.0.0' });
    const first = await fetch(`${h.base}/runs`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/login?next=%2Fruns');
    expect((await fetch(`${h.base}/api/overview`)).status).toBe(401);
    expect((await fetch(`${h.base}/api/overview`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const login = await getPage(h.base, '/login?next=/runs');
    const wrong = await post(h.base, '/login', { token: 'nope', next: '/runs', _csrf: login.csrf }, { cookie: login.cookie });
    expect(wrong.headers.get('location')).toContain('failed=1');
    const right = await post(h.base, '/login', { token, next: '//evil.example/', _csrf: login.csrf }, { cookie: login.cookie });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/');
    const session = right.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect(session).not.toContain(token);
    const page = await getPage(h.base, '/runs', { cookie: `${login.cookie}; ${session}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1>Runs</h1>');
  });
});

describe('dashboard live updates', () => {
  it('relays pipeline progress to open pages as server-sent events', async () => {
    const h = await start();
    const res = await fetch(`${h.base}/api/stream`);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    h.events.emit({ type: 'run-started', runId: 7, pipeline: 'products-push', mode: 'sync', lane: 'products-push', at: new Date().toISOString() });
    while (!text.includes('event: sync')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('"type":"run-started"');
    expect(text).toContain('"runId":7');
    // Closing the app ends the stream instead of hanging on it.
    await h.app.close();
    let ended = false;
    while (!ended) ended = (await reader.read()).done;
    expect(ended).toBe(true);
  });

  it('announces runs started by another process on the same state file', async () => {
    const h = await start();
    const res = await fetch(`${h.base}/api/stream`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // Give the watcher a first look at the state before the other process changes it.
    await new Promise((r) => setTimeout(r, 2500));
    const other = await openState(join(dir, 'state.sqlite'));
    await other.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    await other.close();
    while (!text.includes('state-changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('"type":"state-changed"');
    await reader.cancel();
  });
});
