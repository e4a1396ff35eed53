/** The shop connection block of `shopsync.yaml` and its translation to client options. */
import { z } from 'zod';
import type { ShopClientOptions } from '../shop/client/types.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../shop/client/options.js';
import { DEFAULT_MAX_FIELD_BYTES } from '../mapping/guards.js';

const positiveInt = z.coerce.number().int().positive();
/** A shop variable's name, as `${shop.<name>}` refers to it. */
const VAR_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** OAuth client credentials (client_credentials grant). */
const oauthSchema = z.strictObject({
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  /** Token endpoint. @default `${baseUrl}/oauth/token` */
  tokenUrl: z.url().optional(),
  scopes: z.array(z.string().min(1)).optional(),
});

/** `shop:` — where the shop is and how hard shopsync may talk to it. */
export const shopConfigSchema = z
  .strictObject({
    /** The API's base URL (export/import paths are appended). */
    baseUrl: z.url({ error: 'expected an http(s) URL such as https://shop.example.com/api' }),
    /** A static access token; use `${SHOP_TOKEN}` or `${file:/run/secrets/shop_token}`. */
    token: z.string().min(1).optional(),
    /** An OAuth client instead of a static token. */
    oauth: oauthSchema.optional(),
    rateLimit: z
      .strictObject({
        /**
         * `adaptive`: start politely and find the shop's pace (grow while answers are fast and clean,
         * back off on 429, Retry-After, 5xx and rising latency); `requests` and `concurrency` are
         * hard caps. `fixed`: exactly `requests` per `intervalMs` with `concurrency` in flight, for
         * shops that publish their limit. @default adaptive
         */
        mode: z.enum(['adaptive', 'fixed']).default('adaptive'),
        /** Requests allowed per `intervalMs` (adaptive: the hard cap). @default 500 adaptive, 10 fixed */
        requests: positiveInt.optional(),
        /** Window of `requests`. @default 1000 */
        intervalMs: positiveInt.default(1000),
        /**
         * With a PostgreSQL state, `requests` per `intervalMs` is the budget of every shopsync process on
         * that state together (one limit per shop, kept in the state database), and a 429 any of them
         * meets pauses them all. `false`: each process keeps its own limit. No effect on a SQLite state
         * (one process). @default true with a PostgreSQL state
         */
        shared: z.boolean().optional(),
      })
      .prefault({}),
    /** Requests in flight at once (adaptive: the hard cap). @default 16 adaptive, 4 fixed */
    concurrency: positiveInt.max(64).optional(),
    /** Records per write request. @default 100 */
    batchSize: positiveInt.max(1000).default(100),
    /**
     * One deadline per request (each attempt): connecting, the answer's headers and its whole body
     * must arrive within it, so a shop dribbling its answer cannot hold a run. A read that passes it
     * is retried; a write is not repeated blindly (its outcome is unknown). @default 30000
     */
    timeoutMs: positiveInt.default(30_000),
    /**
     * Largest answer read from the shop, in bytes after decompression; a larger one fails its request
     * with SHOP_RESPONSE_TOO_LARGE instead of filling memory. @default 67108864 (64 MiB)
     */
    maxResponseBytes: positiveInt.default(DEFAULT_MAX_RESPONSE_BYTES),
    /**
     * Largest text, in UTF-8 bytes, one field may carry to the shop; a record with a larger one fails
     * alone with GUARD_FIELD_TOO_LARGE, the run goes on. @default 1048576 (1 MiB)
     */
    maxFieldBytes: positiveInt.default(DEFAULT_MAX_FIELD_BYTES),
    retry: z
      .strictObject({
        /** Attempts after the first on network errors, 429 and 5xx. @default 5 */
        retries: z.coerce.number().int().min(0).max(20).default(5),
        /** First backoff ceiling (full jitter). @default 250 */
        baseDelayMs: positiveInt.default(250),
        /** Largest wait between attempts; also caps Retry-After. @default 30000 */
        maxDelayMs: positiveInt.default(30_000),
      })
      .prefault({}),
    /**
     * The shop's circuit breaker (docs/operations.md, "Circuit breaker"): after `failures` requests in
     * a row gave up with the shop down (no answer, timeout, 5xx after every retry; never a 4xx or 429),
     * runs of this shop fail fast with SHOP_CIRCUIT_OPEN and send nothing until a probe (one record of
     * a list) is answered.
     */
    circuitBreaker: z
      .strictObject({
        /** Requests in a row that gave up with the shop down before it opens; 0 = never. @default 5 */
        failures: z.coerce.number().int().min(0).default(5),
        /** Wait before the first probe. @default 30000 */
        probeAfterMs: positiveInt.default(30_000),
        /** Longest wait between probes (each failed probe doubles the wait). @default 600000 */
        maxProbeAfterMs: positiveInt.default(600_000),
      })
      .prefault({}),
    /**
     * The shop's own values for templates and mappings (`priceColumn`, `language`, `currency`, a
     * category map…): `${shop.priceColumn}` in a template or a mapping file, `$shop.priceColumn` in a
     * JSONata expression; `${shop.name}` is the shop's name. @default {}
     */
    vars: z.record(z.string().regex(VAR_NAME, 'variable names use letters, digits and `_`, starting with a letter'), z.unknown()).default({}),
    /**
     * Seconds after each tick of a template's schedule that this shop's pipelines start (0–3599), so
     * fifty shops on one five-minute schedule do not all start in the same second. @default 0
     */
    scheduleOffsetSeconds: z.coerce.number().int().min(0).max(3599).optional(),
    /**
     * This shop's changes to the top-level templates, by template name: any pipeline setting
     * (`schedule`, `batchSize`, `options`, `source`…), merged over the template; `false` leaves the
     * template out for this shop.
     */
    templates: z.record(z.string(), z.union([z.literal(false), z.record(z.string(), z.unknown())])).default({}),
  })
  .superRefine((shop, ctx) => {
    if ('name' in shop.vars) ctx.addIssue({ code: 'custom', path: ['vars', 'name'], message: '`${shop.name}` is the shop\'s name; give this variable another name' });
    if (!shop.token === !shop.oauth) {
      ctx.addIssue({
        code: 'custom',
        path: shop.token ? ['oauth'] : [],
        message: 'give exactly one of `token` (e.g. token: ${SHOP_TOKEN}) or `oauth` (clientId, clientSecret)',
      });
    }
  });

/** The validated `shop:` block. */
export type ShopConfig = z.output<typeof shopConfigSchema>;

/** Client options for `createShopClient` from the config block. */
export function shopClientOptions(shop: ShopConfig): ShopClientOptions {
  return {
    baseUrl: shop.baseUrl,
    auth: shop.oauth
      ? { kind: 'oauth', clientId: shop.oauth.clientId, clientSecret: shop.oauth.clientSecret, tokenUrl: shop.oauth.tokenUrl, scopes: shop.oauth.scopes }
      : { kind: 'token', token: shop.token ?? '' },
    // Unset caps take the client's defaults for the mode (options.ts).
    rateLimit: { mode: shop.rateLimit.mode, concurrency: shop.concurrency, intervalCap: shop.rateLimit.requests, intervalMs: shop.rateLimit.intervalMs },
    retry: shop.retry,
    batchSize: shop.batchSize,
    timeoutMs: shop.timeoutMs,
    maxResponseBytes: shop.maxResponseBytes,
    breaker: shop.circuitBreaker,
  };
}
