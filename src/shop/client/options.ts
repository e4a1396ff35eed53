/** Defaults and validation of `createShopClient`'s options. */
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import { valueAt } from '../../util/paths.js';
import type { SharedRateLimiter } from '../rate/index.js';
import { BREAKER_DEFAULTS, type BreakerOptions } from './breaker.js';
import type { ClientEvent, RateLimitOptions, ShopAuth, ShopClientOptions } from './types.js';

/** Options with every default filled in. */
export interface ResolvedOptions {
  readonly baseUrl: string;
  readonly auth: ShopAuth;
  readonly mode: 'adaptive' | 'fixed';
  readonly concurrency: number;
  readonly intervalCap: number;
  readonly intervalMs: number;
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly logger: Logger;
  readonly onEvent: (event: ClientEvent) => void;
  readonly sharedLimiter?: SharedRateLimiter;
  readonly breaker: BreakerOptions;
}

const positiveInt = (what: string) =>
  z.number({ message: `Expected \`${what}\` to be a whole number from 1 and up` }).int({ message: `Expected \`${what}\` to be a whole number` }).min(1, { message: `Expected \`${what}\` to be a whole number from 1 and up` });
const nonNegativeInt = (what: string) => z.number({ message: `Expected \`${what}\` to be a whole number from 0 and up` }).int().min(0, { message: `Expected \`${what}\` to be a whole number from 0 and up` });

const authSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('token'), token: z.string().min(1, { message: 'Expected `auth.token` to be a non-empty access token' }) }),
  z.strictObject({
    kind: z.literal('oauth'),
    tokenUrl: z.url({ message: 'Expected `auth.tokenUrl` to be an absolute URL like https://shop.example/oauth/token' }).optional(),
    clientId: z.string().min(1, { message: 'Expected `auth.clientId` to be a non-empty string' }),
    clientSecret: z.string().min(1, { message: 'Expected `auth.clientSecret` to be a non-empty string' }),
    scopes: z.array(z.string().min(1)).optional(),
  }),
]);

const optionsSchema = z.object({
  baseUrl: z.url({ message: 'Expected `baseUrl` to be an absolute http(s) URL like https://shop.example/api' }).refine((u) => /^https?:\/\//i.test(u), { message: 'Expected `baseUrl` to start with http:// or https://' }),
  auth: authSchema,
  mode: z.enum(['adaptive', 'fixed'], { message: 'Expected `rateLimit.mode` to be `adaptive` or `fixed`' }),
  concurrency: positiveInt('rateLimit.concurrency'),
  intervalCap: positiveInt('rateLimit.intervalCap'),
  intervalMs: positiveInt('rateLimit.intervalMs'),
  retries: nonNegativeInt('retry.retries'),
  baseDelayMs: nonNegativeInt('retry.baseDelayMs'),
  maxDelayMs: nonNegativeInt('retry.maxDelayMs'),
  batchSize: positiveInt('batchSize'),
  timeoutMs: positiveInt('timeoutMs'),
  maxResponseBytes: positiveInt('maxResponseBytes'),
  breaker: z.object({ failures: nonNegativeInt('breaker.failures'), probeAfterMs: positiveInt('breaker.probeAfterMs'), maxProbeAfterMs: positiveInt('breaker.maxProbeAfterMs') }),
});

/**
 * 64 MiB: an export page holds at most 250 records (the registry's largest page), a few MiB even
 * for products with long texts in many languages; a ticket attachment is downloaded whole. Sixteen
 * requests in flight at this bound still stay near 1 GiB, where a 200 MB answer used to take ~1 GB alone.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Hard caps of the adaptive mode when none are configured: well above what a script would use
 * (8 requests in flight), so the controller, not the cap, finds the pace.
 */
export const ADAPTIVE_CAPS = { concurrency: 16, requestsPerSecond: 500 } as const;

/** The rate caps with the mode's defaults filled in (not yet validated). */
export function rateCaps(rateLimit: RateLimitOptions = {}): { readonly mode: 'adaptive' | 'fixed'; readonly concurrency: number; readonly intervalCap: number; readonly intervalMs: number } {
  const mode = rateLimit.mode ?? 'adaptive';
  return {
    mode,
    concurrency: rateLimit.concurrency ?? (mode === 'adaptive' ? ADAPTIVE_CAPS.concurrency : 4),
    intervalCap: rateLimit.intervalCap ?? (mode === 'adaptive' ? ADAPTIVE_CAPS.requestsPerSecond : 10),
    intervalMs: rateLimit.intervalMs ?? 1000,
  };
}

/** Merge defaults into the caller's options, then validate them; throws ConfigError naming the option. */
export function resolveOptions(options: ShopClientOptions): ResolvedOptions {
  const merged = {
    baseUrl: options.baseUrl,
    auth: options.auth,
    ...rateCaps(options.rateLimit),
    retries: options.retry?.retries ?? 5,
    baseDelayMs: options.retry?.baseDelayMs ?? 250,
    maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
    batchSize: options.batchSize ?? 100,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    breaker: { ...BREAKER_DEFAULTS, ...options.breaker },
  };
  const parsed = optionsSchema.safeParse(merged);
  if (!parsed.success) {
    // Never echo the received auth values: they are secrets.
    const lines = parsed.error.issues.map((issue) => {
      const path = issue.path.join('.');
      const secret = path.startsWith('auth');
      const got = secret ? '' : `, got \`${String(valueAt(merged, issue.path))}\``;
      return `${path || 'options'}: ${issue.message}${got}`;
    });
    throw new ConfigError(`Invalid shop client options: ${lines.join('; ')}`, { key: parsed.error.issues[0]?.path.join('.') });
  }
  return {
    ...parsed.data,
    baseUrl: parsed.data.baseUrl.replace(/\/+$/, ''),
    auth: options.auth,
    logger: options.logger ?? silentLogger,
    onEvent: options.onEvent ?? (() => undefined),
    ...(options.sharedLimiter ? { sharedLimiter: options.sharedLimiter } : {}),
  };
}
