/**
 * Everything a configured shopsync process holds open: the state, one client per configured shop,
 * the pipelines' event stream and metrics. The daemon and the one-off commands (sync, backfill,
 * dlq retry) all run pipelines through `Runtime.run`, so they behave the same.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedConfig, PipelineConfig } from '../config/index.js';
import { connectionOrigin, shopClientOptions, shopsOf } from '../config/index.js';
import { createSink, createSource } from '../erp/index.js';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';
import { loadMapping, type CompiledMapping } from '../mapping/index.js';
import { previewPipeline, retryDeadLetters, runPipeline, SyncEvents, type PipelineDeps, type PipelinePreview, type PreviewOptions, type RunOptions, type RunSummary } from '../pipeline/index.js';
import { createShopClient, openSharedRateLimits, rateCaps, type ClientEvent, type ShopClient, type SharedRateLimits } from '../shop/index.js';
import { openState, processAlive, type StateStore } from '../state/index.js';
import type { ReconcileReport } from '../reconcile/report.js';
import { ReportStore, reportsFolder } from '../reconcile/store.js';
import type { CursorTimes, Metrics } from './metrics.js';
import { uncountedMetrics } from './uncountedMetrics.js';
import { unbookedFigures } from './reservationMetrics.js';
import { followFigures } from './followFigures.js';
import { cursorTime } from '../erp/sql/lookback.js';
import { WATERMARK_LANE, watermarkView } from '../pipeline/sourceWatermark.js';
import { markCrashedRuns, runOwner } from '../pipeline/crashed.js';
import { trackShopHealth, type ShopHealth } from './shopHealth.js';
import { trackShopStreaks, type ShopStreakTracker } from './shopStreaks.js';
import { didYouMean } from '../util/suggest.js';
import { lookupConnections } from '../pipeline/lookups/index.js';

/** Options of `openRuntime`. */
export interface RuntimeOptions {
  readonly logger: Logger;
  /** Also observe client events (the demo shows them). */
  readonly onClientEvent?: (event: ClientEvent, shop: string) => void;
  /** Open a SQLite state that cannot be written read-only, with a warning, instead of failing (commands that only read). @default false */
  readonly readOnlyFallback?: boolean;
  /**
   * Count metrics (the daemon serves them on /metrics). A one-off command serves none and passes
   * false: then nothing is counted, `metrics.registry` throws, and prom-client is not loaded. @default true
   */
  readonly metrics?: boolean;
}

/** An open runtime. */
export interface Runtime {
  readonly loaded: LoadedConfig;
  readonly state: StateStore;
  /** One client per configured shop, by name (`shop:` is `default`). */
  readonly shops: ReadonlyMap<string, ShopClient>;
  /** The client of a pipeline's shop. */
  shopOf(pipeline: PipelineConfig): ShopClient;
  /** The client of a shop by name; throws UNKNOWN_SHOP naming the known ones. */
  shop(name: string): ShopClient;
  readonly events: SyncEvents;
  readonly metrics: Metrics;
  /** Each shop's health as this process's clients saw it, in config order (src/ops/shopHealth.ts). */
  shopHealth(): ShopHealth[];
  /** Each shop's failure streak and pause, counted from the runs that finish here (src/ops/shopStreaks.ts). */
  readonly streaks: ShopStreakTracker;
  readonly logger: Logger;
  /** A pipeline by name; throws UNKNOWN_PIPELINE naming the known ones. */
  pipeline(name: string): PipelineConfig;
  /** Run a pipeline once (sync, backfill or dry run). */
  run(name: string, options?: RunOptions): Promise<RunSummary>;
  /** The next records of a push pipeline after its cursor, mapped and compared with the shop; writes nothing (`previewPipeline`). */
  preview(name: string, options?: PreviewOptions): Promise<PipelinePreview>;
  /** Retry a push pipeline's dead letters (all, or these ids) through the current mapping. */
  retry(name: string, ids?: readonly number[]): Promise<RunSummary>;
  /** Where reconciliation reports are kept (`<state folder>/reconcile`). */
  readonly reports: ReportStore;
  /** Reconcile a push pipeline's ERP side with its shop (and repair the drift); saves the report. */
  reconcile(name: string, options?: { repair?: boolean; allowMassDelete?: boolean; signal?: AbortSignal }): Promise<ReconcileReport>;
  /** Mark runs left `running` by a dead process as crashed; returns how many. */
  markCrashedRuns(): Promise<number>;
  close(): Promise<void>;
}

