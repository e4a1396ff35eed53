/**
 * Prometheus metrics of one shopsync process (every series names its `shop`), on a registry of its own (never prom-client's
 * global one, so tests and embedded use can hold several). Fed by the shop client's `onEvent`
 * and the pipelines' event stream; dead letters are counted from the state at scrape time so
 * the gauge is right even after a restart or a retry from the CLI.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClientEvent } from '../shop/client/types.js';
import { SENT_WINDOW_SECONDS, type RateSnapshot } from '../shop/rate/index.js';
import { DEFAULT_SHOP } from '../state/index.js';
import { LATENCY_BUCKETS } from '../pipeline/latency.js';
import { registerErpQueryMetrics } from '../erp/sql/sharedReadMetrics.js';
import type { UnbookedFigures } from './reservationMetrics.js';
import type { FollowFigures } from './followFigures.js';
import { registerFollowGauges } from './followMetrics.js';

/** Metric families and the hooks that feed them. */
export interface Metrics {
  readonly registry: Registry;
  /** Feed an event of a shop's client (request latency, 429s, queue depth). */
  clientEvent(event: ClientEvent, shop?: string): void;
  /** Count settled records of a pipeline by outcome (created, updated, unchanged, failed…). */
  recordsSettled(pipeline: string, outcome: string, count?: number): void;
  /** A run finished with `status`; successful runs stamp the last-success time. */
  runFinished(pipeline: string, status: string, at: Date): void;
  /** Seed the last-success time from the state (after a restart). */
  lastSuccessAt(pipeline: string, at: Date): void;
  /** Records a pipeline delivered, with their change latency in seconds (clamped at 0); `skewed` of them were stamped after the shop's answer. */
  changesDelivered(pipeline: string, seconds: readonly number[], skewed?: number): void;
  /** A scheduled tick was skipped because the previous run was still going. */
  tickSkipped(pipeline: string): void;
  /** Text exposition for /metrics. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** A pipeline's cursor and watermark as times. */
export interface CursorTimes {
  readonly cursorSeconds?: number;
  readonly watermarkSeconds?: number;
  readonly heldSeconds?: number;
}

/** Options of `createMetrics`. */
export interface MetricsOptions {
  /** Dead letters per pipeline, read when scraped. */
  readonly deadLetters?: () => Promise<Readonly<Record<string, number>>> | Readonly<Record<string, number>>;
  /** Open field conflicts (`owner: guard`) per pipeline, read when scraped; pipelines without any are 0. */
  readonly conflicts?: () => Promise<Readonly<Record<string, number>>>;
  /** Per pipeline, read when scraped: the stored cursor and the source's watermark as Unix seconds (timestamp cursors), and how long an open ERP transaction held it. */
  readonly cursors?: () => Promise<Readonly<Record<string, CursorTimes>>>;
  /** Pipelines known up front, so their series exist (at 0) before the first run. */
  readonly pipelines?: readonly string[];
  /** The shop of each pipeline (the `shop` label); pipelines not named here are the `default` shop's. */
  readonly shopOf?: Readonly<Record<string, string>>;
  /** Each shop client's current limits, read when scraped. */
  readonly shopRates?: () => Readonly<Record<string, RateSnapshot | undefined>>;
  /** Pipelines with `reservations:` (issue 43); their shops' unbooked orders are read when scraped. */
  readonly reservedPipelines?: readonly string[];
  /** Per shop, the orders the ERP has not booked (`unbookedFigures`), read when scraped. */
  readonly unbooked?: () => Promise<Readonly<Record<string, UnbookedFigures>>>;
  /** Pipelines with `follow:` (issue 44); their followed orders are read when scraped. */
  readonly followedPipelines?: readonly string[];
  /** Per pipeline with `follow:`, its followed orders (`followFigures`), read when scraped. */
  readonly followed?: () => Promise<Readonly<Record<string, FollowFigures>>>;
  /** Include process metrics (CPU, memory, event loop lag). @default true */
  readonly processMetrics?: boolean;
}

/** Create the metrics of one process. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'shopsync_' });
  registerErpQueryMetrics(registry);

  const records = new Counter({
    name: 'shopsync_records_total',
    help: 'Records settled by pipelines, by outcome (created, updated, unchanged, failed, dead-lettered, unreadable: the source could not use the record, delivered…)',
    labelNames: ['shop', 'pipeline', 'outcome'] as const,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'shopsync_runs_total',
    help: 'Finished pipeline runs by status (succeeded, partial, failed, aborted)',
    labelNames: ['shop', 'pipeline', 'status'] as const,
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: 'shopsync_last_success_timestamp_seconds',
    help: 'Unix time of the last successful run per pipeline (alert when it stops moving)',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'shopsync_skipped_ticks_total',
    help: 'Scheduled runs skipped because the previous run of the pipeline was still in progress',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'shopsync_shop_request_duration_seconds',
    help: 'Shop API request latency by resource, method and HTTP status (network = no answer)',
    labelNames: ['shop', 'resource', 'method', 'status'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const changeLatency = new Histogram({
    name: 'shopsync_change_latency_seconds',
    help: 'Change timestamp of a delivered record (its timestamp cursor) to the shop\'s answer to the write that carried it; incremental syncs only, unchanged records not counted',
    labelNames: ['shop', 'pipeline'] as const,
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  });
  const changeSkew = new Counter({
    name: 'shopsync_change_latency_skew_total',
    help: 'Delivered records whose change timestamp lay after the shop\'s answer (the ERP clock ahead of this host, or a naive timestamp read in the wrong zone); counted as 0 in shopsync_change_latency_seconds',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
  });
  const throttled = new Counter({
    name: 'shopsync_shop_throttled_total',
    help: 'Shop answers 429 (rate limited), by resource',
    labelNames: ['shop', 'resource'] as const,
    registers: [registry],
  });
  const queue = new Gauge({
    name: 'shopsync_shop_queue_depth',
    help: 'Shop requests waiting (state=waiting) and in flight (state=running) in the rate-limited queue',
    labelNames: ['shop', 'state'] as const,
    registers: [registry],
  });
  const sharedWaits = new Counter({
    name: 'shopsync_shop_rate_waits_total',
    help: 'Shop requests that waited for the rate limit shared by all replicas (used up by them together, or paused after a 429)',
    labelNames: ['shop'] as const,
    registers: [registry],
  });
  const sharedWaitSeconds = new Counter({
    name: 'shopsync_shop_rate_wait_seconds_total',
    help: 'Time shop requests waited for the rate limit shared by all replicas',
    labelNames: ['shop'] as const,
    registers: [registry],
  });
  const sharedPauses = new Counter({
    name: 'shopsync_shop_shared_pauses_total',
    help: 'Pauses this process took because another replica met a 429 of the shop',
    labelNames: ['shop'] as const,
    registers: [registry],
  });
  const shopOf = (pipeline: string) => options.shopOf?.[pipeline] ?? DEFAULT_SHOP;
  const shopRates = options.shopRates;
  new Gauge({
    name: 'shopsync_shop_rate_requests_per_second',
    help: 'Requests per second the shop client allows now, not traffic (adaptive: what it learnt, the hard cap before any 429; fixed: the configured rate, lower after 429)',
    labelNames: ['shop'] as const,
    registers: [registry],
    collect() {
      for (const [shop, rate] of Object.entries(shopRates?.() ?? {})) if (rate) this.set({ shop }, rate.requestsPerSecond);
    },
  });
  new Gauge({
    name: 'shopsync_shop_rate_sent_per_second',
    help: 'Requests per second the shop client actually sent, averaged over the last minute (beside the allowed rate of shopsync_shop_rate_requests_per_second)',
    labelNames: ['shop'] as const,
    registers: [registry],
    collect() {
      for (const [shop, rate] of Object.entries(shopRates?.() ?? {})) if (rate?.sent) this.set({ shop }, rate.sent.lastMinute / SENT_WINDOW_SECONDS);
    },
  });
  new Gauge({
    name: 'shopsync_shop_rate_concurrency',
    help: 'Shop requests the client allows in flight now',
    labelNames: ['shop'] as const,
    registers: [registry],
    collect() {
      for (const [shop, rate] of Object.entries(shopRates?.() ?? {})) if (rate) this.set({ shop }, rate.concurrency);
    },
  });
  const deadLetterSource = options.deadLetters;
  const known = new Set(options.pipelines ?? []);
  new Gauge({
    name: 'shopsync_dead_letters',
    help: 'Dead letters waiting to be retried or dropped, per pipeline',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
    async collect() {
      if (!deadLetterSource) return;
      const counts = await deadLetterSource();
      this.reset();
      for (const p of known) this.set({ shop: shopOf(p), pipeline: p }, counts[p] ?? 0);
      for (const [p, n] of Object.entries(counts)) this.set({ shop: shopOf(p), pipeline: p }, n);
    },
  });
  const conflictSource = options.conflicts;
  new Gauge({
    name: 'shopsync_open_conflicts',
    help: 'Guarded fields the shop changed and shopsync left as the shop has them, waiting for a person (take ERP / keep shop), per pipeline',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
    async collect() {
      if (!conflictSource) return;
      const counts = await conflictSource();
      this.reset();
      for (const p of known) this.set({ shop: shopOf(p), pipeline: p }, counts[p] ?? 0);
      for (const [p, n] of Object.entries(counts)) this.set({ shop: shopOf(p), pipeline: p }, n);
    },
  });
  const cursorSource = options.cursors;
  let cursorRead: Promise<Readonly<Record<string, CursorTimes>>> | undefined;
  // The three gauges read the state once per scrape between them.
  const cursorTimes = (): Promise<Readonly<Record<string, CursorTimes>>> => {
    const empty: Readonly<Record<string, CursorTimes>> = {};
    cursorRead ??= (cursorSource?.() ?? Promise.resolve(empty)).finally(() => setTimeout(() => (cursorRead = undefined), 0));
    return cursorRead;
  };
  const timeGauge = (name: string, help: string, pick: (t: CursorTimes) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['shop', 'pipeline'] as const,
      registers: [registry],
      async collect() {
        if (!cursorSource) return;
        this.reset();
        for (const [p, t] of Object.entries(await cursorTimes())) {
          const v = pick(t);
          if (v !== undefined) this.set({ shop: shopOf(p), pipeline: p }, v);
        }
      },
    });
  timeGauge('shopsync_cursor_timestamp_seconds', 'The stored incremental cursor as Unix time (timestamp cursors only): how far the ERP has been read', (t) => t.cursorSeconds);
  timeGauge('shopsync_source_watermark_timestamp_seconds', 'The ERP database\'s safe watermark at the last run (the oldest open transaction\'s start): the cursor never moves past it', (t) => t.watermarkSeconds);
  timeGauge('shopsync_source_watermark_held_seconds', 'How long the oldest open ERP transaction had been open at the last run (0: none); it holds the cursor back and alerts after alerts.watermarkHeldMinutes', (t) => t.heldSeconds);
  const unbookedSource = options.unbooked;
  const reservedPipelines = options.reservedPipelines ?? [];
  let unbookedRead: Promise<Readonly<Record<string, UnbookedFigures>>> | undefined;
  // The three gauges read the ledger once per scrape between them.
  const unbookedNow = (): Promise<Readonly<Record<string, UnbookedFigures>>> => {
    unbookedRead ??= (unbookedSource?.() ?? Promise.resolve({})).finally(() => setTimeout(() => (unbookedRead = undefined), 0));
    return unbookedRead;
  };
  new Gauge({
    name: 'shopsync_reserved_units',
    help: 'Units a stock push subtracts now from the ERP\'s figure: shop orders the ERP has not booked yet (the shop\'s ledger, the same for every stock push of the shop)',
    labelNames: ['shop', 'pipeline'] as const,
    registers: [registry],
    async collect() {
      if (!unbookedSource) return;
      const figures = await unbookedNow();
      this.reset();
      for (const p of reservedPipelines) this.set({ shop: shopOf(p), pipeline: p }, figures[shopOf(p)]?.units ?? 0);
    },
  });
  const shopGauge = (name: string, help: string, pick: (f: UnbookedFigures) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['shop'] as const,
      registers: [registry],
      async collect() {
        if (!unbookedSource) return;
        this.reset();
        for (const [shop, f] of Object.entries(await unbookedNow())) this.set({ shop }, pick(f));
      },
    });
  shopGauge('shopsync_unbooked_orders', 'Shop orders that booked stock in the shop and that the ERP has not booked yet', (f) => f.orders);
  shopGauge('shopsync_unbooked_oldest_seconds', 'How long the oldest unbooked order has waited for the ERP to book it, since shopsync first read it (0: none); alerts as STOCK_UNBOOKED_STUCK after reservations.alertAfter', (f) => f.oldestSeconds);
  const followedSource = options.followed;
  if (followedSource) registerFollowGauges(registry, { pipelines: options.followedPipelines ?? [], shopOf, figures: followedSource });
  for (const p of known) records.inc({ shop: shopOf(p), pipeline: p, outcome: 'failed' }, 0);

  return {
    registry,
    contentType: registry.contentType,
    clientEvent(event, shop = DEFAULT_SHOP) {
      if (event.type === 'request') {
        latency.observe({ shop, resource: event.resource, method: event.method, status: String(event.status) }, event.durationMs / 1000);
        if (event.status === 429) throttled.inc({ shop, resource: event.resource });
      } else if (event.type === 'queue') {
        queue.set({ shop, state: 'waiting' }, event.size);
        queue.set({ shop, state: 'running' }, event.pending);
      } else if (event.type === 'shared-wait') {
        sharedWaits.inc({ shop });
        sharedWaitSeconds.inc({ shop }, event.waitedMs / 1000);
      } else if (event.type === 'shared-pause') {
        sharedPauses.inc({ shop });
      }
      // `throttled` events repeat what the 429 request event already counted.
    },
    recordsSettled(pipeline, outcome, count = 1) {
      records.inc({ shop: shopOf(pipeline), pipeline, outcome }, count);
    },
    runFinished(pipeline, status, at) {
      runs.inc({ shop: shopOf(pipeline), pipeline, status });
      if (status === 'succeeded') lastSuccess.set({ shop: shopOf(pipeline), pipeline }, Math.floor(at.getTime() / 1000));
    },
    lastSuccessAt(pipeline, at) {
      lastSuccess.set({ shop: shopOf(pipeline), pipeline }, Math.floor(at.getTime() / 1000));
    },
    changesDelivered(pipeline, seconds, skewed = 0) {
      const labels = { shop: shopOf(pipeline), pipeline };
      for (const s of seconds) changeLatency.observe(labels, s);
      if (skewed > 0) changeSkew.inc(labels, skewed);
    },
    tickSkipped(pipeline) {
      skipped.inc({ shop: shopOf(pipeline), pipeline });
    },
    render() {
      return registry.metrics();
    },
  };
}
