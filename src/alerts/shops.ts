/**
 * What alerts need to know about shops: the shop of each pipeline, how a message names a shop,
 * and the exact setting that holds its credentials as the config wrote it (`shops.at.token`, or
 * `shop.token` for a config with one `shop:` block), so a message says what to fix.
 */
import type { LoadedConfig } from '../config/index.js';
import { shopsOf } from '../config/index.js';
import { settingOrigin } from '../config/origins.js';
import { DEFAULT_SHOP } from '../state/store.js';

/** The shops as alert messages name them. */
export interface AlertShops {
  /** The shop of a pipeline (`default` for one the config does not name). */
  of(pipeline: string): string;
  /** The pipelines of a shop, in config order; undefined when not known (then the state's runs tell). */
  pipelines(shop: string): string[] | undefined;
  /** How a message names a shop: `the shop` for the lone `shop:` block, else `shop at`. */
  label(shop: string): string;
  /** Whether messages name the shop at all (not for the lone `shop:` block, where `the shop` says it). */
  named(shop: string): boolean;
  /** The setting to fix when the shop refuses the credentials: `shops.at.token (shopsync.yaml:12, from AT_TOKEN)`. */
  credentials(shop: string): string;
  /** The setting of the shop's address, for a shop that does not answer: `shops.at.baseUrl (shopsync.yaml:11, from AT_URL)`. */
  url(shop: string): string;
}

/** Without a config (tests of the watcher alone): every pipeline in the shop named default, written as `shop:`. */
export const singleShop: AlertShops = {
  of: () => DEFAULT_SHOP,
  pipelines: () => undefined,
  label: () => 'the shop',
  named: () => false,
  credentials: () => 'shop.token (or shop.oauth)',
  url: () => 'shop.baseUrl',
};

/** The shops of a loaded config. */
export function alertShopsOf(loaded: Pick<LoadedConfig, 'config' | 'origin'>): AlertShops {
  const { config } = loaded;
  const shops = shopsOf(config);
  const names = Object.keys(shops);
  // `shop:` is the shop named default; `shops: { default: … }` is written under shops.
  const pathOf = (shop: string): string[] => (shop === DEFAULT_SHOP && config.shop ? ['shop'] : ['shops', shop]);
  const byPipeline = new Map(config.pipelines.map((p) => [p.name, p.shop]));
  /** A setting as the config wrote it, with its file:line and variable when known. */
  const written = (shop: string, key: string[]) => (loaded.origin ? settingOrigin(loaded.origin, [...pathOf(shop), ...key]) : undefined) ?? [...pathOf(shop), ...key].join('.');
  return {
    of: (pipeline) => byPipeline.get(pipeline) ?? DEFAULT_SHOP,
    pipelines: (shop) => config.pipelines.filter((p) => p.shop === shop).map((p) => p.name),
    named: (shop) => !(names.length === 1 && pathOf(shop)[0] === 'shop'),
    label(shop) {
      return this.named(shop) ? `shop ${shop}` : 'the shop';
    },
    credentials(shop) {
      if (shops[shop]?.oauth) return `${written(shop, ['oauth', 'clientId'])} and ${written(shop, ['oauth', 'clientSecret'])} (the OAuth client${shops[shop]?.oauth?.scopes ? `, and ${pathOf(shop).join('.')}.oauth.scopes` : ''})`;
      return written(shop, ['token']);
    },
    url: (shop) => written(shop, ['baseUrl']),
  };
}