/** The folder of the mappings shipped with shopsync (used when a pipeline names a bare file). */
export function shippedMappingsDir(): string {
  // Compiled, this file is dist/src/ops/runtime.js; run from source (tsx, vitest) src/ops/runtime.ts.
  const compiled = fileURLToPath(new URL('../../../mappings/', import.meta.url));
  const source = fileURLToPath(new URL('../../mappings/', import.meta.url));
  return !existsSync(compiled) && existsSync(source) ? source : compiled;
}

/**
 * Where a pipeline's mapping file is: as given, relative to the config, or among the shipped
 * mappings — named bare (`products.yaml`) or as the example config names them
 * (`mappings/products.yaml`), so a copied example works from any folder.
 */
export function resolveMappingPath(mapping: string, baseDir: string): string {
  if (isAbsolute(mapping)) return mapping;
  const local = resolve(baseDir, mapping);
  if (existsSync(local)) return local;
  const shippedDir = shippedMappingsDir();
  const inShipped = mapping.replace(/^(\.\/)?mappings[\\/]/, '');
  for (const candidate of [resolve(shippedDir, mapping), resolve(shippedDir, inShipped)]) {
    if (existsSync(candidate)) return candidate;
  }
  return local;
}

/** Cursor and watermark times of each pipeline, for /metrics. */
async function cursorTimesOf(state: StateStore, names: readonly string[]): Promise<Record<string, CursorTimes>> {
  const seconds = (v: unknown) => {
    const t = typeof v === 'string' || typeof v === 'number' ? cursorTime(v) : undefined;
    return t ? t.ms / 1000 : undefined;
  };
  const out: Record<string, CursorTimes> = {};
  for (const name of names) {
    const [cursor, lane] = await Promise.all([state.cursors.get(name), state.cursors.get(name, WATERMARK_LANE)]);
    const view = watermarkView(lane);
    out[name] = { cursorSeconds: seconds(cursor?.value), watermarkSeconds: view?.bound ? seconds(view.bound) : undefined, heldSeconds: view ? view.heldForSeconds : undefined };
  }
  return out;
}

