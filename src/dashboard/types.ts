/**
 * The dashboard's contract with the daemon: what it needs to show and act.
 *
 * Glossary (as in the state store): a *run* is one execution of a pipeline; an *event* is what
 * happened to one record in one run; a *dead letter* is a failed record kept until retried or dropped.
 */
import type { Logger } from '../log.js';
import type { SyncEvent, SyncEvents } from '../pipeline/events.js';
import type { PipelinePreview, PreviewOptions } from '../pipeline/preview.js';
import type { StateStore } from '../state/index.js';
import type { RateSnapshot } from '../shop/rate/index.js';
import type { ReplicasOverview } from '../jobs/overview.js';
import type { ReconcileReport } from '../reconcile/report.js';
import type { TriggerStatus } from '../triggers/types.js';

/** Where the dashboard reads reconciliation reports (`ReportStore`). */
export interface ReconcileReports {
  /** Report ids of a pipeline, newest first. */
  ids(pipeline: string): Promise<string[]>;
  read(pipeline: string, id: string): Promise<ReconcileReport | undefined>;
  latest(pipeline: string): Promise<ReconcileReport | undefined>;
  /** The CSV file of a report, when it exists. */
  csvFile(pipeline: string, id: string): Promise<string | undefined>;
}

/** A pipeline as the dashboard lists it. */
export interface DashboardPipeline {
  readonly name: string;
  /** The shop the pipeline writes to or reads from. @default 'default' */
  readonly shop?: string;
  /** Shop resource the pipeline writes or reads (products, orders…). */
  readonly resource?: string;
  /** `push` (ERP → shop) or `pull` (shop → ERP). */
  readonly direction: string;
  /** Cron expression the daemon runs it on, when scheduled. */
  readonly schedule?: string;
  /** The zone its schedule runs in (the pipeline's, else the config's); absent: the process's. */
  readonly timezone?: string;
  /** Cron expression of its reconciliation, when scheduled. */
  readonly reconcileSchedule?: string;
  /** A stock push's `reservations:` (issue 43): the record page shows its article's unbooked orders. */
  readonly reservations?: { readonly alertAfterMs: number; readonly warehouse?: number };
  /** A pull's `follow:` (issue 44): its page and card show the orders it still follows. */
  readonly follow?: { readonly everyMs: number; readonly until: readonly number[]; readonly maxAgeDays: number };
  /** When the scheduler will run it next; undefined when unscheduled or stopped. */
  nextRun(): Date | undefined;
}

/** One shop's health as the daemon's clients saw it (`runtime.shopHealth()`, src/ops/shopHealth.ts). */
export interface DashboardShopHealth {
  readonly name: string;
  /** `ok`: the last answer proved the shop is there and takes the credentials; `failing`: it did not; `unknown`: no request yet. */
  readonly health: 'ok' | 'failing' | 'unknown';
  /** Whether the last request got an answer; null before the first. */
  readonly reachable: boolean | null;
  /** Whether the shop last took the credentials; null until an answer told. */
  readonly tokenAccepted: boolean | null;
  readonly lastRequestAt: string | null;
  /** Last answer that proved the shop there and the credentials good. */
  readonly lastSuccessAt: string | null;
  /** Since when every request failed; null while ok. */
  readonly failingSince?: string | null;
  readonly lastError: { readonly message: string; readonly at: string } | null;
}

/** A shop whose shops.d file did not load (`loaded.brokenShops`): its pipelines run nowhere. */
export interface DashboardBrokenShop {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly message: string;
  readonly pipelines: readonly string[];
}

/** One trigger of a pipeline as the daemon reports it (`daemon.triggers()?.status()`, src/triggers). */
export type DashboardTrigger = TriggerStatus;

/** A progress notice the dashboard relays to open pages (run started, record settled, run finished…). */
export interface DashboardNotice {
  readonly type: string;
  readonly pipeline?: string;
  readonly runId?: number;
}

/** Where progress notices come from: returns an unsubscribe function. */
export type DashboardSubscribe = (listener: (notice: DashboardNotice) => void) => () => void;

/** Everything `registerDashboard` needs. */
export interface DashboardDeps {
  readonly state: StateStore;
  readonly pipelines: readonly DashboardPipeline[];
  /** Start a run of a pipeline now; resolves when the run has finished. */
  runNow(name: string): Promise<unknown>;
  /** Retry dead letters by id, or all of them; resolves when the retries have settled. */
  retryDeadLetters(ids: readonly number[] | 'all'): Promise<unknown>;
  /** Drop dead letters by id, or all of them. */
  dropDeadLetters(ids: readonly number[] | 'all'): Promise<unknown>;
  /**
   * The next records of a push pipeline beside their payload, diff and findings, by a read-only
   * dry run (`previewPipeline`); without it the preview page says the dashboard has none.
   */
  preview?(name: string, options: PreviewOptions): Promise<PipelinePreview>;
  /** Reconciliation reports (the Reconcile page); without them the page says there are none. */
  readonly reports?: ReconcileReports;
  /** The pipelines' event stream; open pages re-render when runs progress. */
  readonly events: Pick<SyncEvents, 'onAny'>;
  /** Each shop client's allowed rate and concurrency (adaptive or fixed) and what it actually sent (`sent`), by shop name. */
  readonly shopRates?: () => Readonly<Record<string, RateSnapshot>>;
  /** Each shop's health as this process's clients saw it; without it the shops page derives what it can from the runs. */
  readonly shopHealth?: () => readonly DashboardShopHealth[];
  /** Shops whose file did not load: the shops page shows a row for each, with the message. */
  readonly brokenShops?: readonly DashboardBrokenShop[];
  /** The pipelines' triggers and whether each is up; the overview's cards show them. */
  readonly triggers?: () => readonly DashboardTrigger[];
  /** A scheduled pipeline without a successful run for this long is failing (`alerts.staleAfterMinutes`). @default 120 */
  readonly staleAfterMinutes?: number;
  /** Replicas and jobs (a daemon on a PostgreSQL state); the overview shows them. */
  readonly replicas?: () => Promise<ReplicasOverview>;
  /** Dashboard token; required when `host` is not a loopback address. */
  readonly token?: string;
  /** How long a sign-in lasts (when the dashboard is mounted without the ops server, which decides otherwise). @default 12 h */
  readonly sessionLifetimeMs?: number;
  /** Address the daemon binds to, checked against `token`. @default '127.0.0.1' */
  readonly host?: string;
  readonly logger?: Logger;
}

/** The notice a sync event becomes for open pages (undefined: nothing a page shows changed). */
export function noticeOf(event: SyncEvent): DashboardNotice | undefined {
  switch (event.type) {
    case 'run-finished':
      return { type: event.type, pipeline: event.summary.pipeline, runId: event.summary.runId };
    case 'reconcile-finished':
      return { type: event.type, pipeline: event.pipeline };
    case 'run-started':
    case 'record-settled':
    case 'checkpoint':
    case 'batch-sent':
      return { type: event.type, pipeline: event.pipeline, runId: event.runId };
    default:
      return undefined;
  }
}
