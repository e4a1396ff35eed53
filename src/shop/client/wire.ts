/**
 * One HTTP exchange with the shop on node:http(s): the request goes out on Node's keep-alive
 * agents, the answer is read whole (decompressed, counted against a size bound) and parsed once.
 *
 * Why not axios: measured on the push of 20,000 products in 200 batches (test/bench/support/
 * client-alone.ts), axios's per-request machinery (config merge, header objects, transforms,
 * interceptor chain) cost more CPU than the HTTP itself. The rules that matter here are kept as
 * axios had them: no redirect is followed (a 3xx is an answer like any other), query parameters
 * are encoded alike, a body is JSON parsed when it parses and kept as text otherwise, gzip and
 * brotli answers are decompressed and the size bound counts the decompressed bytes.
 */
// The modules, not their functions: read at each call, so whatever wraps `http.request` (nock in the tests) sees the request.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';

/** One request as the transport hands it over. */
export interface WireRequest {
  readonly method: string;
  /** Absolute URL (see `joinUrl`), without the query parameters. */
  readonly url: string;
  readonly params?: Readonly<Record<string, string | number>>;
  readonly headers: Readonly<Record<string, string>>;
  /** The body, already serialised. */
  readonly body?: string;
  /** Keep the answer as bytes (a Buffer) instead of parsing it. */
  readonly binary?: boolean;
  /** Refuse an answer longer than this many bytes (after decompression). */
  readonly maxBytes: number;
  /** Ends the exchange: the request and the answer's body alike. */
  readonly signal: AbortSignal;
}

/** An answer of any status; headers with lower-case names, repeated ones joined by ", ". */
export interface WireAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, the text when it does not parse (or is empty), or a Buffer when `binary`. */
  readonly data: unknown;
}

/** Sends one request; resolves with the answer, rejects with an error carrying a `code`. */
export type Exchange = (request: WireRequest) => Promise<WireAnswer>;

/** A failure of the exchange itself; network failures keep Node's own error (and its code). */
export class WireError extends Error {
  readonly code: string;
  /** The answer passed `maxBytes` and was not read. */
  readonly tooLarge: boolean;

  constructor(message: string, code: string, tooLarge = false) {
    super(message);
    this.name = 'WireError';
    this.code = code;
    this.tooLarge = tooLarge;
  }
}

/** The encodings the exchange can read, and so asks for. */
const ACCEPT_ENCODING = 'gzip, br';

/** `path` under `base` (one slash between), or `path` itself when it is an absolute URL: axios's rule. */
export function joinUrl(base: string, path: string): string {
  if (/^([a-z][a-z\d+\-.]*:)?\/\//i.test(path)) return path;
  return path ? `${base.replace(/\/?\/$/, '')}/${path.replace(/^\/+/, '')}` : base;
}

/** Query parameter encoding as axios wrote it (so shops see the same URLs): `:`, `$`, `,` plain, space as `+`. */
function encode(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',').replace(/%20/g, '+');
}

/** `path` with the parameters appended (undefined and null ones left out, as axios did). */
export function withParams(path: string, params: Readonly<Record<string, unknown>> | undefined): string {
  if (!params) return path;
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    pairs.push(`${encode(key.trim())}=${encode(String(value))}`);
  }
  if (pairs.length === 0) return path;
  const hash = path.indexOf('#');
  const bare = hash === -1 ? path : path.slice(0, hash);
  return `${bare}${bare.includes('?') ? '&' : '?'}${pairs.join('&')}`;
}

/**
 * One deadline over a whole request: connecting, the headers and the body. axios's own `timeout`
 * was not one: once the headers are in, it only fired when the socket was idle that long, so a shop
 * sending a byte a second held a request (and its run) for as long as it liked. The deadline aborts
 * through the exchange's `signal`, which tears down the request and the body stream alike; the caller's own
 * signal still stops the attempt (told apart by `expired`).
 */
