/**
 * JSON over HTTP with retries: network errors, 5xx and 429 are retried with exponential backoff
 * (Retry-After honoured, capped); other 4xx fail at once. Errors are ConnectorErrors without secrets.
 * Credentials never leave the configured origin: a redirect is followed only within the origin of
 * `baseUrl` (fetch's default would carry the auth header and every configured header to any host).
 * Every attempt has one deadline (`timeoutMs`) over connect, headers and body, and a body is read
 * only up to `maxResponseBytes`.
 */
import { AbortedError, ConnectorError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { HttpConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';
import { parseRetryAfter } from '../../util/http.js';
import { scrubSecrets } from '../../log.js';
import { sleep } from '../../util/time.js';
import { formatBytes } from '../../util/bytes.js';

/** One request. */
export interface JsonRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

/** A successful response. */
export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** Redirects followed within the origin before the request counts as failed. */
const MAX_REDIRECTS = 5;

/** Sends requests for one connection (auth and default headers applied). */
export function jsonClient(conn: HttpConnection, logger: Logger, connector: string) {
  const secrets = [conn.auth?.value, ...Object.values(conn.headers)];
  const origin = new URL(conn.baseUrl).origin;

  /** fetch without following redirects blindly: one within the origin is followed, any other refused. */
  async function fetchHome(url: string, init: RequestInit, method: string): Promise<Response> {
    let at = url;
    for (let hop = 0; ; hop++) {
      const res = await fetch(at, { ...init, redirect: 'manual' });
      if (res.status < 300 || res.status >= 400 || res.status === 304) return res;
      const location = res.headers.get('location');
      await res.body?.cancel();
      if (!location) return res;
      const target = new URL(location, at);
      if (target.origin !== origin) {
        throw connectorError(connector, CONNECTOR_CODES.httpError, `${method} ${url} was redirected (${res.status}) to ${target.origin}, outside the connection's origin ${origin}: not followed, so the connection's credentials and headers stay home. Point baseUrl at the API's real address.`, { secrets, details: { status: res.status, location: target.origin } });
      }
      if (hop >= MAX_REDIRECTS) throw connectorError(connector, CONNECTOR_CODES.httpError, `${method} ${url} was redirected more than ${MAX_REDIRECTS} times`, { secrets });
      // 303, and 301/302 after a POST, turn into a GET without body, as browsers and fetch do.
      const toGet = res.status === 303 || ((res.status === 301 || res.status === 302) && init.method !== 'GET');
      init = toGet ? { ...init, method: 'GET', body: undefined } : init;
      at = target.toString();
    }
  }

  /** A body above maxResponseBytes: refused, not retried (asking again brings the same answer). */
  function tooLarge(req: JsonRequest): ConnectorError {
    return connectorError(connector, CONNECTOR_CODES.responseTooLarge, `${req.method} ${req.url} answered more than ${formatBytes(conn.maxResponseBytes)}, so the answer was not read; raise the connection's maxResponseBytes if answers this large are expected, or ask for smaller pages`, {
      secrets,
      details: { limitBytes: conn.maxResponseBytes },
    });
  }

  /** A Content-Length above the bound is refused before any of the body is read (an encoded body is counted as it is decoded instead). */
  function refuseDeclaredSize(res: Response, req: JsonRequest): void {
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (!res.headers.has('content-encoding') && Number.isFinite(declared) && declared > conn.maxResponseBytes) {
      void res.body?.cancel().catch(() => undefined);
      throw tooLarge(req);
    }
  }

  return async function request(req: JsonRequest): Promise<JsonResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...conn.headers, ...req.headers };
    if (conn.auth) headers[conn.auth.header] = conn.auth.value;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let lastError = '';
    let lastCode: typeof CONNECTOR_CODES.unreachable | typeof CONNECTOR_CODES.httpError = CONNECTOR_CODES.unreachable;
    let timedOut = false;
    for (let attempt = 0; attempt <= conn.retries; attempt++) {
      if (req.signal?.aborted) throw new AbortedError();
      let wait: number | undefined;
      // One deadline per attempt over connecting, the headers and the whole body: fetch's signal also ends the body's stream.
      const timeout = AbortSignal.timeout(conn.timeoutMs);
      try {
        const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
        const res = await fetchHome(req.url, { method: req.method, headers, body, signal }, req.method);
        if (res.ok) refuseDeclaredSize(res, req);
        const { text, truncated } = await readText(res, res.ok ? conn.maxResponseBytes : ERROR_BODY_BYTES);
        if (res.ok && truncated) throw tooLarge(req);
        if (res.ok) {
          let parsed: unknown = null;
          if (text.trim() !== '') {
            try {
              parsed = JSON.parse(text);
            } catch {
              throw connectorError(connector, CONNECTOR_CODES.httpError, `${req.method} ${req.url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, { secrets });
            }
          }
          return { status: res.status, headers: res.headers, body: parsed };
        }
        const excerpt = text.replace(/\s+/g, ' ').slice(0, 300);
        if (res.status === 401 || res.status === 403) {
          throw connectorError(connector, CONNECTOR_CODES.authFailed, `${req.method} ${req.url} was refused (${res.status}): ${excerpt}. Check the connection's auth header and its token.`, { secrets, details: { status: res.status } });
        }
        if (res.status !== 429 && res.status < 500) {
          throw connectorError(connector, CONNECTOR_CODES.httpError, `${req.method} ${req.url} failed with ${res.status}: ${excerpt}`, { secrets, details: { status: res.status } });
        }
        lastCode = CONNECTOR_CODES.httpError;
        lastError = `${res.status}: ${excerpt}`;
        wait = parseRetryAfter(res.headers.get('retry-after') ?? undefined);
      } catch (err) {
        if (err instanceof ConnectorError) throw err;
        if (req.signal?.aborted) throw new AbortedError();
        lastCode = CONNECTOR_CODES.unreachable;
        timedOut = timeout.aborted;
        const cause = (err as { cause?: unknown }).cause;
        lastError = timedOut ? `no complete answer within ${conn.timeoutMs} ms (timeoutMs)` : cause ? `${causeText(err)}: ${causeText(cause)}` : causeText(err);
      }
      if (attempt < conn.retries) {
        const backoff = Math.min(conn.maxBackoffMs, wait ?? conn.backoffMs * 2 ** attempt * (0.75 + Math.random() * 0.5));
        logger.warn({ url: req.url, attempt: attempt + 1, waitMs: Math.round(backoff), error: scrubSecrets(lastError, secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4)) }, 'HTTP request failed; retrying');
        await sleep(backoff, req.signal).catch(() => undefined);
      }
    }
    const hint = timedOut
      ? " Check that the service is up, or raise the connection's timeoutMs if it is slow but working."
      : lastCode === CONNECTOR_CODES.unreachable
        ? ' Check baseUrl and that the service is up.'
        : ' The service keeps failing; try again later.';
    throw connectorError(connector, lastCode, `${req.method} ${req.url} failed after ${conn.retries + 1} attempt(s): ${lastError}.${hint}`, { secrets });
  };
}

/** What is read of an error answer's body: enough for the excerpt in the message. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A body as UTF-8 text, read chunk by chunk up to `limit` bytes (as decoded); `truncated` when more
 * was there, whose rest is then not read (the stream is cancelled). `res.text()` had no bound.
 */
async function readText(res: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size));
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

/** Resolve a path against the base URL (absolute URLs pass through). */
export function resolveUrl(baseUrl: string, pathOrUrl: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(pathOrUrl.replace(/^\//, ''), base);
}
