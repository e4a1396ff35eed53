/**
 * One logical request to the shop: bearer token, rate-limited queue, retries with backoff and
 * Retry-After, one token refresh on 401, and the rule that a write whose answer was lost is only
 * repeated when repeating it is safe. Answers are returned as they came (any status); failures
 * without an answer become typed errors. Headers (the token) and HTTP settings never leave this
 * file and wire.ts, which sends each attempt.
 */
import type { AxiosInstance, AxiosResponse } from 'axios';
import { AbortedError } from '../../errors.js';
import { scrubSecrets } from '../../log.js';
import { OutcomeUnknownError, ResponseTooLargeError, ShopApiError, ShopCircuitOpenError, ShopUnreachableError, TransportError, ValidationError } from '../errors.js';
import { allResources, isResourceName, getResource } from '../registry/index.js';
import type { CircuitBreaker } from './breaker.js';
import { formatBytes } from '../../util/bytes.js';
import type { HttpMethod } from '../registry/index.js';
import type { TokenSource } from './auth.js';
import type { ResolvedOptions } from './options.js';
import type { RequestQueue } from './queue.js';
import { sleep } from '../../util/time.js';
import { backoffMs, neverSent, NOT_PROCESSED_STATUSES, parseRetryAfter, RETRY_STATUSES, UNREACHABLE_BUDGET_MS, UNREACHABLE_RETRIES } from './retry.js';
import { Deadline, exchange, joinUrl, tooLarge, type Exchange, type WireAnswer } from './wire.js';

/** A request as the operations describe it. */
export interface RequestSpec {
  /** Registry resource the request belongs to (for events and errors). */
  readonly resource: string;
  readonly method: HttpMethod;
  /** Path with placeholders filled, relative to the base URL. */
  readonly path: string;
  readonly params?: Readonly<Record<string, string | number>>;
  readonly body?: unknown;
  /** Ask for the body as bytes (attachment download). */
  readonly binary?: boolean;
  /** Whether the request may be repeated when its answer was lost (see safety.ts). */
  readonly repeatSafe: boolean;
  readonly signal?: AbortSignal;
  /** Incremented once per HTTP attempt (retries included). */
  readonly counter?: { requests: number };
  /** The circuit breaker's own probe: it goes out while the breaker is open. */
  readonly probe?: boolean;
}

/** An HTTP answer of any status. */
export interface Answer {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  /** A previous attempt of this request may have reached the shop. */
  readonly afterLostAnswer: boolean;
}

/** What one HTTP attempt came back with. */
interface AttemptResult {
  readonly response?: WireAnswer;
  readonly failure?: { code?: string; message: string };
  readonly sent: boolean;
  readonly wireMs: number;
}

/** Sends requests; shared by every operation of one client. */
export class Transport {
  readonly #http: Exchange;
  readonly #tokens: TokenSource;
  readonly #queue: RequestQueue;
  readonly #options: ResolvedOptions;
  #breaker: CircuitBreaker | undefined;
  /** The resource of the last request: the probe reads one record of it (the token has its scope). */
  #lastResource: string | undefined;

  constructor(http: Exchange, tokens: TokenSource, queue: RequestQueue, options: ResolvedOptions) {
    this.#http = http;
    this.#tokens = tokens;
    this.#queue = queue;
    this.#options = options;
  }

  /** Every attempt asks this breaker first and tells it how the shop answered. */
  useBreaker(breaker: CircuitBreaker): void {
    this.#breaker = breaker;
  }