export class Deadline {
  readonly #ms: number;
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #outer: AbortSignal | undefined;
  #expired = false;
  readonly #onOuter = () => this.#controller.abort(this.#outer?.reason);

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** Start the clock; the returned signal aborts at the deadline or when `outer` aborts. */
  start(outer?: AbortSignal): AbortSignal {
    this.#outer = outer;
    if (outer?.aborted) this.#controller.abort(outer.reason);
    else outer?.addEventListener('abort', this.#onOuter, { once: true });
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new Error(`deadline of ${this.#ms} ms passed`));
    }, this.#ms);
    return this.#controller.signal;
  }

  /** Whether the deadline (not the caller) ended the request. */
  get expired(): boolean {
    return this.#expired;
  }

  /** The request is over: stop the clock and let go of the caller's signal. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#outer?.removeEventListener('abort', this.#onOuter);
  }
}

/** Whether the exchange gave up on an answer for passing its size bound (axios's `maxContentLength` in proxy mode). */
export function tooLarge(err: unknown): boolean {
  if (err instanceof WireError) return err.tooLarge;
  const e = err as { code?: unknown; message?: unknown };
  return e.code === 'ERR_BAD_RESPONSE' && typeof e.message === 'string' && e.message.startsWith('maxContentLength size of');
}

/** Send one request with node:http(s) on the global keep-alive agents. */
export const exchange: Exchange = (req) =>
  new Promise<WireAnswer>((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      reject(new WireError(`Invalid URL ${req.url}`, 'ERR_INVALID_URL'));
      return;
    }
    const send = url.protocol === 'https:' ? https.request : url.protocol === 'http:' ? http.request : undefined;
    if (!send) {
      reject(new WireError(`Unsupported protocol ${url.protocol}`, 'ERR_BAD_REQUEST'));
      return;
    }
    if (req.signal.aborted) {
      reject(canceled());
      return;
    }
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { ...req.headers, 'User-Agent': 'shopsync', 'Accept-Encoding': ACCEPT_ENCODING };
    if (body) headers['Content-Length'] = String(body.length);
    let settled = false;
    let streams: Readable[] = [];
    const finish = (err: Error | undefined, answer?: WireAnswer) => {
      if (settled) return;
      settled = true;
      req.signal.removeEventListener('abort', onAbort);
      if (err) {
        for (const s of streams) s.destroy();
        client.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const onAbort = () => finish(canceled());
    const client = send({
      protocol: url.protocol,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
      path: withParams(url.pathname + url.search, req.params),
      method: req.method,
      headers,
      ...(url.username || url.password ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` } : {}),
    });
    req.signal.addEventListener('abort', onAbort, { once: true });
    client.on('error', (err) => finish(err));
    client.on('response', (res) => {
      const stream = decoded(res, req.method);
      streams = stream === res ? [res] : [res, stream];
      const declared = Number(res.headers['content-length']);
      if (stream === res && declared > req.maxBytes) return finish(oversize(req.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) finish(oversize(req.maxBytes));
        else chunks.push(chunk);
      });
      for (const s of streams) s.on('error', (err) => finish(err));
      // A connection closed before the body's end is a lost answer, not a short one.
      res.on('close', () => {
        if (!res.complete) finish(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks, size);
        finish(undefined, { status: res.statusCode ?? 0, headers: headersOf(res), data: req.binary ? bytes : textOrJson(bytes) });
      });
    });
    client.end(body);
  });

/** The body as sent, or decompressed when the shop compressed it. */
function decoded(res: IncomingMessage, method: string): Readable {
  if (method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304 || res.headers['content-length'] === '0') return res;
  switch (res.headers['content-encoding']?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

/** JSON when the text parses, else the text itself (an HTML error page stays readable in the error). */
function textOrJson(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function canceled(): WireError {
  return new WireError('canceled', 'ERR_CANCELED');
}

function oversize(max: number): WireError {
  return new WireError(`answer larger than ${max} bytes`, 'ERR_BAD_RESPONSE', true);
}
