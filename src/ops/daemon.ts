/**
 * The long-lived `shopsync run` process: scheduler + HTTP server (dashboard, /healthz, /readyz,
 * /metrics) around one runtime. Closing stops the clock, lets in-flight runs checkpoint within
 * the grace period, stops the server and closes the state database — in reverse order of opening.
 */
import type { FastifyInstance } from 'fastify';
import type { LoadedConfig } from '../config/index.js';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import { createScheduler, type CloseResult, type SchedulablePipeline, type Scheduler } from '../scheduler/index.js';
import { readiness } from './readiness.js';
import { openRuntime, type Runtime } from './runtime.js';
import { startAlerts } from '../alerts/index.js';
import { startRetention } from './retention.js';
import { startOpsServer, type OpsServer } from './server.js';
import { dashboardDeps } from './dashboard.js';

/** Options of `startDaemon`. */
export interface DaemonOptions {
  readonly logger: Logger;
  /** Override dashboard.port (the demo picks free ports). */
  readonly port?: number;
  /** Override dashboard.host. */
  readonly host?: string;
  /** Serve the dashboard. @default dashboard.enabled */
  readonly dashboard?: boolean;
  /** Start the clock at once; false = the caller calls `startSchedule()` (the demo runs a first pass in order). @default true */
  readonly startSchedule?: boolean;
  /** Reported by /healthz. */
  readonly version?: string;
  /** Extra routes on the same server. */
  readonly register?: (app: FastifyInstance) => Promise<void> | void;
}

/** A running daemon. */
export interface Daemon {
  readonly url: string;
  readonly runtime: Runtime;
  readonly scheduler: Scheduler;
  readonly server: OpsServer;
  /** Start the clock (when `startSchedule: false` was given). */
  startSchedule(): void;
  /** Stop: scheduler (with grace), server, runtime. */
  close(): Promise<CloseResult>;
}

/** What a scheduler job runs: a pipeline's sync, its complete read (`completeSchedule`) or its reconciliation (`reconcile.schedule`). */
export type JobKind = 'sync' | 'complete' | 'reconcile';

/** The scheduler's jobs: each pipeline under its name, complete reads as `<name>#complete`, reconciliations as `<name>#reconcile`. */
export function scheduledJobs(pipelines: LoadedConfig['config']['pipelines']): SchedulablePipeline[] {
  return pipelines.flatMap((p) => [
    { name: p.name, ...(p.schedule ? { schedule: p.schedule } : {}), ...(p.timezone ? { timezone: p.timezone } : {}) },
    ...(p.completeSchedule ? [{ name: `${p.name}#complete`, schedule: p.completeSchedule, ...(p.timezone ? { timezone: p.timezone } : {}) }] : []),
    ...(p.reconcile?.schedule ? [{ name: `${p.name}#reconcile`, schedule: p.reconcile.schedule, ...((p.reconcile.timezone ?? p.timezone) ? { timezone: p.reconcile.timezone ?? p.timezone } : {}) }] : []),
  ]);
}

/** The pipeline and kind of a job name. */
export function jobOf(job: string): { pipeline: string; kind: JobKind } {
  const [pipeline = job, kind] = job.split('#');
  return { pipeline, kind: kind === 'complete' || kind === 'reconcile' ? kind : 'sync' };
}

/** The lock a running daemon holds on its state. */
export const DAEMON_LOCK = 'daemon';

/** Start the daemon: runtime, crashed-run marking, server, then the clock. */
export async function startDaemon(loaded: LoadedConfig, options: DaemonOptions): Promise<Daemon> {
  const { config } = loaded;
  const logger = options.logger;
  const runtime = await openRuntime(loaded, { logger });
  const closers: (() => Promise<unknown>)[] = [() => runtime.close()];
  try {
    // One daemon per state: `state restore` and a second daemon see it (a dead holder's lock is taken over).
    const daemonLock = await runtime.state.locks.acquire(DAEMON_LOCK);
    await runtime.markCrashedRuns();
    const beat = setInterval(() => {
      daemonLock.heartbeat().catch((err: unknown) => logger.error({ err: errorLine(err) }, 'lost the daemon lock'));
    }, 15_000);
    beat.unref();
    closers.push(async () => {
      clearInterval(beat);
      await daemonLock.release();
    });
    const scheduler = createScheduler({
      pipelines: scheduledJobs(config.pipelines),
      timezone: config.timezone,
      logger,
      onSkip: (job) => runtime.metrics.tickSkipped(jobOf(job).pipeline),
      run: async ({ pipeline: job, signal }) => {
        const { pipeline, kind } = jobOf(job);
        try {
          // runPipeline logs the finished run with its counts; a reconciliation logs its drift.
          if (kind === 'reconcile') await runtime.reconcile(pipeline, { signal, ...(runtime.pipeline(pipeline).reconcile?.repair ? { repair: true } : {}) });
          else await runtime.run(pipeline, { mode: 'sync', signal, ...(kind === 'complete' ? { complete: true } : {}) });
        } catch (err) {
          const code = (err as { code?: unknown }).code;
          if (code === 'LOCK_HELD') logger.warn({ pipeline, err: errorLine(err) }, 'run skipped: another process is running this pipeline');
          else logger.error({ pipeline, err }, `run could not start: ${errorLine(err)}`);
        }
      },
    });
    const stateOk = () => {
      runtime.state.schemaVersion();
      return { ok: true, detail: `open (${loaded.statePath})` };
    };
    const serveDashboard = options.dashboard ?? config.dashboard.enabled;
    const server = await startOpsServer({
      host: options.host ?? config.dashboard.host,
      port: options.port ?? config.dashboard.port,
      token: config.dashboard.token,
      metrics: runtime.metrics,
      logger,
      version: options.version,
      readiness: () =>
        readiness({
          state: stateOk,
          ...(config.daemon.readyNeedsShop ? { shop: () => runtime.shopContact.check() } : {}),
        }),
      register: async (app) => {
        if (serveDashboard) {
          const { registerDashboard } = await import('../dashboard/index.js');
          await registerDashboard(app, dashboardDeps(runtime, scheduler, { host: options.host ?? config.dashboard.host, token: config.dashboard.token }));
        }
        await options.register?.(app);
      },
    });
    closers.push(() => server.close());
    const retention = startRetention(runtime.state, config, logger);
    closers.push(() => retention.stop());
    const alerts = startAlerts(config.alerts, {
      events: runtime.events,
      state: runtime.state,
      scheduled: config.pipelines.filter((p) => p.schedule !== undefined).map((p) => p.name),
      secrets: loaded.secrets,
      logger,
    });
    if (alerts) closers.push(() => alerts.stop());
    if (options.startSchedule !== false) scheduler.start();
    logger.info({ url: server.url, pipelines: config.pipelines.map((p) => p.name), state: loaded.statePath }, 'shopsync daemon started');

    let closing: Promise<CloseResult> | undefined;
    return {
      url: server.url,
      runtime,
      scheduler,
      server,
      startSchedule: () => scheduler.start(),
      close() {
        closing ??= (async () => {
          const result = await scheduler.close(config.daemon.shutdownGraceMs);
          await retention.stop();
          await alerts?.stop();
          await server.close();
          clearInterval(beat);
          await daemonLock.release();
          await runtime.close();
          logger.info({ settled: result.settled }, 'shopsync daemon stopped');
          return result;
        })();
        return closing;
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
}
