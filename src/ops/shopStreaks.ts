/**
 * A shop failing for days (issue 34): every finished run of a shop's pipelines that failed for a
 * reason of the shop's (`SHOP_FAILURE_CODES`) adds to the shop's streak in the state, and any run
 * of the shop that worked (succeeded or partial) ends it. After `failingShops.warnAfterRuns` the
 * `shop-failing` alert opens; after `pauseAfterRuns` failed runs spanning `pauseAfterHours` the shop
 * is paused: the daemons' scheduled ticks skip its pipelines (logged every time), `shopsync status`,
 * the dashboard and `shopsync_shop_paused` show it, and `shop-paused` stays open until
 * `shopsync shops resume <shop>` or a run that works (a `shopsync sync` by a person) lifts it.
 * A run failing because of the ERP or a record says nothing about the shop and leaves the streak.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { RunSummary, SyncEvents } from '../pipeline/index.js';
import { SHOP_FAILURE_CODES } from '../shop/index.js';
import type { ShopStreak, StateStore } from '../state/index.js';

/** The `failingShops:` settings. */
export type FailingShopsSettings = Config['failingShops'];

/** Whether a streak has lasted long enough, in runs and in time, to pause its shop. */
export function pauseDue(streak: ShopStreak, settings: FailingShopsSettings, now: number): boolean {
  if (settings.pauseAfterRuns === 0 || streak.pausedAt !== null || streak.failingSince === null) return false;
  return streak.failures >= settings.pauseAfterRuns && now - streak.failingSince >= settings.pauseAfterHours * 3_600_000;
}

/** A running tracker; `settle()` waits for the state writes of runs that finished. */
export interface ShopStreakTracker {
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** Count each finished run towards its shop's streak, and pause a shop whose streak is due. */
export function trackShopStreaks(o: {
  readonly state: StateStore;
  readonly events: SyncEvents;
  readonly settings: FailingShopsSettings;
  readonly shopOf: (pipeline: string) => string | undefined;
  readonly logger: Logger;
  readonly now?: () => number;
}): ShopStreakTracker {
  const now = o.now ?? Date.now;
  const pending = new Set<Promise<void>>();
  const onRun = async (s: RunSummary): Promise<void> => {
    const shop = o.shopOf(s.pipeline);
    if (shop === undefined || s.mode === 'dry-run') return;
    const log = o.logger.child({ shop });
    if (s.status === 'succeeded' || s.status === 'partial') {
      const { wasPaused } = await o.state.streaks.worked(shop);
      if (wasPaused) log.info({ pipeline: s.pipeline, runId: s.runId }, `shop ${shop} is no longer paused: run ${s.runId} of ${s.pipeline} worked; its scheduled runs go ahead again`);
      return;
    }
    if (s.status !== 'failed' || !s.error || !SHOP_FAILURE_CODES.has(s.error.code)) return;
    const at = now();
    const streak = await o.state.streaks.failed(shop, at, `[${s.error.code}] ${s.error.message}`);
    if (streak.failures === o.settings.warnAfterRuns) log.warn({ failures: streak.failures, since: new Date(streak.failingSince ?? at).toISOString() }, `shop ${shop} failed ${streak.failures} runs in a row; it is paused after ${o.settings.pauseAfterRuns} spanning ${o.settings.pauseAfterHours} h (failingShops)`);
    if (!pauseDue(streak, o.settings, at)) return;
    const reason = `${streak.failures} runs in a row failed since ${new Date(streak.failingSince ?? at).toISOString()}; last: ${streak.lastError ?? ''}`;
    if (await o.state.streaks.pause(shop, at, reason)) log.error({ failures: streak.failures }, `shop ${shop} paused: ${reason}. Its scheduled runs are skipped until \`shopsync shops resume ${shop}\` (or a run that works)`);
  };
  const unsubscribe = o.events.on('run-finished', (e) => {
    const p = onRun(e.summary).catch((err: unknown) => o.logger.error({ err: err instanceof Error ? err.message : String(err), pipeline: e.summary.pipeline }, 'could not count the run towards its shop\'s failure streak'));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  });
  const settle = async () => {
    await Promise.all([...pending]);
  };
  return {
    settle,
    async stop() {
      unsubscribe();
      await settle();
    },
  };
}

/** The pause of a pipeline's shop, if it is paused (scheduled ticks skip it). */
export async function pausedShopOf(state: StateStore, shop: string): Promise<ShopStreak | undefined> {
  const streak = await state.streaks.get(shop);
  return streak?.pausedAt != null ? streak : undefined;
}
