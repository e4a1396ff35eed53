/** What every page renderer receives. */
import type { StateStore, RunRecord } from '../../state/index.js';
import type { DashboardBrokenShop, DashboardPipeline, DashboardShopHealth, DashboardTrigger } from '../types.js';
import type { RateSnapshot } from '../../shop/rate/index.js';
import type { ReplicasOverview } from '../../jobs/overview.js';

/** Per-request rendering context. */
export interface PageContext {
  readonly state: StateStore;
  readonly pipelines: readonly DashboardPipeline[];
  /** Each shop client's current limits, by shop name, when the daemon has clients. */
  readonly shopRates?: () => Readonly<Record<string, RateSnapshot>>;
  /** Each shop's health, when the daemon tracks it. */
  readonly shopHealth?: () => readonly DashboardShopHealth[];
  /** Shops whose file did not load. */
  readonly brokenShops?: readonly DashboardBrokenShop[];
  /** The pipelines' triggers, when the daemon runs them. */
  readonly triggers?: () => readonly DashboardTrigger[];
  /** Minutes without a successful run after which a scheduled pipeline is stale (failing). */
  readonly staleAfterMinutes?: number;
  /** Replicas and jobs, when the daemon runs as replicas. */
  readonly replicas?: () => Promise<ReplicasOverview>;
  readonly csrfToken: string;
  readonly now: Date;
  /** Query-string parameters (first value of each). */
  readonly query: Readonly<Record<string, string | undefined>>;
}

/** A rendered page body plus what the frame needs to know. */
export interface PageResult {
  readonly title: string;
  readonly nav: string;
  readonly body: import('../html.js').SafeHtml;
  readonly running?: boolean;
  /** Whether the page follows live progress. @default true */
  readonly live?: boolean;
  readonly status?: number;
}

/** Duration of a run in ms (up to now while it runs). */
export function runDurationMs(run: RunRecord, now: Date): number {
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now.getTime();
  return end - Date.parse(run.startedAt);
}

/** A date from an ISO string, undefined when absent. */
export function dateOf(isoText: string | undefined): Date | undefined {
  return isoText ? new Date(isoText) : undefined;
}

/** A readable line for a run-level error stored as JSON. */
export function runErrorLine(error: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!error) return undefined;
  const code = typeof error.code === 'string' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  return code ? `[${code}] ${message}` : message;
}
