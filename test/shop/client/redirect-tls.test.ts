/**
 * The shop client keeps its credentials with the configured shop (issue 29, "sound" list): it
 * follows no redirect, so a shop (or whatever answers in its place) that sends it to another host
 * gets no request there and no token goes along; and it refuses a certificate nobody vouches for
 * before a byte of the request is sent. Real sockets on 127.0.0.1 and 127.0.0.2, no nock.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createShopClient, type ShopClient, type ShopClientOptions } from '../../../src/shop/index.js';
import { collect, page, writeAnswer } from './helpers.js';

const TOKEN = 'shop-token-9c41e7a2d0';
const CLIENT_SECRET = 'oauth-secret-5b82f1c3';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A small HTTP server that records every request and answers with `route`. */
async function listen(host: string, route: (req: IncomingMessage, res: ServerResponse) => void, server: Server = createHttpServer()): Promise<{ origin: string; seen: Seen[]; connections: () => number; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let connections = 0;
  server.on('connection', () => connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const scheme = 'setSecureContext' in server ? 'https' : 'http';
  return {
    origin: `${scheme}://${host}:${port}`,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function client(baseUrl: string, extra: Partial<ShopClientOptions> = {}): ShopClient {
  const c = createShopClient({ baseUrl, auth: { kind: 'token', token: TOKEN }, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 }, ...extra });
  closers.push(() => c.close());
  return c;
}

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure, got an answer');
}

describe('a shop that redirects to another host', () => {
  /** The other host (127.0.0.2: another address, as another machine would be) answers as a shop would. */
  async function setUp(status: number) {
    const elsewhere = await listen('127.0.0.2', (req, res) => {
      if (req.url?.startsWith('/api/oauth/token')) return json(res, 200, { access_token: 'stolen', token_type: 'Bearer', expires_in: 3600 });
      if (req.method === 'GET') return json(res, 200, page('products', [{ products_id: 1, products_model: 'FOREIGN' }], 1, 100, 0));
      return json(res, 200, writeAnswer('products', 'create', { data: [{ index: 0, products_id: 1 }] }));
    });
    closers.push(() => elsewhere.close());
    const shop = await listen('127.0.0.1', (req, res) => res.writeHead(status, { location: `${elsewhere.origin}${req.url ?? '/'}` }).end());
    closers.push(() => shop.close());
    return { shop, elsewhere };
  }

  it.each([301, 302, 303, 307, 308])('does not follow a %i on a read or a write: the other host is never asked and no token reaches it', async (status) => {
    const { shop, elsewhere } = await setUp(status);
    const c = client(`${shop.origin}/api`);
    const read = await failure(collect(c.exportAll('products')));
    expect(read.message).not.toContain(TOKEN);
    const write = await c.create('products', [{ products_model: 'A' }]).then(
      (result) => result.outcomes[0]?.error,
      (err: unknown) => err as Error,
    );
    expect(write).toBeDefined();
    expect(JSON.stringify(write)).not.toContain(TOKEN);
    // The shop was asked (with its token); the other host saw no connection at all.
    expect(shop.seen.length).toBeGreaterThan(0);
    expect(shop.seen.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(elsewhere.seen).toEqual([]);
    expect(elsewhere.connections()).toBe(0);
  });

  it('does not follow a redirect of the OAuth token endpoint: the client secret stays home', async () => {
    const { shop, elsewhere } = await setUp(307);
    const c = client(`${shop.origin}/api`, { auth: { kind: 'oauth', clientId: 'shopsync', clientSecret: CLIENT_SECRET } });
    const err = await failure(collect(c.exportAll('products')));
    expect(err.message).not.toContain(CLIENT_SECRET);
    expect(shop.seen.map((r) => `${r.method} ${r.url}`)).toContain('POST /api/oauth/token');
    expect(shop.seen.some((r) => r.body.includes(CLIENT_SECRET))).toBe(true);
    expect(elsewhere.seen).toEqual([]);
    expect(elsewhere.connections()).toBe(0);
  });
});

describe('a shop with a certificate nobody vouches for', () => {
  // A self-signed certificate for localhost and 127.0.0.1, valid until 2126 (also used by the ERP TLS tests).
  const TLS_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'tls');
  const tls = { key: readFileSync(join(TLS_DIR, 'server.key')), cert: readFileSync(join(TLS_DIR, 'server.crt')) };

  it('refuses the connection before the request (and the token) is sent, for reads and writes', async () => {
    const server = createHttpsServer(tls);
    let sessions = 0;
    server.on('secureConnection', () => sessions++);
    const shop = await listen('127.0.0.1', (_req, res) => json(res, 200, page('products', [], 0, 100, 0)), server);
    closers.push(() => shop.close());
    const c = client(`${shop.origin}/api`);
    const read = await failure(collect(c.exportAll('products')));
    expect(read.message).toMatch(/self[- ]signed certificate|SELF_SIGNED/i);
    expect(read.message).not.toContain(TOKEN);
    const write = await c.create('products', [{ products_model: 'A' }]).then(
      (result) => result.outcomes[0]?.error,
      (err: unknown) => err as Error,
    );
    expect(write?.message).toMatch(/self[- ]signed certificate|SELF_SIGNED/i);
    expect(write?.message).not.toContain(TOKEN);
    // Nothing left before the handshake failed: the write is known not to have happened, never "outcome unknown".
    expect((write as { code?: string } | undefined)?.code).not.toBe('OUTCOME_UNKNOWN');
    // TCP connections were made, but no TLS session came up, so no HTTP request was read.
    expect(shop.connections()).toBeGreaterThan(0);
    expect(sessions).toBe(0);
    expect(shop.seen).toEqual([]);
  });
});
