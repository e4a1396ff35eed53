/**
 * Scheduled lanes that stopped starting runs: the `overdue` and `stuck` reasons of the failing
 * definition (failing.ts), read for every scheduled pipeline at once, for /readyz's details and the
 * `pipeline-overdue:<pipeline>` alert. The reasons themselves are decided in failing.ts only.
 */
import { DEFAULT_SHOP, type StateStore } from '../state/index.js';
import { failingReasons, shopPauseOf, type FailingReason } from './failing.js';

/** A scheduled pipeline as this check needs it. */
export interface ScheduledLane {
  readonly name: string;
  readonly shop?: string;
  readonly schedule?: string;
  readonly timezone?: string;
}

/** A lane that is overdue or stuck, and why. */
export interface OverdueLane {
  readonly pipeline: string;
  readonly shop: string;
  readonly reasons: readonly FailingReason[];
}

/** Options of `overdueLanes`. */
export interface OverdueOptions {
  readonly now: number;
  /** When a pipeline that never ran should have begun (the daemon's start, epoch ms); absent: one that never ran is not overdue. */
  readonly neverRanSince?: number;
}

const CODES = new Set(['overdue', 'stuck']);

/** The scheduled pipelines of a config, each with the zone its schedule runs in. */
export function scheduledLanesOf(config: { readonly timezone?: string; readonly pipelines: readonly { readonly name: string; readonly shop: string; readonly schedule?: string; readonly timezone?: string }[] }): ScheduledLane[] {
  return config.pipelines
    .filter((p) => p.schedule !== undefined)
    .map((p) => {
      const timezone = p.timezone ?? config.timezone;
      return { name: p.name, shop: p.shop, schedule: p.schedule!, ...(timezone ? { timezone } : {}) };
    });
}

/** The overdue or stuck lanes among `pipelines` (those without a schedule are never). */
export async function overdueLanes(state: StateStore, pipelines: readonly ScheduledLane[], options: OverdueOptions): Promise<OverdueLane[]> {
  const scheduled = pipelines.filter((p) => p.schedule !== undefined);
  if (scheduled.length === 0) return [];
  const [running, locks, streaks] = await Promise.all([state.runs.list({ status: 'running', limit: 1000 }), state.locks.list(), state.streaks.list()]);
  const holderOf = new Map(locks.map((l) => [l.name, l]));
  const streakOf = new Map(streaks.map((s) => [s.shop, s]));
  const out = await Promise.all(
    scheduled.map(async (p): Promise<OverdueLane | undefined> => {
      const shop = p.shop ?? DEFAULT_SHOP;
      const [lastSync] = await state.runs.list({ pipeline: p.name, mode: 'sync', limit: 1 });
      const open = running.find((r) => r.pipeline === p.name && r.mode === 'sync');
      const holder = open ? holderOf.get(open.lane) : undefined;
      const since = lastSync?.startedAt ?? (options.neverRanSince !== undefined ? new Date(options.neverRanSince).toISOString() : undefined);
      const paused = shopPauseOf(streakOf.get(shop));
      const reasons = failingReasons(
        {
          name: p.name,
          deadLetters: 0,
          scheduled: true,
          schedule: { expression: p.schedule!, ...(p.timezone ? { timezone: p.timezone } : {}) },
          ...(since ? { lastStartedAt: since } : {}),
          ...(open ? { running: { id: open.id, startedAt: open.startedAt, ...(holder ? { holderBeatAt: holder.heartbeatAt } : {}) } } : {}),
          ...(paused ? { shopPaused: paused } : {}),
        },
        // Staleness is another reason's business (alerts.staleAfterMinutes): never met here.
        { now: options.now, staleAfterMinutes: Number.POSITIVE_INFINITY },
      ).filter((r) => CODES.has(r.code));
      return reasons.length > 0 ? { pipeline: p.name, shop, reasons } : undefined;
    }),
  );
  return out.filter((l): l is OverdueLane => l !== undefined);
}
