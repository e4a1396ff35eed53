/**
 * The long-lived `shopsync run` process: scheduler + HTTP server (dashboard, /healthz, /readyz,
 * /metrics) around one runtime. Closing stops the clock, lets in-flight runs checkpoint within
 * the grace period, stops the server and closes the state database — in reverse order of opening.
 *
 * On a SQLite state the daemon is the only one (a second is refused) and its clock runs the
 * pipelines in-process. On a PostgreSQL state it is one of any number of replicas: its clock only
 * enqueues jobs and its job engine runs whichever jobs it takes (src/jobs).
 */
import type { FastifyInstance } from 'fastify';
import type { LoadedConfig } from '../config/index.js';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import { createScheduler, type CloseResult, type SchedulablePipeline, type Scheduler } from '../scheduler/index.js';
import { everyShopFailing, probedCheck, readiness } from './readiness.js';
import { overdueLanes, scheduledLanesOf, type OverdueLane } from '../pipeline/overdue.js';
import { openRuntime, type Runtime } from './runtime.js';
import { alertShopsOf, reservationLanesOf, startAlerts } from '../alerts/index.js';
import { startRetention } from './retention.js';
import { settleOwnRuns, type RunLeftRunning } from './ownRuns.js';
import { startOpsServer, type OpsServer } from './server.js';
import { dashboardDeps } from './dashboard.js';
import { StateError } from '../errors.js';
import { isUnwritable } from '../state/faults.js';
import type { Replica } from '../jobs/index.js';
import type { JobOutcome } from '../jobs/engine.js';
import { startTriggers, type Triggers } from '../triggers/index.js';
import { registerHooks } from '../triggers/hookRoute.js';
import { pausedShopOf } from './shopStreaks.js';
import { registerShopStreakMetrics } from './shopStreakMetrics.js';
import { shopReports } from './shopHealth.js';
import { shopsOf } from '../config/index.js';
import type { StateStore } from '../state/index.js';
import { heldBackByRestore } from '../pipeline/rewind.js';
import { registerClockMetrics } from '../clock/metrics.js';
import { startSkewProbe, type SkewProbe } from '../clock/probe.js';

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
  /** The replica (job engine, heartbeat) when the state is in PostgreSQL. */
  readonly replica?: Replica;
  /** The pipelines' triggers (started with the clock). */
  readonly triggers: () => Triggers | undefined;
  /** Start the clock (when `startSchedule: false` was given). */
  startSchedule(): void;
  /** Stop: scheduler (with grace), server, runtime. */
  close(): Promise<DaemonCloseResult>;
}

/** What stopping did; `leftRunning`: runs of this daemon the state may still show `running` (their final write failed). */
export interface DaemonCloseResult extends CloseResult {
  readonly leftRunning: readonly RunLeftRunning[];
}

/** What a scheduler job runs: a pipeline's sync, its complete read (`completeSchedule`) or its reconciliation (`reconcile.schedule`). */
export type JobKind = 'sync' | 'complete' | 'reconcile';

/** The scheduler's jobs: each pipeline under its name, complete reads as `<name>#complete`, reconciliations as `<name>#reconcile`. */
export function scheduledJobs(pipelines: LoadedConfig['config']['pipelines']): SchedulablePipeline[] {
  return pipelines.flatMap((p) => [
    { name: p.name, ...(p.schedule ? { schedule: p.schedule } : {}), ...(p.timezone ? { timezone: p.timezone } : {}), ...(p.trigger ? { debounceMs: p.trigger.debounce } : {}) },
    ...(p.completeSchedule ? [{ name: `${p.name}#complete`, schedule: p.completeSchedule, ...(p.timezone ? { timezone: p.timezone } : {}) }] : []),
    ...(p.reconcile?.schedule ? [{ name: `${p.name}#reconcile`, schedule: p.reconcile.schedule, ...((p.reconcile.timezone ?? p.timezone) ? { timezone: p.reconcile.timezone ?? p.timezone } : {}) }] : []),
  ]);
}

/** The pipeline and kind of a job name. */
export function jobOf(job: string): { pipeline: string; kind: JobKind } {
  const [pipeline = job, kind] = job.split('#');
  return { pipeline, kind: kind === 'complete' || kind === 'reconcile' ? kind : 'sync' };
}

/** How often the daemon looks for runs a dead process left `running`. */
const CRASH_SWEEP_MS = 60_000;

/** The lock a running daemon holds on its state. */
export const DAEMON_LOCK = 'daemon';