/** Open state, shop client, events and metrics for a loaded config. */
export async function openRuntime(loaded: LoadedConfig, options: RuntimeOptions): Promise<Runtime> {
  const { config } = loaded;
  const logger = options.logger;
  const state = await openState(loaded.state, { logger, ...(options.readOnlyFallback ? { readOnlyFallback: true } : {}) });
  const names = config.pipelines.map((p) => p.name);
  const shops = new Map<string, ShopClient>();
  const metrics = options.metrics === false ? uncountedMetrics() : (await import('./metrics.js')).createMetrics({
    pipelines: names,
    shopOf: Object.fromEntries(config.pipelines.map((p) => [p.name, p.shop])),
    shopRates: () => Object.fromEntries([...shops].map(([name, client]) => [name, client.rate()])),
    deadLetters: async () => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await state.deadLetters.count(n)] as const))),
    conflicts: async () => Object.fromEntries(await state.conflicts.openCounts()),
    cursors: () => cursorTimesOf(state, names),
    reservedPipelines: config.pipelines.filter((p) => p.reservations).map((p) => p.name),
    unbooked: () => unbookedFigures(state, config.pipelines.filter((p) => p.reservations).map((p) => p.shop)),
    followedPipelines: config.pipelines.filter((p) => p.follow).map((p) => p.name),
    followed: () => followFigures(state, config.pipelines.filter((p) => p.follow).map((p) => p.name)),
  });
  const shopHealth = trackShopHealth(Object.keys(shopsOf(config)));
  const events = new SyncEvents();
  const streaks = trackShopStreaks({ state, events, settings: config.failingShops, shopOf: (p) => config.pipelines.find((q) => q.name === p)?.shop, logger });
  const throttled = events.clientObserver();
  // Several processes on one PostgreSQL state share each shop's rate limit (docs/shared-rate-limit.md).
  const sharedLimits: SharedRateLimits | undefined = loaded.state.kind === 'postgres' ? await openSharedRateLimits(loaded.state, { logger }) : undefined;
  for (const [name, shopConfig] of Object.entries(shopsOf(config))) {
    const shopLogger = logger.child({ shop: name });
    const clientOptions = shopClientOptions(shopConfig);
    if (!sharedLimits && shopConfig.rateLimit.shared === true) shopLogger.info('rateLimit.shared has no effect with a SQLite state: one process uses it, and its own limit applies');
    const caps = rateCaps(clientOptions.rateLimit);
    const sharedLimiter = sharedLimits && shopConfig.rateLimit.shared !== false ? await sharedLimits.forShop(name, { requests: caps.intervalCap, intervalMs: caps.intervalMs }) : undefined;
    shops.set(
      name,
      createShopClient({
        ...clientOptions,
        ...(sharedLimiter ? { sharedLimiter } : {}),
        logger: shopLogger,
        onEvent: (event) => {
          metrics.clientEvent(event, name);
          shopHealth.observe(name, event);
          throttled(event);
          options.onClientEvent?.(event, name);
        },
      }),
    );
  }
  const shop = (name: string): ShopClient => {
    const client = shops.get(name);
    if (!client) throw new StateError('UNKNOWN_SHOP', `no shop named "${name}"; known: ${[...shops.keys()].join(', ')}`);
    return client;
  };
  const shopOf = (p: PipelineConfig): ShopClient => shop(p.shop);
  // A record the source could not use counts as `unreadable`, so an alert on it needs no code list.
  events.on('record-settled', (e) => metrics.recordsSettled(e.pipeline, e.unreadable ? 'unreadable' : e.outcome));
  events.on('run-finished', (e) => metrics.runFinished(e.summary.pipeline, e.summary.status, new Date()));
  // An OAuth token endpoint refusing the client sends no API request: the run's error is all there is to see.
  events.on('run-finished', ({ summary: s }) => {
    const shopName = config.pipelines.find((p) => p.name === s.pipeline)?.shop;
    if (shopName && s.error?.code === 'UNAUTHORIZED' && shopHealth.of(shopName)?.tokenAccepted !== false) shopHealth.refused(shopName, s.error.code, s.error.message);
  });
  events.on('changes-delivered', (e) => metrics.changesDelivered(e.pipeline, e.seconds, e.skewed));
  // Seeds a gauge only: without metrics there is nothing to read the runs for.
  if (options.metrics !== false) {
    for (const run of await state.runs.latestByPipeline()) {
      if (run.status === 'succeeded' && run.finishedAt) metrics.lastSuccessAt(run.pipeline, new Date(run.finishedAt));
    }
  }
  const mappings = new Map<string, Promise<CompiledMapping>>();
  const reports = new ReportStore(reportsFolder(loaded.state, loaded.baseDir));

  const pipeline = (name: string): PipelineConfig => {
    const p = config.pipelines.find((q) => q.name === name);
    if (!p) {
      const broken = loaded.brokenShops.find((b) => b.pipelines.includes(name));
      if (broken) throw new StateError('UNKNOWN_PIPELINE', `pipeline ${name} does not run: its shop ${broken.name} is broken (${broken.file}:${broken.line}): ${broken.message}`);
      const near = didYouMean(name, names);
      throw new StateError('UNKNOWN_PIPELINE', `no pipeline named "${name}" in ${loaded.file}; known: ${names.join(', ') || '(none)'}${near ? `; did you mean "${near}"?` : ''}`);
    }
    return p;
  };

  const mappingOf = (p: PipelineConfig): Promise<CompiledMapping> => {
    let m = mappings.get(p.name);
    if (!m) {
      m = loadMapping(resolveMappingPath(p.mapping, loaded.baseDir), { maxFieldBytes: shopsOf(config)[p.shop]?.maxFieldBytes, vars: p.vars });
      m.catch(() => mappings.delete(p.name));
      mappings.set(p.name, m);
    }
    return m;
  };

  const depsFor = async (p: PipelineConfig): Promise<PipelineDeps> => {
    // runPipeline makes its own child logger per pipeline and run; connectors get one per pipeline.
    const ctx = { logger: logger.child({ pipeline: p.name }), baseDir: loaded.baseDir };
    const { connection: sourceConn, ...sourceCfg } = p.source ?? { connection: '' };
    const { connection: sinkConn, ...sinkCfg } = p.sink ?? { connection: '' };
    const index = config.pipelines.indexOf(p);
    return {
      state,
      shop: shopOf(p),
      mapping: await mappingOf(p),
      source: p.source ? () => createSource(config.connections[sourceConn], sourceCfg as never, { ...ctx, origin: connectionOrigin(loaded, sourceConn, { pipeline: index, side: 'source' }) }) : undefined,
      ...(p.lookups || p.reservations ? { lookups: () => lookupConnections(config.connections, ctx) } : {}),
      sink: p.sink ? () => createSink(config.connections[sinkConn], sinkCfg as never, { ...ctx, pipeline: p.name, origin: connectionOrigin(loaded, sinkConn, { pipeline: index, side: 'sink' }) }) : undefined,
      logger,
      events,
    };
  };

  return {
    loaded,
    state,
    shops,
    shop,
    shopOf,
    events,
    metrics,
    shopHealth: () => shopHealth.shopHealth(),
    streaks,
    logger,
    pipeline,
    async run(name, runOptions = {}) {
      const p = pipeline(name);
      return runPipeline(p, await depsFor(p), runOptions);
    },
    async preview(name, previewOptions = {}) {
      const p = pipeline(name);
      return previewPipeline(p, await depsFor(p), previewOptions);
    },
    async retry(name, ids) {
      const p = pipeline(name);
      return retryDeadLetters(p, await depsFor(p), ids ? { ids } : {});
    },
    reports,
    async reconcile(name, o = {}) {
      const p = pipeline(name);
      // The reconciliation itself loads when one runs: a sync never does.
      const { reconcilePipeline } = await import('../reconcile/run.js');
      return reconcilePipeline(p, await depsFor(p), { reports, ...o });
    },
    async markCrashedRuns() {
      let marked = 0;
      const here = hostname();
      for (const run of await state.runs.list({ status: 'running', limit: 1000 })) {
        if (run.host !== here || (run.pid !== undefined && processAlive(run.pid))) continue;
        try {
          const lock = await state.locks.acquire(run.lane);
          try {
            const n = await markCrashedRuns(state, run.lane, run.pipeline, events, runOwner(lock));
            if (n > 0) logger.warn({ pipeline: run.pipeline, runId: run.id, lane: run.lane }, 'marked a run left unfinished by a crashed process as crashed');
            marked += n;
          } finally {
            await lock.release();
          }
        } catch (err) {
          if (!(err instanceof StateError && err.code === 'LOCK_HELD')) throw err;
        }
      }
      return marked;
    },
    async close() {
      await streaks.stop();
      for (const client of shops.values()) await client.close();
      await sharedLimits?.close();
      await state.close();
    },
  };
}
