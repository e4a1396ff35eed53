/**
 * The push pipeline's `shopStatus:` block (issue 44, "the way back"): which shop statuses mean the
 * order is cancelled (final: a push never re-opens it) and what happens when the shop and the ERP
 * both changed an order's status (`report`: a dead letter, nothing sent; `erp-wins`: sent).
 * docs/pipelines-and-state.md "Back-sync".
 */
import { z } from 'zod';
import type { CompiledMapping } from '../mapping/types.js';
import { getResource, isResourceName, type FollowDef } from '../shop/registry/index.js';

export const shopStatusSchema = z.strictObject({
  /** Shop statuses that mean cancelled: an order the shop holds in one is never set to another status by a push. @default the same shop's following pull's `follow.cancelled` */
  cancelled: z.array(z.coerce.number().int().min(0)).default([]),
  /** A status both the shop and the ERP changed: `report` (dead letter ORDER_STATUS_CONFLICT, not sent) or `erp-wins` (sent). @default report */
  conflicts: z.enum(['report', 'erp-wins']).default('report'),
});

/** A validated `shopStatus:` block. */
export type ShopStatusConfig = z.output<typeof shopStatusSchema>;

/** The part of a pipeline definition the guard's config reads. */
interface GuardedPipeline {
  readonly name: string;
  readonly direction: 'push' | 'pull';
  readonly shop: string;
  readonly resource: string;
  shopStatus?: ShopStatusConfig | undefined;
  readonly follow?: { readonly cancelled: readonly number[] } | undefined;
}

/** The registry's follow description of a pipeline's resource, when it has one. */
export function followOf(resource: string): FollowDef | undefined {
  if (!isResourceName(resource)) return undefined;
  return getResource(resource).follow;
}

/** Whether a mapping changes existing records' status (the status field, or entries of the status log); a create-only mapping never does. */
export function writesStatus(mapping: Pick<CompiledMapping, 'targets' | 'operation'>, follow: FollowDef): boolean {
  if (mapping.operation === 'create') return false;
  const targets = new Set((mapping.targets ?? []).map((t) => t.split('.')[0]!));
  return targets.has(follow.status) || targets.has(follow.history.list);
}

/**
 * Fill `shopStatus:` of push pipelines of a followed resource that do not write one, from the same
 * shop's pull of that resource with `follow:` (its `cancelled`): one list of cancelled statuses
 * serves both ways, so a config that follows orders needs no second copy. Mutates the definitions.
 */
export function fillShopStatus(pipelines: readonly GuardedPipeline[]): void {
  for (const p of pipelines) {
    if (p.direction !== 'push' || p.shopStatus !== undefined || !followOf(p.resource)) continue;
    const pull = pipelines.find((q) => q.direction === 'pull' && q.shop === p.shop && q.resource === p.resource && q.follow && q.follow.cancelled.length > 0);
    if (pull?.follow) p.shopStatus = { cancelled: [...pull.follow.cancelled], conflicts: 'report' };
  }
}

/** A push that writes a followed record's status without knowing which shop statuses are cancelled. */
export interface ShopStatusWarning {
  readonly code: 'SHOP_STATUS_GUARD_MISSING';
  readonly message: string;
}

/** The warning of a push pipeline (after `fillShopStatus`) whose mapping writes the status; undefined when the guard is complete or not concerned. */
export function shopStatusWarning(def: GuardedPipeline, mapping: Pick<CompiledMapping, 'targets' | 'operation'>): ShopStatusWarning | undefined {
  const follow = followOf(def.resource);
  if (def.direction !== 'push' || !follow || !writesStatus(mapping, follow) || def.shopStatus !== undefined) return undefined;
  return {
    code: 'SHOP_STATUS_GUARD_MISSING',
    message: `pipeline ${def.name} writes the ${def.resource}' status but knows no cancelled status of the shop: add \`shopStatus: { cancelled: [4] }\` (the shop's cancelled status ids) to the pipeline, or \`follow: { until: [...], cancelled: [...] }\` to the shop's ${def.resource} pull. Until then a push can re-open an order the shop cancelled; only a status both sides changed (known from followed orders) is reported (docs/pipelines-and-state.md "Back-sync")`,
  };
}
