/**
 * What /readyz checks: whether this process can do its work — the state database answers, the
 * job engine runs (replicas) — and, with `daemon.readyNeedsShop`, that not every shop is failing
 * (then the fault is likely on this side: its network, its DNS, its proxy). One shop that is down
 * is that shop's problem, not this replica's: it is reported per shop (shopHealth.ts), never as a
 * check that flips with whichever shop the last request went to.
 */
import type { ShopHealth } from './shopHealth.js';

/** One readiness check. */
export interface CheckResult {
  readonly ok: boolean;
  readonly detail: string;
}

/** The /readyz answer. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckResult>>;
  /** Each shop's health as this process sees it: details for the operator, deciding nothing. */
  readonly shops?: readonly ShopHealth[];
}

/**
 * The `shops` check of `daemon.readyNeedsShop`: failed only when every configured shop is failing
 * (a shop not asked yet is not known to be wrong, so one shop down at start-up does not count as
 * all). With one shop that is the old rule: not ready while the shop does not answer or refuses
 * the token.
 */
export function everyShopFailing(shops: readonly ShopHealth[]): CheckResult {
  const failing = shops.filter((s) => s.health === 'failing');
  const ok = shops.filter((s) => s.health === 'ok').length;
  if (failing.length === 0) return { ok: true, detail: ok === 0 ? 'no request to a shop yet' : `${ok} of ${shops.length} shop(s) answer` };
  if (failing.length < shops.length) return { ok: true, detail: `${ok} of ${shops.length} shop(s) answer; failing: ${failing.map((s) => s.name).join(', ')}` };
  return { ok: false, detail: `every shop fails (${failing.map((s) => `${s.name}: ${s.lastError?.message ?? 'failing'}`).join('; ')}): check this machine's network, DNS and proxy` };
}

/**
 * A check over something asynchronous (the state database): each call starts a probe unless one
 * is under way and reports the last one's result, so /readyz answers at once. A probe that has not
 * answered within `timeoutMs` fails the check (a database that hangs is not ready).
 */
export function probedCheck(probe: () => Promise<unknown>, okDetail: string, options: { timeoutMs?: number; now?: () => number; failed?: (err: unknown) => string | undefined } = {}): () => CheckResult {
  const timeoutMs = options.timeoutMs ?? 5000;
  const now = options.now ?? Date.now;
  // A probe that names what is wrong (a full disk) says it; any other failure is an answer that did not come.
  const failedText = (err: unknown) => options.failed?.(err) ?? `does not answer: ${err instanceof Error ? err.message : String(err)}`;
  let last: CheckResult = { ok: true, detail: `${okDetail} (first check under way)` };
  let inFlightSince: number | undefined;
  return () => {
    if (inFlightSince === undefined) {
      inFlightSince = now();
      Promise.resolve().then(probe).then(
        () => (last = { ok: true, detail: okDetail }),
        (err: unknown) => (last = { ok: false, detail: failedText(err) }),
      ).finally(() => (inFlightSince = undefined));
    } else if (now() - inFlightSince > timeoutMs) {
      return { ok: false, detail: `no answer for ${Math.round((now() - inFlightSince) / 1000)} s` };
    }
    return last;
  };
}

/** Combine named checks into a report; a check that throws counts as failed. */
export function readiness(checks: Readonly<Record<string, () => CheckResult>>, shops?: () => readonly ShopHealth[]): ReadinessReport {
  const results: Record<string, CheckResult> = {};
  for (const [name, fn] of Object.entries(checks)) {
    try {
      results[name] = fn();
    } catch (err) {
      results[name] = { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }
  return { ready: Object.values(results).every((r) => r.ok), checks: results, ...(shops ? { shops: shops() } : {}) };
}
