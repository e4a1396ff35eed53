/**
 * Why an incident is open, when the reason concerns a shop as a whole: the one table that says
 * which run errors mean which cause, which shop-level incident holds the pipelines failing for it,
 * how that incident is titled, what ends it, and which setting to fix. A pipeline's incident
 * (`run-failed`, `stale`, `pipeline-overdue`) with one of these causes is folded into its shop's
 * incident of the cause (grouping.ts) instead of sending a message of its own; a pipeline failing
 * for any other reason has no cause here (its own) and alerts on its own.
 */
import { SHOP_FAILURE_CODES } from '../shop/index.js';
import type { IncidentKind } from './incidents.js';
import type { AlertShops } from './shops.js';

/** A reason that concerns a whole shop. */
export type Cause = 'auth' | 'unreachable' | 'circuit-open' | 'paused' | 'failing';

/** One row of the table. */
export interface CauseEntry {
  /** Run error codes that mean this cause. */
  readonly codes: readonly string[];
  /** The shop-level incident (`<kind>:<shop>`) that holds the pipelines failing for it. */
  readonly kind: IncidentKind;
  /** A pipeline's incident of this cause opens the shop's incident; false: it only joins one the shop checks opened (src/alerts/shopStreaks.ts), else it alerts on its own. */
  readonly opensOnRun: boolean;
  /** An open shop incident of one of these causes holds it first: the breaker opens because the shop was unreachable, one cause, one message. */
  readonly within?: readonly Cause[];
  /**
   * What a run of the shop that worked, and asked the shop at least once, does to the incident: `any-run` resolves it (the shop
   * answers); `each-pipeline` resolves it unless another of the shop's pipelines failed for this
   * cause in its last run (a token lacking one pipeline's scope); absent: only the shop checks do.
   */
  readonly resolvedByRun?: 'any-run' | 'each-pipeline';
  /** The firing title. */
  firing(label: string): string;
  /** The recovery title. */
  resolved(label: string): string;
  /** The sentence naming the setting to fix, where there is one. */
  fix?(shops: AlertShops, shop: string): string;
}

const AUTH = ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE'];
const UNREACHABLE = ['NETWORK_ERROR', 'SHOP_UNAVAILABLE'];
const CIRCUIT = ['SHOP_CIRCUIT_OPEN'];

/** The causes. */
export const CAUSES: Readonly<Record<Cause, CauseEntry>> = {
  auth: {
    codes: AUTH,
    kind: 'shop-auth',
    opensOnRun: true,
    resolvedByRun: 'each-pipeline',
    firing: (label) => `${label} refuses shopsync's credentials`,
    resolved: (label) => `${label} accepts shopsync's credentials again`,
    fix: (shops, shop) => `Check ${shops.credentials(shop)} and the token's scopes.`,
  },
  unreachable: {
    // No answer at all, or 5xx after every retry (the shop's own retry streak).
    codes: UNREACHABLE,
    kind: 'shop-unreachable',
    opensOnRun: true,
    resolvedByRun: 'any-run',
    firing: (label) => `${label} is unreachable`,
    resolved: (label) => `${label} answers again`,
    fix: (shops, shop) => `Check ${shops.url(shop)} (the shop's API root) and that the shop is up and reachable from here.`,
  },
  'circuit-open': {
    codes: CIRCUIT,
    kind: 'shop-circuit-open',
    opensOnRun: true,
    within: ['unreachable'],
    resolvedByRun: 'any-run',
    firing: (label) => `${label}: circuit breaker open`,
    resolved: (label) => `${label}: circuit breaker closed again`,
    fix: (shops, shop) => `Nothing is sent to the shop until the breaker's probe is answered (docs/operations.md, Circuit breaker); check ${shops.url(shop)} and that the shop is up.`,
  },
  paused: {
    // Not a run's error: the streak check opens `shop-paused` (src/alerts/shopStreaks.ts); a paused shop's pipelines that go stale join it.
    codes: [],
    kind: 'shop-paused',
    opensOnRun: false,
    firing: (label) => `${label} is paused: it kept failing`,
    resolved: (label) => `${label} is no longer paused`,
  },
  failing: {
    // The rest of what counts towards a shop's failure streak (429 beyond the retries, a lost answer, the token endpoint): held by `shop-failing` once the streak opened it.
    codes: [...SHOP_FAILURE_CODES].filter((c) => ![...AUTH, ...UNREACHABLE, ...CIRCUIT].includes(c)),
    kind: 'shop-failing',
    opensOnRun: false,
    firing: (label) => `${label} keeps failing`,
    resolved: (label) => `${label} works again`,
  },
};

/** The cause of a run's error code; undefined: the pipeline's own. */
export function causeOf(code: string | undefined): Cause | undefined {
  if (code === undefined) return undefined;
  return (Object.keys(CAUSES) as Cause[]).find((c) => CAUSES[c].codes.includes(code));
}

/** The cause whose shop-level incident is of this kind, if any. */
export function causeOfKind(kind: string): Cause | undefined {
  return (Object.keys(CAUSES) as Cause[]).find((c) => CAUSES[c].kind === kind);
}
