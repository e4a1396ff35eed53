/**
 * How each shop answered this process: reachable, token accepted, when it last answered and how
 * the last failure looked. Fed by every shop client's events (one tracker per process, keyed by
 * shop), so one shop's success never hides another shop's outage. Read by `/readyz` (as details),
 * `GET /shops` (with each shop's pause and failure streak, and the broken shops: `shopReports`)
 * and the dashboard; it decides no readiness by itself (see readiness.ts).
 *
 * It is this process's view: with several replicas each tracks the requests it sent, so a
 * replica that has not talked to a shop for a while shows an older `lastRequestAt`.
 */
import type { ClientEvent } from '../shop/client/types.js';
import { shopStreakView, type ShopStreakView } from '../pipeline/failing.js';
import type { ShopStreak } from '../state/index.js';

/** `ok`: the last answer proved the shop is there and takes the credentials; `failing`: it did not; `unknown`: no request yet. */
export type ShopHealthState = 'ok' | 'failing' | 'unknown';

/** The last thing that went wrong with a shop. */
export interface ShopHealthError {
  readonly at: string;
  /** The HTTP status, `network` (no answer, timeout) or a run's error code (an OAuth token endpoint refusing). */
  readonly status: number | 'network' | string;
  readonly resource?: string;
  readonly message: string;
}

/** One shop as this process sees it. */
export interface ShopHealth {
  readonly name: string;
  readonly health: ShopHealthState;
  /** Whether the last request got an answer from the shop (not a network error, timeout or 5xx); null before the first. */
  readonly reachable: boolean | null;
  /** Whether the shop last took the credentials (false after 401 or 403, true after any other answer); null until an answer told. */
  readonly tokenAccepted: boolean | null;
  readonly lastRequestAt: string | null;
  /** Last answer that proved the shop is there and takes the credentials (2xx-4xx other than 401/403, 429 included). */
  readonly lastSuccessAt: string | null;
  /** Since when every request failed; null while ok. */
  readonly failingSince: string | null;
  /** Failed requests in a row (retries count). */
  readonly consecutiveFailures: number;
  readonly lastError: ShopHealthError | null;
}

/** The per-shop contact tracker. */
export interface ShopHealthTracker {
  /** Feed one client event of shop `shop`. */
  observe(shop: string, event: ClientEvent): void;
  /** A refusal no request event shows (an OAuth token endpoint refusing the client, seen as a run's UNAUTHORIZED). */
  refused(shop: string, code: string, message: string): void;
  /** Every configured shop, in config order (shops met later after them). */
  shopHealth(): ShopHealth[];
  /** One shop; undefined when unknown to this process. */
  of(shop: string): ShopHealth | undefined;
}

interface Entry {
  reachable: boolean | null;
  tokenAccepted: boolean | null;
  lastRequestAt: number | null;
  lastSuccessAt: number | null;
  failingSince: number | null;
  consecutiveFailures: number;
  lastError: ShopHealthError | null;
}

/** What a failed answer means, for `lastError.message`. */
function describe(status: number | 'network'): string {
  if (status === 'network') return 'no answer (network error or timeout)';
  if (status === 401) return 'HTTP 401: the shop refused the credentials';
  if (status === 403) return 'HTTP 403: the token lacks a scope this request needs';
  return `HTTP ${status}: the shop failed to answer`;
}