  /**
   * The breaker's probe: one GET of one record of a list (the resource last asked for, else the
   * registry's first list), through the rate-limited queue; resolves when the shop answered below 500.
   */
  async probe(): Promise<void> {
    const last = this.#lastResource !== undefined && isResourceName(this.#lastResource) ? getResource(this.#lastResource) : undefined;
    const resource = [last, ...allResources].find((r) => r?.ops.export?.method === 'GET' && r.ops.export.paging.kind === 'limit-offset' && !r.ops.export.path.includes('{'));
    if (!resource?.ops.export) throw new Error('no list in the registry to probe the shop with');
    const spec: RequestSpec = { resource: resource.name, method: 'GET', path: resource.ops.export.path, params: { limit: 1 }, repeatSafe: true, probe: true };
    const token = await this.#tokens.token();
    const { response, failure, sent, wireMs } = await this.#attempt(spec, undefined, token);
    const status = response ? response.status : 'network';
    this.#options.onEvent({ type: 'request', resource: spec.resource, method: 'GET', status, durationMs: sent ? Math.round(wireMs) : 0, attempt: 1 });
    if (!response) throw new Error(`the probe (GET ${spec.path}?limit=1) got no answer: ${failure?.message ?? 'network error'}`);
    if (response.status >= 500) throw new Error(`the probe (GET ${spec.path}?limit=1) was answered HTTP ${response.status}`);
  }

