import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pathTemplate } from '../../src/erp/http/sink.js';
import { writtenLike } from '../../src/erp/sql/lookback.js';
import { createSink, createSource, type HttpSourceConfigInput } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';

/** 250 items; every fifth shares updated=100, and keys are shuffled within a cursor value. */
const ITEMS = Array.from({ length: 250 }, (_, i) => ({ id: `K${String((i * 7919) % 250).padStart(3, '0')}`, updated: i % 5 === 0 ? 100 : i, name: `item ${i}` }))
  .sort((a, b) => a.updated - b.updated);
const TOKEN = 'Bearer s3cr3t-token';

let server: Server;
let baseUrl: string;
let posts: { path: string; key: string | undefined; body: unknown }[] = [];
let failuresLeft = 0;
let failStatus = 503;
/** Records of /api/stamped (timestamp cursor `changed`, sorted ascending) and the `since` values it was asked for. */
let stamped: { id: string; changed: string }[] = [];
let sinces: (string | null)[] = [];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
  const url = new URL(req.url ?? '/', baseUrl);
  if (req.headers.authorization !== TOKEN) return send(res, 401, { error: 'bad token' });
  if (req.method === 'GET' && url.pathname === '/api/items') {
    const since = url.searchParams.get('since');
    const list = since === null ? ITEMS : ITEMS.filter((i) => i.updated >= Number(since));
    const style = url.searchParams.get('style');
    if (style === 'offset') {
      const offset = Number(url.searchParams.get('offset'));
      return send(res, 200, { data: list.slice(offset, offset + Number(url.searchParams.get('limit'))) });
    }
    if (style === 'page') {
      const size = Number(url.searchParams.get('per_page'));
      const page = Number(url.searchParams.get('page'));
      return send(res, 200, { data: list.slice((page - 1) * size, page * size) });
    }
    const at = Number(url.searchParams.get('cursor') ?? url.searchParams.get('at') ?? 0);
    const next = at + 40 < list.length ? at + 40 : null;
    if (style === 'cursor') return send(res, 200, { data: list.slice(at, at + 40), next_cursor: next === null ? null : String(next) });
    const nextUrl = new URL(url);
    nextUrl.searchParams.set('at', String(next));
    if (style === 'link-body') return send(res, 200, { data: list.slice(at, at + 40), links: { next: next === null ? null : `${nextUrl.pathname}${nextUrl.search}` } });
    return send(res, 200, list.slice(at, at + 40), next === null ? {} : { link: `<${nextUrl}>; rel="next"` });
  }
  if (req.method === 'GET' && url.pathname === '/api/stamped') {
    // An API that compares `since` as a point in time, inclusive, whatever offset it is written in.
    const since = url.searchParams.get('since');
    sinces.push(since);
    return send(res, 200, since === null ? stamped : stamped.filter((r) => Date.parse(r.changed) >= Date.parse(since)));
  }
  if (req.method === 'GET' && url.pathname === '/api/unsorted') return send(res, 200, [{ id: 'a', updated: 2 }, { id: 'b', updated: 1 }]);
  if (req.method === 'GET' && url.pathname === '/api/gappy') return send(res, 200, [{ id: 'a', updated: 1 }, 'junk', { updated: 2 }, { id: 'd', updated: null }, { id: 'e', updated: 5 }]);
  if (url.pathname.startsWith('/api/orders')) {
    if (failuresLeft > 0) {
      failuresLeft--;
      return send(res, failStatus, { error: 'busy' }, failStatus === 429 ? { 'retry-after': '0' } : {});
    }
    if (url.pathname === '/api/orders/bad') return send(res, 422, { error: 'customer missing' });
    posts.push({ path: `${req.method} ${url.pathname}`, key: req.headers['idempotency-key'] as string | undefined, body: JSON.parse(raw) as unknown });
    return send(res, 201, { ok: true });
  }
  send(res, 404, { error: 'not found' });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => { posts = []; failuresLeft = 0; });

const conn = (extra: Record<string, unknown> = {}) => ({ kind: 'http' as const, baseUrl, auth: { header: 'Authorization', value: TOKEN }, retries: 3, backoffMs: 1, ...extra });
const ctx = { logger: silentLogger, baseDir: process.cwd() };
const source = (cfg: Partial<HttpSourceConfigInput>, extra?: Record<string, unknown>) =>
  createSource(conn(extra), { path: 'items', key: 'id', cursor: 'updated', sinceParam: 'since', recordsPath: 'data', ...cfg }, ctx);