/** Start tracking the shops named (more are added as their events arrive). */
export function trackShopHealth(shops: readonly string[], now: () => number = Date.now): ShopHealthTracker {
  const entries = new Map<string, Entry>();
  const entry = (shop: string): Entry => {
    let e = entries.get(shop);
    if (!e) entries.set(shop, (e = { reachable: null, tokenAccepted: null, lastRequestAt: null, lastSuccessAt: null, failingSince: null, consecutiveFailures: 0, lastError: null }));
    return e;
  };
  for (const shop of shops) entry(shop);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const fail = (e: Entry, at: number, error: ShopHealthError) => {
    e.failingSince ??= at;
    e.consecutiveFailures++;
    e.lastError = error;
  };
  const view = (name: string, e: Entry): ShopHealth => ({
    name,
    health: e.lastRequestAt === null && e.lastError === null ? 'unknown' : e.failingSince === null ? 'ok' : 'failing',
    reachable: e.reachable,
    tokenAccepted: e.tokenAccepted,
    lastRequestAt: iso(e.lastRequestAt),
    lastSuccessAt: iso(e.lastSuccessAt),
    failingSince: iso(e.failingSince),
    consecutiveFailures: e.consecutiveFailures,
    lastError: e.lastError,
  });
  return {
    observe(shop, event) {
      if (event.type !== 'request') return;
      const e = entry(shop);
      const at = now();
      e.lastRequestAt = at;
      const s = event.status;
      // A gateway's 5xx usually stands in front of a shop that is down: not reached.
      e.reachable = s !== 'network' && s < 500;
      if (s !== 'network' && s < 500) e.tokenAccepted = s !== 401 && s !== 403;
      // 429 and per-record 4xx prove the shop is there and accepts the credentials.
      const ok = s !== 'network' && s !== 401 && s !== 403 && s < 500;
      if (ok) {
        e.lastSuccessAt = at;
        e.failingSince = null;
        e.consecutiveFailures = 0;
      } else fail(e, at, { at: new Date(at).toISOString(), status: s, resource: event.resource, message: describe(s) });
    },
    refused(shop, code, message) {
      const e = entry(shop);
      const at = now();
      e.tokenAccepted = false;
      fail(e, at, { at: new Date(at).toISOString(), status: code, message });
    },
    shopHealth: () => [...entries].map(([name, e]) => view(name, e)),
    of(shop) {
      const e = entries.get(shop);
      return e ? view(shop, e) : undefined;
    },
  };
}

/** A shop whose file did not load, as `GET /shops` and `/readyz` name it (`loaded.brokenShops`). */
export interface BrokenShopReport {
  readonly file: string;
  readonly line: number;
  readonly message: string;
  /** Its pipelines, which run nowhere while it is broken. */
  readonly pipelines: readonly string[];
}

/**
 * One shop in `GET /shops`: this process's contact with it, its failure streak and pause from the
 * state (shared by every replica), or, for a shop whose file did not load, `health: broken` with
 * the file, line and message. The extras are optional so a bare `ShopHealth` still fits.
 */
export interface ShopReport extends Omit<ShopHealth, 'health'>, Partial<ShopStreakView> {
  readonly health: ShopHealthState | 'broken';
  readonly broken?: BrokenShopReport | null;
}

/** Each shop's report: the configured ones from `health` with their streaks, then the broken ones. */
export function shopReports(health: readonly ShopHealth[], streaks: readonly ShopStreak[], broken: readonly (BrokenShopReport & { readonly name: string })[]): ShopReport[] {
  const streakOf = new Map(streaks.map((s) => [s.shop, s]));
  const known = new Set(health.map((h) => h.name));
  return [
    ...health.map((h): ShopReport => ({ ...h, ...shopStreakView(h.name, streakOf.get(h.name)), broken: null })),
    ...broken
      .filter((b) => !known.has(b.name))
      .map((b): ShopReport => ({
        name: b.name,
        health: 'broken',
        reachable: null,
        tokenAccepted: null,
        lastRequestAt: null,
        lastSuccessAt: null,
        failingSince: null,
        consecutiveFailures: 0,
        lastError: null,
        ...shopStreakView(b.name, streakOf.get(b.name)),
        broken: { file: b.file, line: b.line, message: b.message, pipelines: b.pipelines },
      })),
  ];
}

/** Whether a shop needs a look: its requests fail, it is paused, or its file did not load. */
export function needsLook(s: ShopReport): boolean {
  return s.health === 'failing' || s.health === 'broken' || (s.paused ?? null) !== null;
}
