/** The dashboard's view of the daemon (`DashboardDeps`), built from the runtime and the scheduler. */
import type { DashboardDeps, DashboardTrigger } from '../dashboard/types.js';
import type { Replica } from '../jobs/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { Runtime } from './runtime.js';
import { pipelineActions, runtimeHost } from './deadLetters.js';

/** Build the dashboard's dependencies (with a replica: runs as jobs, and the replicas panel). */
export function dashboardDeps(runtime: Runtime, scheduler: Scheduler, server: { host: string; token?: string }, replica?: Replica, triggers?: () => readonly DashboardTrigger[]): DashboardDeps {
  return {
    state: runtime.state,
    pipelines: runtime.loaded.config.pipelines.map((p) => ({
      name: p.name,
      shop: p.shop,
      resource: p.resource,
      direction: p.direction,
      schedule: p.schedule,
      ...((p.timezone ?? runtime.loaded.config.timezone) ? { timezone: (p.timezone ?? runtime.loaded.config.timezone)! } : {}),
      ...(p.reconcile?.schedule ? { reconcileSchedule: p.reconcile.schedule } : {}),
      ...(p.reservations ? { reservations: { alertAfterMs: p.reservations.alertAfter, ...(p.reservations.warehouse !== undefined ? { warehouse: p.reservations.warehouse } : {}) } } : {}),
      ...(p.follow ? { follow: { everyMs: p.follow.every, until: p.follow.until, maxAgeDays: p.follow.maxAgeDays } } : {}),
      nextRun: () => scheduler.nextRun(p.name) ?? undefined,
    })),
    // With replicas, "Run now" adds a job that any replica may take; without, the run starts here.
    ...pipelineActions(runtimeHost(runtime), (name) => (replica ? replica.runNow(name) : scheduler.runNow(name))),
    ...(replica ? { replicas: () => replica.overview() } : {}),
    preview: (name, options) => runtime.preview(name, options),
    reports: runtime.reports,
    events: runtime.events,
    shopRates: () => Object.fromEntries([...runtime.shops].map(([name, client]) => [name, client.rate()])),
    shopHealth: () => runtime.shopHealth(),
    brokenShops: runtime.loaded.brokenShops,
    ...(triggers ? { triggers } : {}),
    staleAfterMinutes: runtime.loaded.config.alerts.staleAfterMinutes,
    token: server.token,
    host: server.host,
    logger: runtime.logger,
  };
}
