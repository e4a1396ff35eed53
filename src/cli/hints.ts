/**
 * The settings a run's hint names (`summaryLine` in ./format.ts), read from the loaded config. Apart
 * from format.ts: it needs the config's code, which commands load when they read the config, not at start.
 */
import type { LoadedConfig } from '../config/index.js';
import { alertShopsOf } from '../alerts/shops.js';
import type { HintSettings } from './format.js';

/** The hint settings of `pipeline`'s shop in the loaded config. */
export function hintSettingsOf(loaded: Pick<LoadedConfig, 'config' | 'origin'>, pipeline: string): HintSettings {
  const shops = alertShopsOf(loaded);
  const shop = shops.of(pipeline);
  return { credentials: shops.credentials(shop), url: shops.url(shop) };
}
