/**
 * Authentication: a static bearer token, or OAuth 2.0 client credentials. The OAuth token is
 * fetched once, shared by concurrent requests, cached until shortly before it expires and
 * fetched again once when the shop refuses it (401).
 */
import { AuthenticationError, ShopUnreachableError, TransportError } from '../errors.js';
import { tokenResponse } from '../schema/envelopes.js';
import { invalidResponse } from './errors.js';
import { sleep } from '../../util/time.js';
import { isRecord } from '../../util/guards.js';
import { backoffMs, neverSent, parseRetryAfter, RETRY_STATUSES, UNREACHABLE_RETRIES } from './retry.js';
import type { ShopAuth } from './types.js';
import { Deadline, tooLarge, type Exchange } from './wire.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './options.js';
import { formatBytes } from '../../util/bytes.js';

/** Where requests get their bearer token from. */
export interface TokenSource {
  /** A valid access token (fetched or cached). */
  token(signal?: AbortSignal): Promise<string>;
  /** The shop refused `token` with 401: drop it; true when a fresh token can be tried. */
  refused(token: string): boolean;
  /** Every secret value this source knows, for scrubbing log lines and messages. */
  secrets(): readonly string[];
  /** Forget cached tokens. */
  close(): void;
}

/** Lifetime assumed when the token endpoint does not say (`expires_in` absent). */
const DEFAULT_LIFETIME_S = 300;

/** Options for the OAuth token fetch. */
export interface TokenFetchOptions {
  readonly http: Exchange;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** @default DEFAULT_MAX_RESPONSE_BYTES */
  readonly maxResponseBytes?: number;
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly now?: () => number;
}

/** Create the token source for the configured authentication. */
export function createTokenSource(auth: ShopAuth, options: TokenFetchOptions): TokenSource {
  if (auth.kind === 'token') {
    return {
      token: async () => auth.token,
      refused: () => false,
      secrets: () => [auth.token],
      close: () => undefined,
    };
  }
  return new OAuthTokenSource(auth, options);
}

class OAuthTokenSource implements TokenSource {
  readonly #auth: Extract<ShopAuth, { kind: 'oauth' }>;
  readonly #options: TokenFetchOptions;
  readonly #now: () => number;
  #cached: { value: string; refreshAt: number } | undefined;
  #inflight: Promise<string> | undefined;
  #seen: string[] = [];

  constructor(auth: Extract<ShopAuth, { kind: 'oauth' }>, options: TokenFetchOptions) {
    this.#auth = auth;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async token(signal?: AbortSignal): Promise<string> {
    if (this.#cached && this.#now() < this.#cached.refreshAt) return this.#cached.value;
    // One fetch for all concurrent callers.
    this.#inflight ??= this.#fetch(signal).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  refused(token: string): boolean {
    if (this.#cached?.value === token) this.#cached = undefined;
    return true;
  }

  secrets(): readonly string[] {
    return [this.#auth.clientSecret, this.#auth.clientId, ...this.#seen];
  }

  close(): void {
    this.#cached = undefined;
  }

  async #fetch(signal?: AbortSignal): Promise<string> {
    const url = this.#auth.tokenUrl ?? `${this.#options.baseUrl}/oauth/token`;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.#auth.clientId, client_secret: this.#auth.clientSecret });
    if (this.#auth.scopes?.length) form.set('scope', this.#auth.scopes.join(' '));
    for (let attempt = 0; ; attempt++) {
      let status: number | 'network';
      let data: unknown;
      let retryAfter: number | undefined;
      let networkCode: string | undefined;
      // The token request has the deadline and the size bound of every other request (http.ts).
      const deadline = new Deadline(this.#options.timeoutMs);
      try {
        const answer = await this.#options.http({
          method: 'POST',
          url,
          body: form.toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          maxBytes: this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
          signal: deadline.start(signal),
        });
        status = answer.status;
        data = answer.data;
        retryAfter = parseRetryAfter(answer.headers['retry-after']);
      } catch (err) {
        if (signal?.aborted) throw err;
        if (tooLarge(err)) throw new TransportError('TOKEN_UNAVAILABLE', `The OAuth token endpoint ${url} answered more than ${formatBytes(this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES)}; check shop.oauth.tokenUrl (or raise shop.maxResponseBytes)`);
        status = 'network';
        networkCode = deadline.expired ? 'ETIMEDOUT' : typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
      } finally {
        deadline.clear();
      }
      if (typeof status === 'number' && status >= 200 && status < 300) return this.#accept(data);
      const transient = status === 'network' || RETRY_STATUSES.has(status) || status >= 500;
      if (!transient) {
        const oauthCode = isRecord(data) && typeof data.error === 'string' ? data.error : undefined;
        throw new AuthenticationError('UNAUTHORIZED', `The OAuth token endpoint refused the client credentials (${status}${oauthCode ? ` ${oauthCode}` : ''}); check the OAuth client id, secret and scopes — shop.oauth.clientId, shop.oauth.clientSecret and shop.oauth.scopes in shopsync.yaml (auth.* in the client options)`, {
          status: typeof status === 'number' ? status : undefined,
          apiCode: oauthCode,
        });
      }
      if (neverSent(networkCode) && attempt >= Math.min(this.#options.retries, UNREACHABLE_RETRIES)) {
        throw new ShopUnreachableError('NETWORK_ERROR', `The OAuth token endpoint ${url} is unreachable (${networkCode}) after ${attempt + 1} attempts`, { details: { networkCode } });
      }
      if (attempt >= this.#options.retries) {
        throw new TransportError('TOKEN_UNAVAILABLE', `The OAuth token endpoint could not be reached (${status}) after ${attempt + 1} attempts`, { status: status === 'network' ? undefined : status });
      }
      const wait = retryAfter !== undefined ? Math.min(retryAfter, this.#options.maxDelayMs) : backoffMs(attempt, this.#options.baseDelayMs, this.#options.maxDelayMs);
      await sleep(wait, signal);
    }
  }

  #accept(data: unknown): string {
    const parsed = tokenResponse.safeParse(data);
    if (!parsed.success) throw invalidResponse('the OAuth token request', parsed.error);
    const lifetimeMs = (parsed.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000;
    // Refresh before expiry: 10% of the lifetime, at most 60 s, so in-flight requests do not carry a dying token.
    const margin = Math.min(60_000, lifetimeMs * 0.1);
    this.#cached = { value: parsed.data.access_token, refreshAt: this.#now() + lifetimeMs - margin };
    this.#seen = [parsed.data.access_token, ...this.#seen].slice(0, 4);
    return parsed.data.access_token;
  }
}
