/**
 * The dashboard's conflicts (issue 46): a list per pipeline, the conflicts on a record's page, and
 * the take-ERP / keep-shop buttons, POSTs refused without the page's CSRF token like every action.
 */
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerDashboard, type DashboardDeps } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type FieldConflict, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

const XSS = '<img src=x onerror=alert(1)>';
const PIPELINES: DashboardDeps['pipelines'] = [
  { name: 'articles', resource: 'products', direction: 'push', nextRun: () => undefined },
  { name: 'outlet', resource: 'products', direction: 'push', nextRun: () => undefined },
];

const conflict = (pipeline: string, erpKey: string, field: string, extra: Partial<FieldConflict> = {}): FieldConflict => ({
  pipeline,
  shop: 'default',
  resource: 'products',
  erpKey,
  shopId: 11,
  field,
  erpValue: 'ERP text v2',
  sentValue: 'ERP text v1',
  shopValue: `Shop text ${XSS}`,
  status: 'open',
  firstSeenAt: '2026-12-01T10:00:00.000Z',
  lastSeenAt: '2026-12-01T10:00:00.000Z',
  runId: 3,
  ...extra,
});

let dir: string;
let app: FastifyInstance;
let base: string;
let state: StateStore;

beforeEach(async () => {
  dir = tempDir('shopsync-dashboard-conflicts-');
  state = await openState(join(dir, 'state.sqlite'));
  await state.write((tx) => {
    tx.conflicts.put(conflict('articles', 'SKU-1', 'languages.de.products_description'));
    tx.conflicts.put(conflict('articles', 'SKU-2', 'products_price', { erpValue: '21.90', sentValue: '19.90', shopValue: 18.5 }));
    tx.conflicts.put(conflict('outlet', 'SKU-1', 'products_price', { status: 'resolved', resolution: 'shop', resolvedAt: '2026-12-02T10:00:00.000Z' }));
  });
  const deps: DashboardDeps = { state, events: new SyncEvents(), pipelines: PIPELINES, runNow: async () => undefined, retryDeadLetters: async () => undefined, dropDeadLetters: async () => undefined };
  app = Fastify();
  await registerDashboard(app, deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = listeningUrl(app.server);
});
afterEach(async () => {
  await app.close();
  await state.close();
  removeDir(dir);
});

async function getPage(path: string): Promise<{ status: number; body: string; cookie: string; csrf: string }> {
  const res = await fetch(base + path, { redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, body, cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), csrf: /name="csrf-token" content="([^"]+)"/.exec(body)?.[1] ?? '' };
}

function post(form: Record<string, string>, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/actions/conflicts/resolve`, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, redirect: 'manual' });
}

describe('dashboard conflicts', () => {
  it('lists the open conflicts of a pipeline with the three values as text, and the resolved ones on request', async () => {
    const page = await getPage('/conflicts?pipeline=articles');
    expect(page.status).toBe(200);
    expect(page.body).toContain('href="/conflicts" aria-current="page"');
    expect(page.body).toContain('data-open-conflicts="2"');
    expect(page.body).toContain('data-conflict="articles/SKU-1/languages.de.products_description"');
    expect(page.body).toContain('data-conflict="articles/SKU-2/products_price"');
    expect(page.body).not.toContain('data-conflict="outlet/');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('Shop text &lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).toMatch(/data-value="sent">ERP text v1<.*data-value="erp">ERP text v2</s);
    expect(page.body).toContain('name="take" value="erp"');
    expect(page.body).toContain('name="take" value="shop"');
    const all = await getPage('/conflicts?pipeline=outlet&all=1');
    expect(all.body).toContain('data-conflict="outlet/SKU-1/products_price" data-status="resolved"');
    expect(all.body).toContain('shop value kept');
  });

  it('shows a record\'s conflicts on its page, of every pipeline', async () => {
    const page = await getPage('/records?q=SKU-1');
    expect(page.body).toContain('<h2>Conflicts (1 open)</h2>');
    expect(page.body).toContain('data-conflict="articles/SKU-1/languages.de.products_description"');
    expect(page.body).toContain('data-conflict="outlet/SKU-1/products_price"');
    expect(page.body).toContain('name="back" value="record"');
  });

  it('refuses a decision without the page\'s CSRF token', async () => {
    const { cookie } = await getPage('/conflicts');
    const form = { pipeline: 'articles', erpKey: 'SKU-1', take: 'shop' };
    expect((await post({ ...form, _csrf: 'forged' }, { cookie })).status).toBe(403);
    expect((await post(form, { cookie })).status).toBe(403);
    expect(await state.conflicts.list({ pipeline: 'articles', status: 'open' })).toHaveLength(2);
  });

  it('keeps the shop value from a row\'s button and goes back to the list with a message', async () => {
    const { cookie, csrf } = await getPage('/conflicts?pipeline=articles');
    const res = await post({ _csrf: csrf, pipeline: 'articles', erpKey: 'SKU-2', field: 'products_price', take: 'shop', back: 'conflicts' }, { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/conflicts\?pipeline=articles&flash=/);
    const back = await getPage(res.headers.get('location')!);
    expect(back.body).toContain('Kept the shop&#39;s value of products_price of SKU-2');
    expect(await state.conflicts.list({ pipeline: 'articles', erpKey: 'SKU-2' })).toMatchObject([{ status: 'resolved', resolution: 'shop' }]);
    expect((await state.sentValues.get('articles', ['SKU-2'])).get('SKU-2')?.get('products_price')).toEqual({ value: 18.5, erp: '21.90' });
  });

  it('takes the ERP value (the next sync sends it), answering JSON when asked, and says when nothing is open to decide', async () => {
    const { cookie, csrf } = await getPage('/records?q=SKU-1');
    const res = await post({ _csrf: csrf, pipeline: 'articles', erpKey: 'SKU-1', take: 'erp', back: 'record' }, { cookie, accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, decided: [{ field: 'languages.de.products_description', status: 'open', resolution: 'erp' }] });
    expect((await getPage('/conflicts?pipeline=articles')).body).toContain('taking the ERP value: the next sync sends it');
    const none = await post({ _csrf: csrf, pipeline: 'articles', erpKey: 'SKU-9', take: 'erp' }, { cookie, accept: 'application/json' });
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ ok: false, code: 'CONFLICT_NOT_FOUND' });
    expect((await post({ _csrf: csrf, pipeline: 'nope', erpKey: 'SKU-1', take: 'erp' }, { cookie, accept: 'application/json' })).status).toBe(400);
  });

  it('shows the open conflicts on the pipeline\'s overview card', async () => {
    const page = await getPage('/');
    expect(page.body).toContain('data-conflicts="2"');
    expect(page.body).toContain('href="/conflicts?pipeline=articles"');
  });
});
