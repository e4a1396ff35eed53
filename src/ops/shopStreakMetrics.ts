/**
 * The shops' streak gauges on /metrics (./shopStreaks.ts keeps the streaks). Apart from the streaks:
 * every run counts them, but only a process that serves /metrics (the daemon) loads prom-client.
 */
import { Gauge, type Registry } from 'prom-client';
import type { StateStore } from '../state/index.js';

/** Register `shopsync_shop_paused{shop}` (1 while paused) and `shopsync_shop_failed_runs{shop}` (the streak), read from the state at scrape time. */
export function registerShopStreakMetrics(registry: Registry, state: StateStore, shops: readonly string[]): void {
  const read = async () => new Map((await state.streaks.list()).map((s) => [s.shop, s]));
  new Gauge({
    name: 'shopsync_shop_paused',
    help: 'Whether a shop is paused after failing for long (failingShops): its scheduled runs are skipped until `shopsync shops resume <shop>`',
    labelNames: ['shop'] as const,
    registers: [registry],
    async collect() {
      const streaks = await read();
      for (const shop of shops) this.set({ shop }, streaks.get(shop)?.pausedAt != null ? 1 : 0);
    },
  });
  new Gauge({
    name: 'shopsync_shop_failed_runs',
    help: 'Runs of a shop that failed in a row for a reason of the shop (no answer, 5xx, open circuit breaker, refused credentials)',
    labelNames: ['shop'] as const,
    registers: [registry],
    async collect() {
      const streaks = await read();
      for (const shop of shops) this.set({ shop }, streaks.get(shop)?.failures ?? 0);
    },
  });
}
