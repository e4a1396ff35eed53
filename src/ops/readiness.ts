/**
 * What /readyz checks: whether this process can do its work — the state database answers, the
 * job engine runs (replicas) — and, with `daemon.readyNeedsShop`, that not every shop is failing
 * (then the fault is likely on this side: its network, its DNS, its proxy). One shop that is down
 * is that shop's problem, not this replica's: it is reported per shop (shopHealth.ts), never as a
 * check that flips with whichever shop the last request went to.
 */
import type { OverdueLane } from '../pipeline/overdue.js';
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
  /**
   * Scheduled lanes that stopped starting runs (overdue) or hold a run nobody finishes (stuck):
   * details, deciding nothing. A lane is the deployment's, not this replica's: every replica would
   * report it alike, and taking replicas out of service (or restarting them) does not start it.
   * Absent when the state did not answer in time (the `state` check says so).
   */
  readonly overdue?: readonly OverdueLane[];
}

/** Details of the report beside the checks. */
export interface ReadinessDetails {
  readonly shops?: () => readonly ShopHealth[];
  readonly overdue?: () => Promise<readonly OverdueLane[]>;
  /** How long the details may take before the report goes without them. @default 5000 */
  readonly timeoutMs?: number;
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

/** Options of `probedCheck`. */
export interface ProbeOptions {
  /** A probe that has not answered this long fails the check (a database that hangs is not ready). @default 5000 */
  readonly timeoutMs?: number;
  /** A probe's result answers the checks that come within this long after it; a later check probes again. @default 5000 */
  readonly intervalMs?: number;
  /** Milliseconds on a clock that runs on while the process is frozen. @default performance.now */
  readonly now?: () => number;
  /** What a failed probe says, when the failure names its cause (a full disk); otherwise "does not answer: …". */
  readonly failed?: (err: unknown) => string | undefined;
}

/**
 * A check over something asynchronous (the state database). A result younger than `intervalMs`
 * answers at once; an older one is not reused: the probe runs now (one at a time; checks that come
 * meanwhile wait for the same one), limited to `timeoutMs`. So a process frozen for an hour (SIGSTOP,
 * a paused VM) answers its first /readyz after waking with what the database says then, not with
 * the "ready" it found before the freeze. The age is measured on the monotonic clock, which a
 * stepped wall clock does not move and a frozen process does not stop.
 */
export function probedCheck(probe: () => Promise<unknown>, okDetail: string, options: ProbeOptions = {}): () => Promise<CheckResult> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 5000;
  const now = options.now ?? (() => performance.now());
  let last: { readonly result: CheckResult; readonly at: number } | undefined;
  let inFlight: { readonly answer: Promise<CheckResult>; readonly since: number } | undefined;
  const start = (): { answer: Promise<CheckResult>; since: number } => {
    const since = now();
    const answer = Promise.resolve()
      .then(probe)
      .then(
        (): CheckResult => ({ ok: true, detail: okDetail }),
        (err: unknown): CheckResult => ({ ok: false, detail: options.failed?.(err) ?? `does not answer: ${err instanceof Error ? err.message : String(err)}` }),
      )
      .then((result) => {
        last = { result, at: now() };
        return result;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return { answer, since };
  };
  return async () => {
    if (last && now() - last.at < intervalMs) return last.result;
    const probing = (inFlight ??= start());
    const waitedMs = now() - probing.since;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckResult>((resolve) => {
      // Only bounds this answer; the probe itself goes on and its result serves the next check.
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer for ${Math.round((now() - probing.since) / 1000)} s` }), Math.max(0, timeoutMs - waitedMs));
    });
    try {
      return await Promise.race([probing.answer, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Combine named checks into a report; a check that throws (or rejects) counts as failed. */
export async function readiness(checks: Readonly<Record<string, () => CheckResult | Promise<CheckResult>>>, details: ReadinessDetails | (() => readonly ShopHealth[]) = {}): Promise<ReadinessReport> {
  const d: ReadinessDetails = typeof details === 'function' ? { shops: details } : details;
  const [entries, overdue] = await Promise.all([
    Promise.all(
      Object.entries(checks).map(async ([name, fn]): Promise<[string, CheckResult]> => {
        try {
          return [name, await fn()];
        } catch (err) {
          return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }];
        }
      }),
    ),
    d.overdue ? withinTime(d.overdue(), d.timeoutMs ?? 5000) : Promise.resolve(undefined),
  ]);
  const results: Record<string, CheckResult> = Object.fromEntries(entries);
  return { ready: Object.values(results).every((r) => r.ok), checks: results, ...(d.shops ? { shops: d.shops() } : {}), ...(overdue ? { overdue } : {}) };
}

/** The value, or undefined when it fails or takes longer than `ms` (a detail must not hold the probe up). */
async function withinTime<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
