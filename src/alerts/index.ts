/**
 * Alerts that reach a person: a run that failed, new dead letters, a scheduled pipeline without a
 * successful run for longer than `alerts.staleAfterMinutes` (the "silently stopped" case), the
 * shop refusing the token, a mass deletion the guard refused and a reconciliation's drift above
 * `reconcile.alertAbove`, a scheduled pipeline that started no run for three of its slots
 * (`pipeline-overdue:<pipeline>`, failing.ts), each with its recovery. Wired to the pipelines' event stream and a
 * one-minute check of the state. Every replica watches its own runs; the incidents themselves are
 * kept in the state, so the deployment sends each message once (see incidents.ts).
 *
 * Every message carries its shop (`shop` in the body), and what concerns a shop as a whole is
 * kept per shop: `shop-auth:at` opens on a run of shop at refused for its credentials and closes
 * only on a successful run of shop at, so fifty shops do not take turns opening and closing one
 * incident. A pipeline's incident for such a cause (credentials, the shop unreachable, its circuit
 * breaker open, the shop paused) is folded into the shop's incident of that cause, which lists the
 * pipelines it holds (grouping.ts; the causes' table is causes.ts).
 */
import type { Logger } from '../log.js';
import { describeError } from '../util/describeError.js';
import type { RunSummary, SyncEvents } from '../pipeline/index.js';
import { progressOf } from '../pipeline/crashed.js';
import { overdueLanes, type ScheduledLane } from '../pipeline/overdue.js';
import type { StateStore } from '../state/index.js';
import { emailChannel, webhookChannel, type AlertChannel } from './channels.js';
import type { AlertsConfig } from './config.js';
import { Incidents } from './incidents.js';
import { causeOf } from './causes.js';
import { groupedIncidents, type PipelineScope } from './grouping.js';
import { singleShop, type AlertShops } from './shops.js';
import { checkShopStreaks } from './shopStreaks.js';
import { checkBrokenShops } from './brokenShops.js';
import type { BrokenShop } from '../config/shopFiles.js';
import { checkStockUnbooked, type ReservationLane } from './stockUnbooked.js';

export { alertsConfigSchema, type AlertsConfig } from './config.js';
export { CAUSES, causeOf, type Cause } from './causes.js';
export { Incidents, incidentId, type AlertMessage, type IncidentKind, type IncidentScope } from './incidents.js';
export { alertShopsOf, type AlertShops } from './shops.js';
export type { AlertChannel } from './channels.js';
export { reservationLanesOf, STOCK_UNBOOKED_STUCK, type ReservationLane } from './stockUnbooked.js';

/** What the alert watcher needs. */
export interface AlertDeps {
  readonly events: SyncEvents;
  readonly state: StateStore;
  /** Pipelines with a schedule (only they can be "stopped"). */
  readonly scheduled: readonly string[];
  /** Their schedules (`scheduledLanesOf(config)`): a pipeline that starts no run for three slots is overdue. Absent: not watched. */
  readonly schedules?: readonly ScheduledLane[];
  readonly secrets: readonly string[];
  readonly logger: Logger;
  /** The shops (`alertShopsOf(loaded)`): each pipeline's shop and the setting of its credentials. @default one shop, `shop:` */
  readonly shops?: AlertShops;
  /** `failingShops.warnAfterRuns`: the `shop-failing` alert's threshold; absent = the shops' streaks are not watched. */
  readonly warnAfterRuns?: number;
  /** Shops whose file did not load at this start (`loaded.brokenShops`): `shop-broken:<shop>` opens for each, and closes for shops that load again. Absent = not checked. */
  readonly brokenShops?: readonly BrokenShop[];
  /** Waits until the finished runs were counted towards their shops' streaks (`runtime.streaks.settle`). */
  readonly streaksSettled?: () => Promise<void>;
  /** Stock pushes with `reservations:` (`reservationLanesOf(config)`): an order unbooked longer than their alertAfter opens `stock-unbooked-stuck:<pipeline>`. Absent: not watched. */
  readonly reservations?: readonly ReservationLane[];
  /** For tests. */
  readonly now?: () => number;
  readonly channels?: readonly AlertChannel[];
  /** How long a claimed message may take before another replica sends it instead. @default 300000, or more for a slow webhook */
  readonly leaseMs?: number;
}

