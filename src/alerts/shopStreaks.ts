/**
 * The alerts of a shop failing for days (src/ops/shopStreaks.ts), read from the state's streaks so
 * that whichever process counted the run or paused the shop, every daemon agrees and the deployment
 * sends one message each: `shop-failing:<shop>` once `failingShops.warnAfterRuns` runs failed in a
 * row, `shop-paused:<shop>` while the shop is paused; each resolves when its condition ends.
 */
import type { StateStore } from '../state/index.js';
import { causeOfKind } from './causes.js';
import type { GroupedIncidents } from './grouping.js';
import type { Incidents } from './incidents.js';
import type { AlertShops } from './shops.js';

/** Open and resolve the shops' `shop-failing` and `shop-paused` incidents as the state says; their recoveries list the pipelines they held. */
export async function checkShopStreaks(incidents: Incidents, grouped: GroupedIncidents, state: StateStore, shops: AlertShops, warnAfterRuns: number): Promise<void> {
  const streaks = new Map((await state.streaks.list()).map((s) => [s.shop, s]));
  for (const s of streaks.values()) {
    const label = shops.label(s.shop);
    const since = s.failingSince !== null ? new Date(s.failingSince).toISOString() : 'unknown';
    if (s.pausedAt !== null) {
      await grouped.fireShop(
        'paused',
        s.shop,
        `${label} is paused since ${new Date(s.pausedAt).toISOString()}: ${s.pausedReason ?? ''}. Its scheduled runs are skipped and nothing is sent to it; its records wait in the ERP. Fix the cause, then \`shopsync shops resume ${s.shop}\` (a \`shopsync sync\` of one of its pipelines that works resumes it as well).`,
      );
    } else if (s.failures >= warnAfterRuns) {
      await grouped.fireShop('failing', s.shop, `${label}: ${s.failures} runs in a row failed since ${since}; last: ${s.lastError ?? ''}. It is paused if this goes on (failingShops.pauseAfterRuns and pauseAfterHours).`);
    }
  }
  for (const id of await incidents.list()) {
    const [kind, shop] = id.split(':', 2) as [string, string | undefined];
    const cause = causeOfKind(kind);
    if (shop === undefined || (cause !== 'paused' && cause !== 'failing')) continue;
    const s = streaks.get(shop);
    const label = shops.label(shop);
    if (cause === 'paused' && s?.pausedAt == null) await grouped.resolveShop('paused', shop, `${label} was resumed; its scheduled runs go ahead again.`);
    if (cause === 'failing' && (s === undefined || (s.failures < warnAfterRuns && s.pausedAt === null))) await grouped.resolveShop('failing', shop, `${label}: a run worked or the shop was resumed.`);
  }
}