/** Start the daemon: runtime, crashed-run marking, server, then the clock. */
export async function startDaemon(loaded: LoadedConfig, options: DaemonOptions): Promise<Daemon> {
  const { config } = loaded;
  const logger = options.logger;
  // The shops' answers carry their clocks (Date): the skew gauge reads them once the probe runs.
  let skewProbe: SkewProbe | undefined;
  const runtime = await openRuntime(loaded, {
    logger,
    onClientEvent: (event, shop) => {
      if (event.type === 'request' && event.shopDate) skewProbe?.shopAnswered(shop, event.shopDate, event.durationMs);
    },
  });
  const closers: (() => Promise<unknown>)[] = [() => runtime.close()];
  registerShopStreakMetrics(runtime.metrics.registry, runtime.state, Object.keys(shopsOf(config)));
  // A broken shop file stops only its shop: said once per shop at every start, as an error (its message names file and line).
  for (const b of loaded.brokenShops) logger.error({ shop: b.name, file: b.file, line: b.line, pipelines: b.pipelines }, `shop ${b.name} is broken and its pipelines do not run (the other shops' do): ${b.message}`);
  try {
    const daemonLock = loaded.state.kind === 'sqlite' ? await singleDaemonLock(runtime, loaded.statePath) : undefined;
    const beat = setInterval(() => {
      daemonLock?.heartbeat().catch((err: unknown) => logger.error({ err: errorLine(err) }, 'lost the daemon lock'));
    }, 15_000);
    beat.unref();
    closers.push(async () => {
      clearInterval(beat);
      await daemonLock?.release();
    });
    // A scheduled job of a pipeline: its sync, its complete read (`completeSchedule`) or its reconciliation.
    const runJob = async (job: string, signal: AbortSignal): Promise<JobOutcome> => {
      const { pipeline, kind } = jobOf(job);
      // runPipeline logs the finished run with its counts; a reconciliation logs its drift.
      // The daemon goes on after the run: its final write is tried until the state takes it (src/pipeline/finish.ts).
      if (kind !== 'reconcile') return runtime.run(pipeline, { mode: 'sync', signal, finishRetryMs: Infinity, ...(kind === 'complete' ? { complete: true } : {}) });
      await runtime.reconcile(pipeline, { signal, ...(runtime.pipeline(pipeline).reconcile?.repair ? { repair: true } : {}) });
      return { status: 'succeeded' };
    };
    let replica: Replica | undefined;
    if (loaded.state.kind === 'postgres') {
      const { startReplica } = await import('../jobs/index.js');
      const started = await startReplica(runtime, loaded, logger, runJob);
      replica = started;
      closers.push(() => started.stop(0));
    }
    const clockMetrics = registerClockMetrics(runtime.metrics.registry);
    const scheduler = createScheduler({
      pipelines: scheduledJobs(config.pipelines),
      timezone: config.timezone,
      logger,
      onSkip: (job) => runtime.metrics.tickSkipped(jobOf(job).pipeline),
      onMissed: (job, slots) => clockMetrics.missed(jobOf(job).pipeline, slots),
      onClockStep: (step) => {
        clockMetrics.step(step);
        skewProbe?.clockStepped();
      },
      run: async ({ pipeline: job, signal, reason, at }) => {
        const { pipeline, kind } = jobOf(job);
        // A paused shop (failingShops) is not asked by the clock or a trigger; a person's run still goes.
        const shop = runtime.pipeline(pipeline).shop;
        const paused = reason === 'manual' ? undefined : await pausedShopOf(runtime.state, shop).catch(() => undefined);
        if (paused) {
          runtime.metrics.tickSkipped(pipeline);
          logger.warn({ pipeline, kind, shop, pausedAt: new Date(paused.pausedAt ?? 0).toISOString() }, `skipped ${reason === 'schedule' ? 'scheduled' : 'triggered'} run: shop ${shop} is paused (${paused.pausedReason ?? ''}); \`shopsync shops resume ${shop}\` resumes it`);
          return;
        }
        if (replica) {
          // Every replica keeps its own clock (schedules may have seconds, which the engine's crontab cannot
          // express); a tick is claimed once across replicas, and only the claimer asks for a job (src/jobs/ticks.ts).
          try {
            const r = await replica.enqueue(job, reason, reason === 'schedule' ? { tick: at } : {});
            if (r.coalesced && reason === 'schedule') {
              runtime.metrics.tickSkipped(pipeline);
              logger.warn({ pipeline, kind, tick: at.toISOString(), jobId: r.jobId }, 'skipped scheduled run: a run job of this pipeline still waits (its lane is busy); this tick folded into it');
            } else logger.debug({ pipeline, kind, reason, ...r }, reason === 'schedule' ? 'tick: run job asked for' : 'run job asked for');
          } catch (err) {
            logger.error({ pipeline, kind, err: errorLine(err) }, 'could not add the run job');
          }
          return;
        }
        try {
          await runJob(job, signal);
        } catch (err) {
          const code = (err as { code?: unknown }).code;
          if (code === 'LOCK_HELD') logger.warn({ pipeline, err: errorLine(err) }, 'run skipped: another process is running this pipeline');
          // Said at warn by the run itself (with who took it); the lane runs on in that process.
          else if (code === 'RUN_TAKEN_OVER') logger.debug({ pipeline, err: errorLine(err) }, 'run taken over by another process');
          // Thrown, not a summary: the run could not start, or could not record its end (a full disk); either way no outcome was recorded.
          else logger.error({ pipeline, err }, `run could not start or record its end: ${errorLine(err)}`);
        }
      },
    });
    // Started with the clock (below); the dashboard reads their states through this.
    let triggers: Triggers | undefined;
    // Not the path: /readyz is open to probes, and the log of the start names the state.
    const daemonStarted = Date.now();
    let overdueRead: { readonly at: number; readonly lanes: Promise<readonly OverdueLane[]> } | undefined;
    const scheduledLanes = scheduledLanesOf(config);
    // A write that changes nothing: a state that answers reads but cannot be written (full disk, read-only) runs nothing.
    const stateOk = probedCheck(() => runtime.state.probeWrite(), `takes writes (${loaded.state.kind})`, { failed: (err) => (isUnwritable(err) ? `cannot be written: ${err.toLine()}` : undefined) });
    const serveDashboard = options.dashboard ?? config.dashboard.enabled;
    const server = await startOpsServer({
      host: options.host ?? config.dashboard.host,
      port: options.port ?? config.dashboard.port,
      token: config.dashboard.token,
      headersTimeoutMs: config.dashboard.headersTimeoutMs,
      requestTimeoutMs: config.dashboard.requestTimeoutMs,
      maxConnections: config.dashboard.maxConnections,
      sessionLifetimeMs: config.dashboard.sessionHours * 3600_000,
      ...(config.dashboard.allowedHosts ? { allowedHosts: config.dashboard.allowedHosts } : {}),
      metrics: runtime.metrics,
      logger,
      version: options.version,
      // Shops are details of /readyz and of /shops; with readyNeedsShop only "every shop fails" makes this replica unready.
      readiness: () =>
        readiness(
          {
            state: stateOk,
            ...(config.daemon.readyNeedsShop ? { shops: () => everyShopFailing(runtime.shopHealth()) } : {}),
            ...(replica ? { replica: () => replica.readiness() } : {}),
          },
          {
            shops: runtime.shopHealth,
            // Lanes that stopped starting runs, as details: the lane is the deployment's, this replica may be fine.
            overdue: () => {
              // A few queries per scheduled pipeline: read at most every 5 s however often the probes come (monotonic, like the state check).
              if (!overdueRead || performance.now() - overdueRead.at > 5000) overdueRead = { at: performance.now(), lanes: overdueLanes(runtime.state, scheduledLanes, { now: Date.now(), neverRanSince: daemonStarted }) };
              return overdueRead.lanes;
            },
          },
        ),
      // Each shop's contact, pause and failure streak (the state's, shared by the replicas), and the broken shops.
      shops: async () => shopReports(runtime.shopHealth(), await runtime.state.streaks.list(), loaded.brokenShops),
      brokenShops: loaded.brokenShops,
      register: async (app) => {
        if (serveDashboard) {
          const { registerDashboard } = await import('../dashboard/index.js');
          await registerDashboard(app, dashboardDeps(runtime, scheduler, { host: options.host ?? config.dashboard.host, token: config.dashboard.token }, replica, () => triggers?.status() ?? []));
        }
        await registerHooks(app, runtime, logger);
        await options.register?.(app);
      },
    });
    closers.push(() => server.close());
    const probe = startSkewProbe({ ...(loaded.state.kind === 'postgres' ? { stateUrl: loaded.state.url } : {}), metrics: clockMetrics, logger });
    skewProbe = probe;
    closers.push(async () => probe.close());
    const retention = startRetention(runtime.state, config, logger);
    closers.push(() => retention.stop());
    const alerts = startAlerts(config.alerts, {
      events: runtime.events,
      state: runtime.state,
      scheduled: config.pipelines.filter((p) => p.schedule !== undefined).map((p) => p.name),
      schedules: scheduledLanes,
      secrets: loaded.secrets,
      shops: alertShopsOf(loaded),
      warnAfterRuns: config.failingShops.warnAfterRuns,
      brokenShops: loaded.brokenShops,
      reservations: reservationLanesOf(config),
      streaksSettled: () => runtime.streaks.settle(),
      logger,
    });
    if (alerts) closers.push(() => alerts.stop());
    // Runs a dead process left `running` (here, or a one-off `shopsync sync` that was killed) are
    // marked crashed now and every minute, so the dashboard and the run-failed alert show them.
    await runtime.markCrashedRuns();
    const sweep = setInterval(() => {
      runtime.markCrashedRuns().catch((err: unknown) => logger.error({ err: errorLine(err) }, 'marking crashed runs failed; the next sweep tries again'));
    }, CRASH_SWEEP_MS);
    // Unref'd: a background sweep nothing waits on; the daemon's servers keep the process alive.
    sweep.unref();
    closers.push(async () => clearInterval(sweep));
    const startClock = async (): Promise<void> => {
      scheduler.start();
      // Wake-ups go through the scheduler: it coalesces them, and with replicas its run() turns them into a job of the lane.
      triggers ??= await startTriggers(runtime, (pipeline, cause) => scheduler.wake(pipeline, cause), logger);
    };
    if (options.startSchedule !== false) await startClock();
    logger.info({ url: server.url, pipelines: config.pipelines.map((p) => p.name), state: loaded.statePath, ...(replica ? { replica: replica.name } : {}) }, 'shopsync daemon started');
    await warnUnacceptedRestore(runtime.state, config.pipelines.filter((p) => p.direction === 'pull').map((p) => p.name), logger);

    let closing: Promise<DaemonCloseResult> | undefined;
    return {
      url: server.url,
      runtime,
      scheduler,
      server,
      ...(replica ? { replica } : {}),
      triggers: () => triggers,
      startSchedule: () => {
        startClock().catch((err: unknown) => logger.error({ err: errorLine(err) }, 'starting the triggers failed; the schedules run'));
      },
      close() {
        closing ??= (async () => {
          await triggers?.close();
          let result = await scheduler.close(config.daemon.shutdownGraceMs);
          if (replica) {
            const stopped = await replica.stop(config.daemon.shutdownGraceMs);
            result = { settled: result.settled && stopped.settled, abandoned: result.abandoned };
          }
          probe.close();
          await retention.stop();
          await alerts?.stop();
          await server.close();
          clearInterval(beat);
          await daemonLock?.release().catch((err: unknown) => logger.warn({ err: errorLine(err) }, 'could not release the daemon lock'));
          // Last, while the state is open: no run of this daemon may stay `running` there unnoticed.
          const leftRunning = await settleOwnRuns(runtime.state, logger, { settled: result.settled });
          for (const r of leftRunning) logger.error({ runId: r.runId, pipeline: r.pipeline, err: r.error }, `run #${r.runId} of ${r.pipeline} could not be written as finished (the state refused: ${r.error}); the state shows it \`running\` until the next start marks it crashed`);
          // Runs that outlived the grace period still use the state and the shop clients: closing them
          // under a run turns its next write into an error (and records waiting for the shop into
          // CLIENT_CLOSED failures). They are left open; the process ends shortly (`shopsync run`), which
          // for those runs is a crash: marked crashed, continued from their last checkpoint, and on
          // replicas their jobs freed once this replica counts as dead.
          if (result.settled) await runtime.close();
          logger.info({ settled: result.settled, leftRunning: leftRunning.length }, 'shopsync daemon stopped');
          return { ...result, leftRunning };
        })();
        return closing;
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
}

/**
 * The one-daemon lock of a SQLite state: `state restore` and a second daemon see it (a dead
 * holder's lock is taken over). A second daemon is refused naming the setting that allows several.
 */
async function singleDaemonLock(runtime: Runtime, statePath: string) {
  try {
    return await runtime.state.locks.acquire(DAEMON_LOCK);
  } catch (err) {
    if (!(err instanceof StateError && err.code === 'LOCK_HELD')) throw err;
    const holder = await runtime.state.locks.get(DAEMON_LOCK);
    const who = holder ? `process ${holder.pid} on ${holder.host} (since ${holder.acquiredAt})` : 'another process';
    throw new StateError(
      'LOCK_HELD',
      `a shopsync daemon already runs on the SQLite state ${statePath}: ${who}. A SQLite state is single-process; to run several replicas put the state in PostgreSQL (\`state.kind: postgres\` with \`state.url\`, moved over by \`shopsync state copy\`; see docs/replicas.md), or stop the other daemon first`,
      { details: { ...(holder ? { pid: holder.pid, host: holder.host } : {}), setting: 'state.kind: postgres' } },
    );
  }
}

/** Said at start, not only in each refused run: a restored state's pulls deliver nothing until accepted. */
async function warnUnacceptedRestore(state: StateStore, pulls: readonly string[], logger: Logger): Promise<void> {
  const { mark, pipelines } = await heldBackByRestore(state, pulls);
  if (mark && pipelines.length > 0) logger.error({ code: 'STATE_RESTORED', pipelines, file: mark.file, restoredAt: new Date(mark.restoredAt).toISOString() }, 'the state was restored from a backup: these pull pipelines deliver nothing until `shopsync state accept-restore` (docs/operations.md, "The state goes back in time")');
}