/** A running watcher. */
export interface AlertWatcher {
  readonly incidents: Incidents;
  /** Look for stopped pipelines now (the clock does it every minute). */
  checkStale(): Promise<void>;
  /** Open and resolve `pipeline-overdue:<pipeline>` from the state now (the clock does it every minute). */
  checkOverdue(): Promise<void>;
  /** Send messages another process claimed but never confirmed (the clock does it every minute); returns how many. */
  resendOverdue(): Promise<number>;
  /** Open and resolve the shops' `shop-failing` and `shop-paused` incidents from the state (every minute and after each run). */
  checkShops(): Promise<void>;
  /** Open and resolve `stock-unbooked-stuck:<pipeline>` from the ledger now (every minute and after each run). */
  checkReservations(): Promise<void>;
  /** Wait until the events so far are handled and their messages are out (the watcher goes on); for tests, which gate on it instead of on time. */
  idle(): Promise<void>;
  /** Wait for messages in flight and stop. */
  stop(): Promise<void>;
}

/** A sender's lease: five minutes, or longer than the webhook's slowest delivery (every attempt timing out), so a slow sender is not doubled. */
function leaseFor(cfg: AlertsConfig): number {
  const webhook = cfg.webhook ? (cfg.webhook.retries + 1) * cfg.webhook.timeoutMs + 500 * (2 ** cfg.webhook.retries - 1) : 0;
  return Math.max(300_000, webhook + 60_000);
}

/** The channels a config names. */
export function channelsOf(cfg: AlertsConfig): AlertChannel[] {
  return [...(cfg.webhook ? [webhookChannel(cfg.webhook)] : []), ...(cfg.email ? [emailChannel(cfg.email)] : [])];
}

