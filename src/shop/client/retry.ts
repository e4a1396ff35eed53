/**
 * Retry policy: which failures are retried, how long to wait (exponential backoff with full
 * jitter, or the shop's Retry-After), and which failures may have let a write take effect.
 */

/** Statuses that mean "try again later": the shop did not process the request (429, 503) or a gateway failed (502, 504). */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Statuses whose answer proves the request was not processed, so even a non-idempotent write may
 * be repeated. A 502/504 comes from a gateway that may have forwarded the request before failing.
 */
export const NOT_PROCESSED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Network error codes that occur before the request reached the shop (connection never made):
 * repeating is safe for any write. Every other network failure (reset, timeout, hang-up) may
 * have happened after the shop received the request.
 */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_INVALID_URL',
  // A certificate that does not verify ends the TLS handshake before any byte of the request leaves.
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * An unreachable shop (connection refused, DNS failure: a `neverSent` code) is tried at most this
 * many more times, within `UNREACHABLE_BUDGET_MS` of the first attempt, whatever `retries` says:
 * a shop that restarts comes back within a second, one that is down or misconfigured does not, and
 * the full backoff (meant for a busy shop answering 5xx/429) would hold a run for half a minute.
 */
export const UNREACHABLE_RETRIES = 2;
export const UNREACHABLE_BUDGET_MS = 5_000;

/** Whether a network failure (by its Node/axios code) proves the request was never sent. */
export function neverSent(code: string | undefined): boolean {
  return code !== undefined && NEVER_SENT_CODES.has(code);
}

/** Full-jitter backoff: a random wait up to `base * 2^attempt`, capped at `max` (attempt counts from 0). */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

// The Retry-After reading is shared with the ERP's HTTP connector.
export { parseRetryAfter } from '../../util/http.js';
