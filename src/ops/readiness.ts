/** What /readyz checks: the state database answers and the last contact with the shop went fine. */
import type { ClientEvent } from '../shop/client/types.js';

/** One readiness check. */
export interface CheckResult {
  readonly ok: boolean;
  readonly detail: string;
}

/** The /readyz answer. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/** Tracks the shop's answers as the client reports them. */
export interface ShopContact {
  /** Feed a client event. */
  observe(event: ClientEvent): void;
  /** The check as of the last answer. */
  check(): CheckResult;
}

/** Remember how the last shop request went. No request yet counts as fine (nothing is known to be wrong). */
export function trackShopContact(now: () => Date = () => new Date()): ShopContact {
  let last: { status: number | 'network'; at: Date; resource: string } | undefined;
  return {
    observe(event) {
      if (event.type === 'request') last = { status: event.status, at: now(), resource: event.resource };
    },
    check() {
      if (!last) return { ok: true, detail: 'no request to the shop yet' };
      const s = last.status;
      // 429 and per-record 4xx prove the shop is there and accepts our credentials.
      const ok = s !== 'network' && s !== 401 && s !== 403 && s < 500;
      const what = s === 'network' ? 'no answer (network error or timeout)' : `HTTP ${s}`;
      return { ok, detail: `last request (${last.resource}) at ${last.at.toISOString()}: ${what}` };
    },
  };
}

/** Combine named checks into a report; a check that throws counts as failed. */
export function readiness(checks: Readonly<Record<string, () => CheckResult>>): ReadinessReport {
  const results: Record<string, CheckResult> = {};
  for (const [name, fn] of Object.entries(checks)) {
    try {
      results[name] = fn();
    } catch (err) {
      results[name] = { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }
  return { ready: Object.values(results).every((r) => r.ok), checks: results };
}