  /** The breaker refused an attempt: a write an earlier attempt of which may have landed is OUTCOME_UNKNOWN, not "nothing sent". */
  #refused(spec: RequestSpec, err: unknown, afterLostAnswer: boolean): unknown {
    if (!(err instanceof ShopCircuitOpenError) || !afterLostAnswer || spec.method === 'GET') return err;
    return this.#unknown(spec, `an answer to ${spec.method} ${spec.path} was lost and the shop's circuit breaker opened before it could be repeated (${err.message})`, 'SHOP_CIRCUIT_OPEN');
  }

  /**
   * What an attempt said about the shop: an answer below 500 proves it is there (the breaker's count
   * starts again); otherwise how it failed, which counts once the request gives up (see `send`).
   */
  #observe(spec: RequestSpec, response: WireAnswer | undefined, failure: { code?: string; message: string } | undefined): string | undefined {
    if (response) {
      if (response.status >= 500 && !notTransient(response.data)) return `HTTP ${response.status} to ${spec.method} ${spec.path}`;
    } else if (failure?.code !== RESPONSE_TOO_LARGE) {
      return spec.signal?.aborted ? undefined : `no answer to ${spec.method} ${spec.path}: ${failure?.message ?? 'network error'}`;
    }
    this.#breaker?.answered();
    return undefined;
  }

  /**
   * Send a request, retrying where the policy allows; resolves with the final answer. A request that
   * gave up with the shop down (no answer, 5xx after every retry) counts once towards the breaker:
   * counting whole requests, not attempts, lets a shop that recovers within the retries never open it.
   */
  async send(request: RequestSpec): Promise<Answer> {
    const down: { last?: string } = {};
    try {
      const answer = await this.#send(request, down);
      if (down.last !== undefined && answer.status >= 500) this.#breaker?.failed(down.last);
      return answer;
    } catch (err) {
      if (down.last !== undefined && !(err instanceof ShopCircuitOpenError) && !(err instanceof AbortedError)) this.#breaker?.failed(down.last);
      throw err;
    }
  }

  /** Remove every known secret from a text bound for a log line or an error message. */
  scrub(text: string): string {
    return scrubSecrets(text, this.#tokens.secrets());
  }

  async #send(request: RequestSpec, down: { last?: string }): Promise<Answer> {
    // A signal of its own per request: many concurrent batches share the caller's signal, and
    // listeners on a derived signal do not pile up on the caller's.
    const spec: RequestSpec = request.signal ? { ...request, signal: AbortSignal.any([request.signal]) } : request;
    const { retries, baseDelayMs, maxDelayMs, logger, onEvent } = this.#options;
    const label = `${spec.method} ${spec.path}`;
    // Serialised once for every attempt; a body that is not JSON data never leaves (it is no lost answer).
    const body = serialise(spec, label);
    let retriesUsed = 0;
    let refreshed = false;
    let afterLostAnswer = false;
    const firstAttempt = Date.now();
    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw new AbortedError(`stopped before ${label} was sent`);
      this.#lastResource = spec.resource;
      let outcome: AttemptResult;
      let token: string;
      let started: number;
      try {
        await this.#breaker?.admit();
        token = await this.#tokens.token(spec.signal);
        started = Date.now();
        outcome = await this.#attempt(spec, body, token);
      } catch (err) {
        throw this.#refused(spec, err, afterLostAnswer);
      }
      const { response, failure, sent, wireMs } = outcome;
      down.last = this.#observe(spec, response, failure);
      if (!response && spec.signal?.aborted) {
        if (sent && !spec.repeatSafe) throw this.#unknown(spec, `stopped while waiting for the answer to ${label}`, failure?.code);
        throw new AbortedError(`stopped while sending ${label}`);
      }
      // The shop's time only: waiting in the queue (the rate's brake, a Retry-After pause) is ours, not its latency.
      const durationMs = sent ? Math.round(wireMs) : Date.now() - started;
      const status = response ? response.status : 'network';
      const shopDate = response?.headers.date;
      onEvent({ type: 'request', resource: spec.resource, method: spec.method, status, durationMs, attempt, ...(typeof shopDate === 'string' ? { shopDate } : {}) });
      logger.debug({ resource: spec.resource, method: spec.method, path: spec.path, status, durationMs, attempt, error: failure?.code }, 'shop request');

      if (!response && failure?.code === RESPONSE_TOO_LARGE) {
        // The shop answered: a write may have taken effect, and asking again would bring the same flood.
        const limit = formatBytes(this.#options.maxResponseBytes);
        if (spec.method !== 'GET') throw this.#unknown(spec, `the answer to ${label} was larger than ${limit} (shop.maxResponseBytes) and was not read`, RESPONSE_TOO_LARGE);
        throw new ResponseTooLargeError(`${label}: the shop answered more than ${limit}, so the answer was not read; raise shop.maxResponseBytes if answers this large are expected (or ask for smaller pages)`, {
          details: { limitBytes: this.#options.maxResponseBytes, method: spec.method, path: spec.path },
          record: { resource: spec.resource },
        });
      }
      if (!response) {
        const mayHaveArrived = sent && !neverSent(failure?.code);
        if (mayHaveArrived) this.#queue.answered({ kind: 'overloaded' });
        if (mayHaveArrived && !spec.repeatSafe) throw this.#unknown(spec, `the answer to ${label} was lost (${failure?.code ?? failure?.message})`, failure?.code);
        afterLostAnswer ||= mayHaveArrived;
        // Connection refused or DNS failure: the shop is not there; the short budget of retry.ts applies.
        if (neverSent(failure?.code) && !afterLostAnswer && (retriesUsed >= Math.min(retries, UNREACHABLE_RETRIES) || Date.now() - firstAttempt >= UNREACHABLE_BUDGET_MS)) {
          throw new ShopUnreachableError('NETWORK_ERROR', `${label} failed after ${attempt} attempts: the shop is unreachable (${failure?.message ?? 'network error'})`, { details: { networkCode: failure?.code, afterLostAnswer } });
        }
        if (retriesUsed >= retries) {
          throw new TransportError('NETWORK_ERROR', `${label} failed after ${attempt} attempts: ${failure?.message ?? 'network error'}`, { details: { networkCode: failure?.code, afterLostAnswer } });
        }
        await pause(backoffMs(retriesUsed++, baseDelayMs, maxDelayMs), spec.signal, label);
        continue;
      }

      const headers = response.headers;
      if (response.status >= 500) this.#queue.answered({ kind: 'overloaded', latencyMs: wireMs });
      else if (response.status !== 429) this.#queue.answered({ kind: 'ok', latencyMs: wireMs });
      const answer: Answer = { status: response.status, data: response.data, headers, afterLostAnswer };
      if (response.status === 401 && !refreshed && this.#tokens.refused(token)) {
        refreshed = true;
        logger.debug({ resource: spec.resource }, 'shop refused the access token; fetching a new one');
        continue;
      }
      if (RETRY_STATUSES.has(response.status) && !notTransient(response.data)) {
        const retryAfterMs = parseRetryAfter(headers['retry-after']);
        let wait = retryAfterMs !== undefined ? Math.min(retryAfterMs, maxDelayMs) : backoffMs(retriesUsed, baseDelayMs, maxDelayMs);
        if (response.status === 429) {
          const pauseMs = Math.min(retryAfterMs ?? backoffMs(retriesUsed, baseDelayMs, maxDelayMs), maxDelayMs);
          this.#queue.answered({ kind: 'throttled', retryAfterMs: pauseMs, latencyMs: wireMs });
          // The queue holds the retry back (a pause, or the adaptive window) and says how long it should wait itself.
          wait = this.#queue.throttle(pauseMs);
          onEvent({ type: 'throttled', resource: spec.resource, retryAfterMs: pauseMs });
          logger.info({ resource: spec.resource, retryAfterMs: pauseMs, rate: this.#queue.rate() }, 'shop rate limit hit; slowing down');
        }
        if (!NOT_PROCESSED_STATUSES.has(response.status) && !spec.repeatSafe) {
          throw this.#unknown(spec, `a gateway answered ${response.status} to ${label}; the shop may have processed it`, undefined, response.status);
        }
        afterLostAnswer ||= !NOT_PROCESSED_STATUSES.has(response.status);
        if (retriesUsed >= retries) return answer;
        retriesUsed++;
        await pause(wait, spec.signal, label);
        continue;
      }
      return answer;
    }
  }

  /** One HTTP attempt through the queue; network failures come back as their code and a scrubbed message. */
  async #attempt(spec: RequestSpec, body: string | undefined, token: string): Promise<AttemptResult> {
    let sent = false;
    // Time on the wire only (not the wait in the queue): what the rate controller reads as the shop's latency.
    let wireStart = 0;
    const wire = () => (sent ? performance.now() - wireStart : 0);
    // Starts when the attempt leaves the queue, not while it waits for its turn.
    const deadline = new Deadline(this.#options.timeoutMs);
    try {
      const response = await this.#queue.run(() => {
        // An attempt that waited in the queue while the breaker opened does not go out.
        if (!spec.probe) this.#breaker?.check();
        sent = true;
        wireStart = performance.now();
        if (spec.counter) spec.counter.requests += 1;
        return this.#http({
          method: spec.method,
          url: joinUrl(this.#options.baseUrl, spec.path),
          params: spec.params,
          body,
          headers: { Authorization: `Bearer ${token}`, Accept: spec.binary ? '*/*' : 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
          binary: spec.binary,
          // Counted as the body is read (after decompression), so a chunked flood is cut off as well.
          maxBytes: this.#options.maxResponseBytes,
          // A write that is not safe to repeat is not cut off by the caller's signal once it is on the wire: its outcome would be unknown.
          signal: deadline.start(spec.repeatSafe ? spec.signal : undefined),
        });
      }, spec.signal);
      return { response, sent, wireMs: wire() };
    } catch (err) {
      if (err instanceof ShopApiError) throw err; // the client was closed while the attempt waited
      // Past the deadline: the timeout every caller already knows (a read is retried, a write's outcome is unknown).
      if (deadline.expired) return { failure: { code: 'ETIMEDOUT', message: `no complete answer within ${this.#options.timeoutMs} ms (shop.timeoutMs; raise it if the shop is slow but working)` }, sent, wireMs: wire() };
      if (tooLarge(err)) return { failure: { code: RESPONSE_TOO_LARGE, message: `answer larger than ${this.#options.maxResponseBytes} bytes` }, sent, wireMs: wire() };
      // Keep only code and message: an axios error (proxy mode) carries the config with the Authorization header.
      const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
      return { failure: { code, message: this.scrub(err instanceof Error ? err.message : String(err)) }, sent, wireMs: wire() };
    } finally {
      // The body is complete (the exchange resolves only then) or the attempt failed: the deadline is done either way.
      deadline.clear();
    }
  }

  #unknown(spec: RequestSpec, message: string, networkCode?: string, status?: number): OutcomeUnknownError {
    return new OutcomeUnknownError('OUTCOME_UNKNOWN', `${message}; it is not safe to repeat, so check in the shop whether it took effect`, {
      status,
      details: { networkCode, method: spec.method, path: spec.path },
      record: { resource: spec.resource },
    });
  }
}