function expectKeysetOrder(items: { key: string; position: { value: unknown; key: string | null } }[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1] as (typeof items)[number];
    const b = items[i] as (typeof items)[number];
    expect((a.position.value as number) < (b.position.value as number) || (a.position.value === b.position.value && a.key < b.key)).toBe(true);
  }
}

describe('HTTP source', () => {
  it.each([
    ['offset', { paging: { style: 'offset' as const }, query: { style: 'offset' } }],
    ['page', { paging: { style: 'page' as const }, query: { style: 'page' } }],
    ['cursor', { paging: { style: 'cursor' as const }, query: { style: 'cursor' } }],
    ['next link in the body', { paging: { style: 'next-link' as const, nextPath: 'links.next' }, query: { style: 'link-body' } }],
    ['Link header', { paging: { style: 'next-link' as const }, query: { style: 'link-header' }, recordsPath: undefined }],
  ])('reads every record exactly once in (cursor, key) order with %s paging', async (_name, cfg) => {
    const items = await collect(await source(cfg), { pageSize: 30 });
    expect(items).toHaveLength(250);
    expect(new Set(items.map((i) => i.key)).size).toBe(250);
    expectKeysetOrder(items);
  });

  it('resumes strictly after a position inside a group of records sharing a cursor value', async () => {
    const cfg = { paging: { style: 'offset' as const }, query: { style: 'offset' } };
    const first = await collect(await source(cfg), { pageSize: 30 }, 120);
    const rest = await collect(await source(cfg), { pageSize: 30, after: first.at(-1)?.position });
    expect(first.at(-1)?.position.value).toBe(100);
    const all = [...first, ...rest].map((i) => i.key);
    expect(all).toHaveLength(250);
    expect(new Set(all).size).toBe(250);
  });

  it('stops reading at the inclusive until bound of a backfill', async () => {
    const items = await collect(await source({ paging: { style: 'offset' }, query: { style: 'offset' } }), { pageSize: 30, after: { value: 98, key: 'K000' }, until: 100 });
    expect(items.map((i) => i.position.value)).toEqual([98, 99, ...Array(50).fill(100)]);
  });

  it('reads everything in the API order when no cursor is configured', async () => {
    const items = await collect(await source({ cursor: undefined, paging: { style: 'cursor' }, query: { style: 'cursor' } }), { after: { value: 5, key: 'K999' } });
    expect(items).toHaveLength(250);
    expect(items[0]?.position).toEqual({ value: null, key: ITEMS[0]?.id });
  });

  describe('lookback', () => {
    const stampedSource = (lookback?: string | number) => source({ path: 'stamped', recordsPath: undefined, cursor: 'changed', ...(lookback === undefined ? {} : { lookback }) });
    const keys = (items: { key: string }[]) => items.map((i) => i.key);

    it('yields a record stamped before the stored cursor but within the window when the cursor is the incremental one, and asks the API from the window start', async () => {
      // L-1 was committed after the read that moved the cursor to L-3 (a long transaction, a clock 90 s behind).
      stamped = [
        { id: 'OLD', changed: '2026-11-26T11:50:00Z' },
        { id: 'L-1', changed: '2026-11-26T11:59:30Z' },
        { id: 'L-2', changed: '2026-11-26T12:00:30Z' },
        { id: 'L-3', changed: '2026-11-26T12:01:00Z' },
        { id: 'L-4', changed: '2026-11-26T12:03:00Z' },
      ];
      const after = { value: '2026-11-26T12:01:00Z', key: 'L-3' };
      sinces = [];
      const back = await collect(await stampedSource('5m'), { after, lookBack: true });
      expect(keys(back)).toEqual(['L-1', 'L-2', 'L-3', 'L-4']);
      // The window start as the API writes its values (no milliseconds, same zone).
      expect(sinces).toEqual(['2026-11-26T11:56:00Z']);

      // Not the incremental cursor (a backfill, an explicit start): strictly after it, as before.
      sinces = [];
      expect(keys(await collect(await stampedSource('5m'), { after }))).toEqual(['L-4']);
      expect(sinces).toEqual(['2026-11-26T12:01:00Z']);
      // lookback 0 turns it off.
      expect(keys(await collect(await stampedSource(0), { after, lookBack: true }))).toEqual(['L-4']);
    });

    it('starts the window in the zone the API writes, so records after a cursor written with a negative offset are not dropped', async () => {
      stamped = [
        { id: 'L-1', changed: '2026-11-26T06:59:30-05:00' },
        { id: 'L-3', changed: '2026-11-26T07:01:00-05:00' },
        { id: 'NEW', changed: '2026-11-26T07:30:00-05:00' },
      ];
      sinces = [];
      // Written in UTC the window start (…T11:56:00.000Z) would sort after every one of these values as text.
      const items = await collect(await stampedSource('5m'), { after: { value: '2026-11-26T07:01:00-05:00', key: 'L-3' }, lookBack: true });
      expect(keys(items)).toEqual(['L-1', 'L-3', 'NEW']);
      expect(sinces).toEqual(['2026-11-26T06:56:00-05:00']);
    });

    it('keeps the fraction digits the API writes and leaves number cursors alone', async () => {
      expect(writtenLike('2026-11-26T11:56:00.123Z', '2026-11-26T12:01:00.123456+01:00')).toBe('2026-11-26T12:56:00.123000+01:00');
      expect(writtenLike('2026-11-26T11:56:00.500Z', '2026-11-26T12:01:00Z')).toBe('2026-11-26T11:56:00Z');
      const items = await collect(await source({ paging: { style: 'offset' }, query: { style: 'offset' }, lookback: '5m' }), { pageSize: 30, after: { value: 248, key: 'K999' }, lookBack: true });
      expect(items.map((i) => i.position.value)).toEqual([249]);
    });
  });

  it('reports an API that does not sort by the cursor instead of skipping records', async () => {
    const s = await source({ path: 'unsorted', recordsPath: undefined });
    await expect(collect(s, {})).rejects.toMatchObject({ code: 'CONNECTOR_ORDER_VIOLATION' });
  });

  it('refuses a record that is not an object or lacks its key or cursor as an item of its own, and reads the records after it', async () => {
    const all = await collect(await source({ path: 'gappy', recordsPath: undefined }), {});
    // Records sharing a cursor value are held until the value changes; refused ones go out at once.
    expect(all.filter((i) => !i.refused).map((i) => i.key)).toEqual(['a', 'e']);
    expect(all.filter((i) => i.refused).map((i) => [i.key, i.refused?.code])).toEqual([
      ['gappy#record 2', 'SOURCE_KEY_MISSING'],
      ['gappy#record 3', 'SOURCE_KEY_MISSING'],
      ['d', 'SOURCE_BAD_ROW'],
    ]);
    expect(all.find((i) => i.key === 'gappy#record 2')).toMatchObject({ origin: { element: 2, raw: '"junk"' } });
  });

  it('reports a refused token as CONNECTOR_AUTH_FAILED without echoing the token', async () => {
    const s = await source({}, { auth: { header: 'Authorization', value: 'Bearer wrong-token-value' } });
    const err = await collect(s, {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_AUTH_FAILED' });
    expect((err as Error).message).not.toContain('wrong-token-value');
  });

  it('reports an unreachable API as CONNECTOR_UNREACHABLE after its retries', async () => {
    const s = await createSource({ kind: 'http', baseUrl: 'http://127.0.0.1:1/', retries: 1, backoffMs: 1 }, { path: 'x', key: 'id' }, ctx);
    await expect(collect(s, {})).rejects.toMatchObject({ code: 'CONNECTOR_UNREACHABLE' });
  });
});

describe('HTTP sink', () => {
  it('posts a batch with the batch id as Idempotency-Key, retrying through 503s', async () => {
    failuresLeft = 2;
    failStatus = 503;
    const sink = await createSink(conn(), { path: 'orders', wrapIn: 'orders' }, ctx);
    await sink.write({ id: 'batch-42', records: [{ no: 1 }, { no: 2 }] });
    expect(posts).toEqual([{ path: 'POST /api/orders', key: 'batch-42', body: { orders: [{ no: 1 }, { no: 2 }] } }]);
  });

  it('puts one record per request with URL-encoded keys and honours 429 Retry-After', async () => {
    failuresLeft = 1;
    failStatus = 429;
    const sink = await createSink(conn(), { path: 'orders/{record.no}', method: 'PUT', perRecord: true }, ctx);
    await sink.write({ id: 'b7', records: [{ no: 'A/1' }, { no: 'B 2' }] });
    expect(posts.map((p) => [p.path, p.key])).toEqual([['PUT /api/orders/A%2F1', 'b7:0'], ['PUT /api/orders/B%202', 'b7:1']]);
  });

  it('rejects with CONNECTOR_HTTP_ERROR when the API refuses the batch, without retrying', async () => {
    const sink = await createSink(conn(), { path: 'orders/bad' }, ctx);
    const err = await sink.write({ id: 'b', records: [{}] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_HTTP_ERROR', details: { status: 422 } });
    expect((err as Error).message).toContain('customer missing');
  });

  it('rejects once the retries are spent on a failing server', async () => {
    failuresLeft = 10;
    failStatus = 500;
    const sink = await createSink(conn({ retries: 2 }), { path: 'orders' }, ctx);
    await expect(sink.write({ id: 'b', records: [{}] })).rejects.toMatchObject({ code: 'CONNECTOR_HTTP_ERROR' });
    expect(failuresLeft).toBe(7);
    expect(posts).toEqual([]);
  });
});

describe('a per-record path template', () => {
  it('fills nested fields and several placeholders from each record, URL-encoded, and leaves a missing value empty', () => {
    const pathOf = pathTemplate('customers/{record.kunde.nr}/orders/{record.no}.json');
    expect(pathOf({ kunde: { nr: 'K 1' }, no: 'A/1' })).toBe('customers/K%201/orders/A%2F1.json');
    expect(pathOf({ no: 7 })).toBe('customers//orders/7.json');
    expect(pathTemplate('orders')({ no: 1 })).toBe('orders');
  });
});

describe('HTTP connector credentials stay with the configured origin', () => {
  let foreign: Server;
  let foreignUrl: string;
  let seen: { path: string; authorization?: string; apiKey?: string }[] = [];
  let home: Server;
  let homeUrl: string;

  beforeAll(async () => {
    // Another origin (another port): whatever reaches it is recorded.
    foreign = createServer((req, res) => {
      seen.push({ path: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), ...(req.headers['x-api-key'] ? { apiKey: String(req.headers['x-api-key']) } : {}) });
      send(res, 200, []);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
    // The ERP API: redirects one path abroad, one within itself, and pages into another origin.
    home = createServer((req, res) => {
      if (req.url?.startsWith('/api/away')) return send(res, 302, {}, { location: `${foreignUrl}/steal` });
      if (req.url?.startsWith('/api/moved')) return send(res, 301, {}, { location: '/api/here' });
      if (req.url?.startsWith('/api/here')) return send(res, 200, [{ id: 'a', updated: 1 }]);
      if (req.url?.startsWith('/api/paged')) return send(res, 200, [{ id: 'a', updated: 1 }], { link: `<${foreignUrl}/steal?page=2>; rel="next"` });
      send(res, 404, {});
    });
    await new Promise<void>((resolve) => home.listen(0, '127.0.0.1', resolve));
    homeUrl = `http://127.0.0.1:${(home.address() as AddressInfo).port}/api/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => foreign.close(() => resolve()));
    await new Promise<void>((resolve) => home.close(() => resolve()));
  });
  beforeEach(() => {
    seen = [];
  });

  const hostile = (path: string, paging: HttpSourceConfigInput['paging'] = { style: 'none' }) =>
    createSource({ kind: 'http', baseUrl: homeUrl, auth: { header: 'Authorization', value: TOKEN }, headers: { 'X-Api-Key': 'key-0123456789' }, retries: 0 }, { path, key: 'id', cursor: 'updated', paging }, ctx);

  it('refuses a redirect to another host, sending it neither the auth header nor the configured headers', async () => {
    await expect(collect(await hostile('away'), {})).rejects.toMatchObject({ code: 'CONNECTOR_HTTP_ERROR', message: expect.stringMatching(/redirected \(302\) to http:\/\/127\.0\.0\.1:\d+, outside the connection's origin/) });
    expect(seen).toEqual([]);
  });

  it('follows a redirect within its own origin', async () => {
    expect((await collect(await hostile('moved'), {})).map((i) => i.key)).toEqual(['a']);
  });

  it('refuses a next-page link into another origin before requesting it', async () => {
    await expect(collect(await hostile('paged', { style: 'next-link' }), {})).rejects.toMatchObject({ code: 'CONNECTOR_HTTP_ERROR', message: expect.stringMatching(/next-page link .* points at http:\/\/127\.0\.0\.1:\d+, another origin: not followed/) });
    expect(seen).toEqual([]);
  });
});
