/**
 * A shop whose file did not load (src/config/shopFiles.ts) is known the moment the daemon starts,
 * and stays broken until a start loads it: `shop-broken:<shop>` opens at start (one message for the
 * deployment, however many replicas start with the same config) and resolves at a later start that
 * loads the shop again or no longer has it. Checked once per start, since the config is read only then.
 * During a rolling update replicas with the old and the new file disagree; the last one to start decides.
 */
import type { BrokenShop } from '../config/shopFiles.js';
import type { Incidents } from './incidents.js';
import type { AlertShops } from './shops.js';

/** Open `shop-broken` for each broken shop and resolve those of shops that load now. */
export async function checkBrokenShops(incidents: Incidents, broken: readonly BrokenShop[], shops: AlertShops): Promise<void> {
  for (const b of broken) {
    const label = shops.label(b.name);
    const pipelines = b.pipelines.length ? `its pipelines (${b.pipelines.join(', ')}) run nowhere` : 'it runs nowhere';
    await incidents.fire('shop-broken', { shop: b.name }, `${label} is broken: its file did not load`, `${label}: ${b.file}:${b.line} did not load, so ${pipelines}; the other shops run as usual.\n${b.message}\nFix the file (\`shopsync config check\` shows the same), then restart the daemon.`);
  }
  const now = new Set(broken.map((b) => b.name));
  for (const id of await incidents.list()) {
    const [kind, shop] = id.split(':', 2) as [string, string | undefined];
    if (kind !== 'shop-broken' || shop === undefined || now.has(shop)) continue;
    await incidents.resolve('shop-broken', { shop }, `${shops.label(shop)} loads again`, `${shops.label(shop)}: its file loaded at this start; its pipelines are scheduled again.`);
  }
}