/** Failure code of an answer larger than `maxResponseBytes` (also the error's code, see ResponseTooLargeError). */
export const RESPONSE_TOO_LARGE = 'SHOP_RESPONSE_TOO_LARGE';

/** The request body as JSON text, once per request; a value JSON cannot hold is the caller's error. */
function serialise(spec: RequestSpec, label: string): string | undefined {
  if (spec.body === undefined) return undefined;
  try {
    return JSON.stringify(spec.body);
  } catch (err) {
    throw new ValidationError('INVALID_ARGUMENT', `${label}: the request body is not JSON data (${err instanceof Error ? err.message : String(err)}); nothing was sent`, { record: { resource: spec.resource } });
  }
}

/** Wait before the next attempt; a stop request during the wait is an AbortedError. */
async function pause(ms: number, signal: AbortSignal | undefined, label: string): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch {
    throw new AbortedError(`stopped while waiting to retry ${label}`);
  }
}

/** A 503 that is a lasting state, not a passing overload (claims storage not created yet). */
function notTransient(data: unknown): boolean {
  const body = data instanceof ArrayBuffer || Buffer.isBuffer(data) ? undefined : data;
  const code = body && typeof body === 'object' ? (body as { error?: { code?: unknown } }).error?.code : undefined;
  return code === 'TICKET_CLAIMS_UNAVAILABLE';
}

