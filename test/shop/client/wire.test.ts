/**
 * The HTTP exchange under the transport (wire.ts, and axios when the environment names a proxy):
 * both give the same answers for the same shop — JSON parsed once, text kept when it does not
 * parse, bytes for downloads, compressed bodies read and counted after decompression, no redirect
 * followed, a body cut short a failure — and the query strings are the ones axios wrote. Real
 * sockets on 127.0.0.1, no nock.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttp, proxyConfigured, viaAxios } from '../../../src/shop/client/http.js';
import { exchange, joinUrl, tooLarge, withParams, type Exchange, type WireRequest } from '../../../src/shop/client/wire.js';

const big = JSON.stringify({ data: 'x'.repeat(200_000) });
const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {
  '/json': (req, res, body) => res.writeHead(200, { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.url} ${body}` }).end(JSON.stringify({ ok: true, echo: body })),
  '/bom': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`\ufeff${JSON.stringify({ ok: 1 })}`),
  '/html': (_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
  '/empty': (_req, res) => res.writeHead(204).end(),
  '/bytes': (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2, 255])),
  '/gzip': (req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-asked': String(req.headers['accept-encoding']) }).end(gzipSync(big)),
  '/br': (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' }).end(brotliCompressSync(big)),
  '/redirect': (_req, res) => res.writeHead(302, { location: '/json' }).end(),
  '/cookies': (_req, res) => res.writeHead(200, { 'set-cookie': ['a=1', 'b=2'], 'content-type': 'application/json' }).end('{}'),
  '/cut': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"data":[');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

let origin = '';
let connections = 0;
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => (routes[(req.url ?? '').split('?')[0]!] ?? ((_q, r) => r.writeHead(404).end()))(req, res, body));
});
server.on('connection', () => connections++);
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const ask = (via: Exchange, path: string, extra: Partial<WireRequest> = {}) =>
  via({ method: 'GET', url: `${origin}${path}`, headers: { Accept: 'application/json' }, maxBytes: 1024 * 1024, signal: new AbortController().signal, ...extra });

describe.each([
  ['node:http', exchange],
  ['axios (proxy mode)', viaAxios()],
])('the exchange on %s', (_name, via) => {
  it('sends the body as given and parses a JSON answer once', async () => {
    const answer = await ask(via, '/json', { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, params: { limit: 2, q: 'a b:c,d$' } });
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ ok: true, echo: '{"a":1}' });
    expect(answer.headers['x-seen']).toBe('POST /json?limit=2&q=a+b:c,d$ {"a":1}');
  });

  it('keeps text that does not parse, and an empty body as empty text', async () => {
    expect(await ask(via, '/html')).toMatchObject({ status: 502, data: '<h1>Bad gateway</h1>' });
    expect(await ask(via, '/empty')).toMatchObject({ status: 204, data: '' });
    expect((await ask(via, '/bom')).data).toEqual({ ok: 1 });
  });

  it('gives a download as bytes', async () => {
    const answer = await ask(via, '/bytes', { binary: true });
    expect(Buffer.isBuffer(answer.data)).toBe(true);
    expect([...(answer.data as Buffer)]).toEqual([0, 1, 2, 255]);
  });

  it('reads gzip and brotli answers, and counts the decompressed bytes against the bound', async () => {
    const gz = await ask(via, '/gzip');
    expect(gz.data).toEqual(JSON.parse(big));
    expect(gz.headers['x-asked']).toMatch(/gzip/);
    expect((await ask(via, '/br')).data).toEqual(JSON.parse(big));
    // 200 kB unpacked from a few hundred bytes on the wire: the bound reads what the shop really sent.
    const err = await ask(via, '/gzip', { maxBytes: 100_000 }).catch((e: unknown) => e);
    expect(tooLarge(err)).toBe(true);
  });

  it('follows no redirect: the 3xx is the answer', async () => {
    const answer = await ask(via, '/redirect');
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/json');
  });

  it('joins repeated headers', async () => {
    expect((await ask(via, '/cookies')).headers['set-cookie']).toBe('a=1, b=2');
  });

  it('fails when the connection closes before the body is complete', async () => {
    await expect(ask(via, '/cut')).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|ERR_BAD_RESPONSE/) });
  });

  it('stops at the signal with ERR_CANCELED', async () => {
    const stop = new AbortController();
    const pending = ask(via, '/cut', { signal: stop.signal });
    stop.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ERR_CANCELED' });
  });
});

describe('node:http exchange', () => {
  it('keeps the connection alive between requests', async () => {
    const before = connections;
    for (let i = 0; i < 5; i++) await ask(exchange, '/json');
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('refuses an answer whose declared length is over the bound without reading it', async () => {
    const err = await ask(exchange, '/json', { maxBytes: 5 }).catch((e: unknown) => e);
    expect(tooLarge(err)).toBe(true);
  });
});

describe('URLs as axios built them', () => {
  it.each([
    [{ limit: 100, offset: 0 }],
    [{ date_from: '2026-01-01 00:00:00', q: 'ä/&=?#+%' }],
    [{ ' padded ': 'x', skipped: undefined, gone: null, 'a[b]': "!'()~*" }],
  ])('encodes %j the same', (params) => {
    const path = '/export/json/products';
    const built = axios.getUri({ baseURL: 'http://shop.test/api', url: path, params });
    expect(`http://shop.test${withParams(new URL(joinUrl('http://shop.test/api', path)).pathname, params as Record<string, unknown>)}`).toBe(built);
  });

  it('keeps an absolute URL (the OAuth token URL) and joins a relative one with one slash', () => {
    expect(joinUrl('http://shop.test/api', 'https://auth.test/token')).toBe('https://auth.test/token');
    expect(joinUrl('http://shop.test/api/', '/products')).toBe('http://shop.test/api/products');
  });
});

describe('the exchange a client takes', () => {
  it('is axios when the environment names a proxy, node:http otherwise', () => {
    expect(proxyConfigured({})).toBe(false);
    expect(proxyConfigured({ HTTPS_PROXY: 'http://proxy.local:3128' })).toBe(true);
    expect(proxyConfigured({ http_proxy: 'http://proxy.local:3128' })).toBe(true);
    expect(createHttp({})).toBe(exchange);
    expect(createHttp({ ALL_PROXY: 'http://proxy.local:3128' })).not.toBe(exchange);
  });
});
