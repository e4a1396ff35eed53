/**
 * SHOP_STATUS_GUARD_MISSING where a config is checked (`mappings check`, `doctor`): a push whose
 * mapping writes a followed resource's status, with no `shopStatus:` and no following pull of the
 * same shop to take the cancelled statuses from. The run says it too (src/follow/guard.ts).
 */
import type { LoadedConfig } from '../config/index.js';
import { loadMapping } from '../mapping/index.js';
import { resolveMappingPath } from '../ops/runtime.js';
import { followOf, shopStatusWarning, type ShopStatusWarning } from './shopStatus.js';

/** One pipeline's warning, with the mapping file it concerns. */
export interface PipelineShopStatusWarning extends ShopStatusWarning {
  readonly pipeline: string;
  readonly file: string;
}

/** The warnings of a loaded config's push pipelines (of mapping files among `files`, when given). */
export async function shopStatusWarnings(loaded: LoadedConfig, files?: ReadonlySet<string>): Promise<PipelineShopStatusWarning[]> {
  const out: PipelineShopStatusWarning[] = [];
  for (const p of loaded.config.pipelines) {
    if (p.direction !== 'push' || !followOf(p.resource)) continue;
    const file = resolveMappingPath(p.mapping, loaded.baseDir);
    if (files && files.size > 0 && !files.has(file)) continue;
    let mapping;
    try {
      mapping = await loadMapping(file, { vars: p.vars });
    } catch {
      // A mapping that does not load is reported by its own check.
      continue;
    }
    const warning = shopStatusWarning(p, mapping);
    if (warning) out.push({ ...warning, pipeline: p.name, file });
  }
  return out;
}
