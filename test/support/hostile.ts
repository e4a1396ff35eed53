/**
 * A hostile HTTP endpoint for tests of the shop client and the ERP connectors (issue 29): a server
 * on 127.0.0.1 (port 0) that misbehaves the way an attacker's or a broken API would. Every route is
 * chosen by the FIRST path segment and ignores the rest, so a route can stand in for a whole API:
 * `baseUrl: ${server.url}/slow-body` makes every request of a client (`/slow-body/products?…`) slow.
 *
 * Routes take parameters from the query or, so that a client's base URL can carry them, from
 * `;name=value` pairs in the first segment: `${server.url}/huge;bytes=1048576;length=none` is a base
 * URL whose every request gets a 1 MiB chunked answer. Routes:
 * - `/slow-body`: 200 with JSON headers at once, then the body one byte every `intervalMs`
 *   (default 1000) — the body is `{"success":true,"data":[]}` padded with spaces to `bytes`
 *   (default 600), so it would be valid JSON if anyone waited the ten minutes.
 * - `/huge`: 200 with a JSON body of `bytes` bytes (default 200 MiB), streamed in 64 KiB chunks
 *   with backpressure and generated on the fly (nothing is buffered in the test process; the
 *   stream stops when the client hangs up). `length=none` leaves Content-Length out (chunked).
 * - `/invalid-json`: 200, `content-type: application/json`, a body that does not parse.
 * - `/redirect`: 302 to the same path on the OTHER host (127.0.0.2, same port) with the first
 *   segment replaced by `to` (default `ok`): `/redirect/api/x` → `http://127.0.0.2:<port>/ok/api/x`.
 * - `/next-link`: 200 with `[{"id":"a","updated":1}]` and `Link: <http://127.0.0.2:<port>/ok/…>;
 *   rel="next"`, a next page on another host.
 * - `/ok`: 200 with `[]` (the foreign host's landing place: it records who came).
 * - anything else: 404; `routes` adds or replaces routes by their first segment.
 *
 * The foreign host is the same server listening on 127.0.0.2 as well (Linux routes all of
 * 127.0.0.0/8 to loopback); `foreignUrl` is undefined where that address cannot be bound, and a
 * redirect there then fails to connect — which still proves it was not followed when nothing arrives.
 * `requests` lists every request either address received, with the address it arrived on, so a
 * test can assert that no credential reached 127.0.0.2.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the server received. */
export interface SeenRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  /** The address it arrived on: `127.0.0.1` (home) or `127.0.0.2` (the foreign host). */
  readonly host: string;
  readonly headers: IncomingHttpHeaders;
  /** When the request arrived (Date.now()). */
  readonly at: number;
}

/** What a route handler gets besides request and response. */
export interface RouteContext {
  /** The request's URL, parsed. */
  readonly url: URL;
  /** The route's parameters: the query, overridden by the first segment's `;name=value` pairs. */
  readonly params: URLSearchParams;
  /** The path after the route's own segment (`/slow-body/api/x?y` → `/api/x`). */
  readonly rest: string;
  readonly port: number;
  /** Base URL of the foreign host (`http://127.0.0.2:<port>`). */
  readonly foreign: string;
}

export type Route = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void;

export interface HostileOptions {
  /** Extra or replaced routes, by first path segment (`{ 'teapot': (req, res) => … }`). */
  readonly routes?: Readonly<Record<string, Route>>;
}