function normaliseHeaders(headers: AxiosResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value === undefined || value === null) continue;
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** Environment variables through which axios sends requests via a proxy (proxy-from-env's list). */
const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'all_proxy', 'npm_config_proxy', 'npm_config_http_proxy', 'npm_config_https_proxy'];

/** Whether the environment names a proxy (either case), which node:http itself would ignore. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name] || env[name.toUpperCase()]));
}

/**
 * The exchange every request of one client goes through: node:http (wire.ts), or axios when the
 * environment names a proxy, which axios honours (with NO_PROXY) and node:http does not, so a
 * shopsync behind a proxy keeps reaching its shop the way it always did.
 */
export function createHttp(env: NodeJS.ProcessEnv = process.env): Exchange {
  return proxyConfigured(env) ? viaAxios() : exchange;
}

/** The exchange on axios (loaded only then): same request, same answer shape, the same size bound and no redirects. */
export function viaAxios(): Exchange {
  let instance: Promise<AxiosInstance> | undefined;
  return async (req) => {
    // No interceptors and no default headers: the token is added per request and never stored on the instance.
    instance ??= import('axios').then((m) => m.default.create({ maxRedirects: 0 }));
    const response = await (await instance).request({
      method: req.method,
      url: req.url,
      params: req.params,
      data: req.body,
      headers: req.headers,
      // The body is already JSON text (or a form): sent as it is.
      transformRequest: [(data: unknown) => data],
      responseType: req.binary ? 'arraybuffer' : 'json',
      maxContentLength: req.maxBytes,
      validateStatus: () => true,
      signal: req.signal,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: true },
    });
    return { status: response.status, headers: normaliseHeaders(response.headers), data: response.data as unknown };
  };
}