/** Start watching for incidents; undefined when no channel is configured. */
export function startAlerts(cfg: AlertsConfig, deps: AlertDeps): AlertWatcher | undefined {
  const channels = deps.channels ?? channelsOf(cfg);
  if (channels.length === 0) return undefined;
  const logger = deps.logger.child({ component: 'alerts' });
  const now = deps.now ?? Date.now;
  const shops = deps.shops ?? singleShop;
  const scopeOf = (pipeline: string): PipelineScope => ({ pipeline, shop: shops.of(pipeline) });
  /** `products-at (shop at, run 12)`; the lone `shop:` is not named. */
  const whereOf = (pipeline: string, shop: string, detail?: string): string => {
    const parts = [...(shops.named(shop) ? [`shop ${shop}`] : []), ...(detail ? [detail] : [])];
    return parts.length > 0 ? `${pipeline} (${parts.join(', ')})` : pipeline;
  };
  const incidents = new Incidents(channels, deps.state.incidents, { maxPerHour: cfg.maxPerHour, secrets: deps.secrets, logger, now, leaseMs: deps.leaseMs ?? leaseFor(cfg) });
  const pending = new Set<Promise<void>>();
  // A failed handler (the state unreachable) is logged; a rejection left unhandled would end the daemon.
  const track = (work: Promise<unknown>) => {
    const p = work.then(() => undefined).catch((err: unknown) => logger.error({ err: describeError(err) }, 'alert handling failed'));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const grouped = groupedIncidents(incidents, shops, deps.state);

  const onRun = async (s: RunSummary): Promise<void> => {
    if (s.mode === 'dry-run') return;
    const jobs: Promise<unknown>[] = [];
    const shop = shops.of(s.pipeline);
    const scope: PipelineScope = { pipeline: s.pipeline, shop };
    const where = whereOf(s.pipeline, shop, `run ${s.runId}`);
    if (s.status === 'failed') {
      jobs.push(grouped.firePipeline('run-failed', scope, causeOf(s.error?.code), `${s.pipeline} failed`, `${where} failed: [${s.error?.code ?? 'ERROR'}] ${s.error?.message ?? ''}`));
    } else if (s.status === 'succeeded' || s.status === 'partial') {
      jobs.push(incidents.resolve('run-failed', scope, `${s.pipeline} runs again`, `${where} finished ${s.status}.`));
      jobs.push(grouped.shopWorked(shop, s.pipeline, s.counts.requests, `${where} finished ${s.status}.`));
      jobs.push(incidents.resolve('stale', scope, `${s.pipeline} runs again`, `${where} finished ${s.status}.`));
    }
    if (s.missing?.refused) {
      jobs.push(incidents.fire('mass-delete', scope, `${s.pipeline}: mass deletion refused`, `${where}: [${s.missing.refused.code}] ${s.missing.refused.message}`));
    } else if (s.missing?.decided) {
      jobs.push(incidents.resolve('mass-delete', scope, `${s.pipeline}: records gone from the ERP handled again`, `${where}: ${s.missing.deactivated} deactivated, ${s.missing.deleted} deleted.`));
    }
    const wm = s.watermark;
    if (wm?.by === 'transactions') {
      const heldMs = wm.openSince === undefined ? 0 : Date.parse(wm.checkedAt) - Date.parse(wm.openSince);
      if (heldMs > cfg.watermarkHeldMinutes * 60_000) {
        jobs.push(incidents.fire('watermark-held', scope, `${s.pipeline}: an ERP transaction holds the cursor back`, `${where}: a transaction in the ERP database has been open since ${wm.openSince} (${Math.round(heldMs / 60_000)} min); the cursor waits before it so its rows are not skipped, and every run reads again from there. A forgotten open transaction (an idle session, a stuck batch job) also blocks the database's cleanup: find it in pg_stat_activity / information_schema.innodb_trx and end it.`));
      } else jobs.push(incidents.resolve('watermark-held', scope, `${s.pipeline}: no ERP transaction holds the cursor any more`, `${where}: the oldest open transaction is ${Math.round(heldMs / 1000)} s old.`));
    }
    const letters = await deps.state.deadLetters.count(s.pipeline);
    if (s.counts.deadLettered > 0) jobs.push(incidents.fire('dead-letters', scope, `${s.pipeline}: records refused`, `${where} dead-lettered ${s.counts.deadLettered} record(s)${s.counts.unreadable ? `, ${s.counts.unreadable} of them unreadable input` : ''}; ${letters} letter(s) wait. See \`shopsync dlq list --pipeline ${s.pipeline}\` or the dashboard's dead letters.`));
    else if (letters === 0) jobs.push(incidents.resolve('dead-letters', scope, `${s.pipeline}: no dead letters left`, `${where}: every dead letter was delivered or dropped.`));
    await Promise.all(jobs);
  };
  const unsubscribeRuns = deps.events.on('run-finished', (e) => track(onRun(e.summary)));
  // A run its process never finished: the next run (or the daemon's sweep) marks it crashed; a person hears of it then.
  const unsubscribeCrashed = deps.events.on('run-crashed', ({ run }) =>
    track(
      incidents.fire(
        'run-failed',
        { pipeline: run.pipeline, shop: run.shop },
        `${run.pipeline} stopped without finishing`,
        `${whereOf(run.pipeline, run.shop, `run ${run.id}, ${run.mode}, started ${run.startedAt}${run.host ? ` on ${run.host}` : ''}${run.pid ? ` as pid ${run.pid}` : ''}`)} stopped without finishing: the process running it ended (killed, crashed, out of memory or the machine went down) after ${progressOf(run)}. It is marked crashed; the next run continues from its last checkpoint. Check that process's log and the machine's memory and disk.`,
      ),
    ),
  );
  const unsubscribeReconcile = deps.events.on('reconcile-finished', (e) => {
    const c = e.counts;
    if (e.drift > e.alertAbove) {
      const text = `${whereOf(e.pipeline, e.shop)}: ${e.drift} record(s) drift, more than reconcile.alertAbove ${e.alertAbove}: ${c.onlyInErp ?? 0} only in the ERP, ${c.onlyInShop ?? 0} only in the shop, ${c.different ?? 0} different. See the dashboard's Reconcile page (report ${e.reportId}); \`shopsync reconcile ${e.pipeline} --repair\` pushes them again.`;
      track(incidents.fire('reconcile-drift', { pipeline: e.pipeline, shop: e.shop }, `${e.pipeline}: ERP and shop drift apart`, text));
    } else track(incidents.resolve('reconcile-drift', { pipeline: e.pipeline, shop: e.shop }, `${e.pipeline}: ERP and shop agree again`, `${whereOf(e.pipeline, e.shop)}: drift ${e.drift} (alert above ${e.alertAbove}).`));
  });
  // A run that starts ends its lane's overdue incident at once; the minute check resolves it too (a run on another replica).
  const unsubscribeStarted = deps.events.on('run-started', (e) => {
    if (e.mode !== 'sync' || !deps.schedules?.some((p) => p.name === e.pipeline)) return;
    track(incidents.resolve('pipeline-overdue', scopeOf(e.pipeline), `${e.pipeline} starts its runs again`, `${whereOf(e.pipeline, shops.of(e.pipeline), `run ${e.runId}`)} started at ${e.at}.`));
  });
  const unsubscribe = () => {
    unsubscribeStarted();
    unsubscribeRuns();
    unsubscribeCrashed();
    unsubscribeReconcile();
  };

  const checkStale = async (): Promise<void> => {
    const limit = cfg.staleAfterMinutes * 60_000;
    for (const pipeline of deps.scheduled) {
      const last = (await deps.state.runs.list({ pipeline, status: ['succeeded', 'partial'], limit: 1 }))[0]?.finishedAt;
      const lastMs = last ? Date.parse(last) : undefined;
      if (lastMs !== undefined && now() - lastMs <= limit) continue;
      if (lastMs === undefined && now() - started <= limit) continue;
      const scope = scopeOf(pipeline);
      // A pipeline stopped by its shop's cause (refused, unreachable, paused) is held by the shop's incident.
      await grouped.firePipeline('stale', scope, await grouped.causeNow(scope, { lastRun: true }), `${pipeline} has not run successfully for ${cfg.staleAfterMinutes} minutes`, `${whereOf(pipeline, shops.of(pipeline))}: last successful run ${last ?? 'never (since the daemon started)'}; the sync may have stopped silently. Check the dashboard and the log.`);
    }
  };
  const checkOverdue = async (): Promise<void> => {
    const lanes = deps.schedules ?? [];
    if (lanes.length === 0) return;
    const overdue = new Map((await overdueLanes(deps.state, lanes, { now: now(), neverRanSince: started })).map((l) => [l.pipeline, l]));
    for (const lane of lanes) {
      const late = overdue.get(lane.name);
      const scope = scopeOf(lane.name);
      const where = whereOf(lane.name, shops.of(lane.name));
      const reason = late?.reasons.find((r) => r.code === 'overdue');
      // Overdue is the daemons' cause, not the shop's; a paused shop's lanes are skipped on purpose (and not overdue), kept here by the table's rule all the same.
      if (reason) await grouped.firePipeline('pipeline-overdue', scope, await grouped.causeNow(scope, { lastRun: false }), `${lane.name} has not started its scheduled runs`, `${where}: ${reason.text}. Check the daemons (shopsync status, the dashboard's replicas and jobs) and the machine's clock.`);
      else await incidents.resolve('pipeline-overdue', scope, `${lane.name} starts its runs again`, `${where}: a run started within its schedule.`);
    }
  };
  const started = now();
  const resendOverdue = () => incidents.resendOverdue();
  const warnAfterRuns = deps.warnAfterRuns;
  const checkShops = async (): Promise<void> => {
    if (warnAfterRuns !== undefined) await checkShopStreaks(incidents, grouped, deps.state, shops, warnAfterRuns);
  };
  const checkReservations = async (): Promise<void> => {
    if (deps.reservations?.length) await checkStockUnbooked(incidents, deps.state, deps.reservations, now(), (p, shop) => whereOf(p, shop));
  };
  // A stock push marks orders booked and an orders pull delivers them: either may end the incident.
  const unsubscribeReservations = deps.events.on('run-finished', (e) => {
    if (e.summary.mode !== 'dry-run' && deps.reservations?.some((l) => l.shop === shops.of(e.summary.pipeline))) track(checkReservations());
  });
  // Known at start and until the next start: checked once.
  if (deps.brokenShops) track(checkBrokenShops(incidents, deps.brokenShops, shops));
  const unsubscribeShops = deps.events.on('run-finished', () => track((deps.streaksSettled?.() ?? Promise.resolve()).then(checkShops)));
  const timer = setInterval(() => {
    track(checkShops().catch((err: unknown) => logger.error({ err }, 'shop streak check failed')));
    track(checkStale().catch((err: unknown) => logger.error({ err }, 'stale check failed')));
    track(checkOverdue().catch((err: unknown) => logger.error({ err }, 'overdue check failed')));
    track(checkReservations().catch((err: unknown) => logger.error({ err }, 'unbooked orders check failed')));
    track(resendOverdue().then(() => undefined, (err: unknown) => logger.error({ err }, 'overdue alert check failed')));
  }, 60_000);
  timer.unref();

  return {
    incidents,
    checkStale,
    checkOverdue,
    resendOverdue,
    checkShops,
    checkReservations,
    async idle() {
      // A handler may start others (a run's shop check): wait until none is left.
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async stop() {
      clearInterval(timer);
      unsubscribe();
      unsubscribeReservations();
      unsubscribeShops();
      await Promise.all([...pending]);
    },
  };
}