export interface HostileServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.2:<port>`, or undefined where that address cannot be bound. */
  readonly foreignUrl: string | undefined;
  readonly port: number;
  /** Every request received so far, in arrival order (both addresses). */
  readonly requests: SeenRequest[];
  /** Stop listening and drop open connections (slow and huge bodies included). */
  close(): Promise<void>;
}

const FOREIGN_HOST = '127.0.0.2';
const CHUNK = 64 * 1024;

const number = (params: URLSearchParams, name: string, fallback: number): number => {
  const raw = params.get(name);
  return raw === null || !Number.isFinite(Number(raw)) ? fallback : Number(raw);
};

/** `{"success":true,"data":[]}` padded with spaces to `bytes`. */
function paddedJson(bytes: number): Buffer {
  const head = Buffer.from('{"success":true,"data":[]}');
  return bytes <= head.length ? head : Buffer.concat([head, Buffer.alloc(bytes - head.length, ' ')]);
}

const slowBody: Route = (req, res, { params }) => {
  const body = paddedJson(number(params, 'bytes', 600));
  const intervalMs = number(params, 'intervalMs', 1000);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.flushHeaders();
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= body.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(at, at + 1));
    at++;
  }, intervalMs);
  res.on('close', () => clearInterval(timer));
};

const huge: Route = (req, res, { params }) => {
  const total = number(params, 'bytes', 200 * 1024 * 1024);
  const head = Buffer.from('{"success":true,"data":[],"pad":"');
  const tail = Buffer.from('"}');
  const fill = Buffer.alloc(CHUNK, 'x');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (params.get('length') !== 'none') headers['content-length'] = String(total);
  res.writeHead(200, headers);
  let left = total - head.length - tail.length;
  res.write(head);
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, CHUNK);
      left -= n;
      if (!res.write(n === CHUNK ? fill : fill.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end(tail);
  };
  pump();
};

const DEFAULT_ROUTES: Readonly<Record<string, Route>> = {
  'slow-body': slowBody,
  huge,
  'invalid-json': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"success": tru');
  },
  redirect: (req, res, { params, rest, foreign }) => {
    res.writeHead(302, { location: `${foreign}/${params.get('to') ?? 'ok'}${rest}` });
    res.end();
  },
  'next-link': (req, res, { rest, foreign }) => {
    res.writeHead(200, { 'content-type': 'application/json', link: `<${foreign}/ok${rest}>; rel="next"` });
    res.end(JSON.stringify([{ id: 'a', updated: 1 }]));
  },
  ok: (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  },
};

/** Start the hostile server on 127.0.0.1 (and 127.0.0.2 where possible), port chosen by the system. */
export async function startHostileServer(options: HostileOptions = {}): Promise<HostileServer> {
  const routes = { ...DEFAULT_ROUTES, ...options.routes };
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let port = 0;
  const handle = (host: string) => (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', host, headers: req.headers, at: Date.now() });
    // Drain whatever the client sends; the routes do not look at bodies.
    req.resume();
    const url = new URL(req.url ?? '/', `http://${host}:${port}`);
    const [, first = '', ...others] = url.pathname.split('/');
    const [name = '', ...pairs] = decodeURIComponent(first).split(';');
    const params = new URLSearchParams(url.search);
    for (const pair of pairs) {
      const cut = pair.indexOf('=');
      if (cut > 0) params.set(pair.slice(0, cut), pair.slice(cut + 1));
    }
    const route = routes[name];
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `no hostile route /${name}` }));
      return;
    }
    route(req, res, { url, params, rest: others.length > 0 ? `/${others.join('/')}${url.search}` : url.search, port, foreign: `http://${FOREIGN_HOST}:${port}` });
  };
  const listen = (server: Server, host: string, at: number) =>
    new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(at, host, () => resolve(true));
    });
  const track = (server: Server) =>
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  const home = track(createServer(handle('127.0.0.1')));
  await listen(home, '127.0.0.1', 0);
  port = (home.address() as AddressInfo).port;
  const foreign = track(createServer(handle(FOREIGN_HOST)));
  const foreignUp = await listen(foreign, FOREIGN_HOST, port);
  return {
    url: `http://127.0.0.1:${port}`,
    foreignUrl: foreignUp ? `http://${FOREIGN_HOST}:${port}` : undefined,
    port,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      const stop = (server: Server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      await Promise.all([stop(home), ...(foreignUp ? [stop(foreign)] : [])]);
    },
  };
}
