/**
 * The explicit choice every mapping that writes stock makes (issue 43): `stock: reserved` (the
 * pipeline's `reservations:` subtracts unbooked shop orders) or `stock: available` (the ERP's
 * figure already is what can be sold). Neither: warning STOCK_CHOICE_MISSING, in `mappings check`
 * and on every record of a run.
 */
import type { CompiledMapping } from '../mapping/types.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import { getResource, isResourceName, type StockDef } from '../shop/registry/index.js';

/** A stock choice that is missing or cannot work. */
export interface StockChoiceProblem {
  readonly code: 'STOCK_CHOICE_MISSING' | 'STOCK_RESERVATIONS_MISSING' | 'STOCK_RESERVATIONS_UNUSED';
  readonly message: string;
  /** The run cannot go on (reserved without reservations:, available with them). */
  readonly fatal: boolean;
}

/** Top-level fields the mapping writes that are stock fields of the resource. */
export function stockTargets(mapping: Pick<CompiledMapping, 'targets'>, stock: StockDef): string[] {
  const names = new Set(stock.fields.map((f) => (f.kind === 'scalar' ? f.field : f.list)));
  return [...new Set((mapping.targets ?? []).map((t) => t.split('.')[0]!))].filter((t) => names.has(t));
}

/** Whether the mapping writes a stock field of the resource. */
export function writesStock(mapping: Pick<CompiledMapping, 'targets'>, stock: StockDef): boolean {
  return stockTargets(mapping, stock).length > 0;
}

/** The mapping-level problem (for `mappings check`): a stock-writing erp-to-shop mapping without `stock:`. */
export function mappingStockWarning(mapping: Pick<CompiledMapping, 'targets' | 'stock' | 'resource' | 'direction' | 'name'>): StockChoiceProblem | undefined {
  if (mapping.direction !== 'erp-to-shop' || mapping.resource === undefined || !isResourceName(mapping.resource)) return undefined;
  const stock = getResource(mapping.resource).stock;
  if (!stock || mapping.stock !== undefined) return undefined;
  const fields = stockTargets(mapping, stock);
  if (fields.length === 0) return undefined;
  return {
    code: 'STOCK_CHOICE_MISSING',
    fatal: false,
    message: `mapping ${mapping.name} writes stock (${fields.join(', ')}) without saying what the figure is: add \`stock: reserved\` (the ERP's figure is on hand; the pipeline's reservations: subtracts the shop's orders the ERP has not booked) or \`stock: available\` (the ERP already subtracts them). Until then nothing is subtracted and a push can raise stock the shop has sold (docs/catalog.md "Stock and orders in flight")`,
  };
}

/** The problem of a mapping in its pipeline: the mapping's own, `reserved` without `reservations:`, or `available` with them. */
export function stockChoiceProblem(mapping: CompiledMapping, def: Pick<PipelineDefinition, 'name' | 'reservations'>): StockChoiceProblem | undefined {
  const own = mappingStockWarning(mapping);
  if (own) return own;
  if (mapping.stock === 'reserved' && !def.reservations) {
    return {
      code: 'STOCK_RESERVATIONS_MISSING',
      fatal: true,
      message: `pipeline ${def.name}: mapping ${mapping.name} says \`stock: reserved\` but the pipeline has no \`reservations:\`; add e.g. \`reservations: { booked: { query: "SELECT orders_id FROM shopsync_in_orders WHERE imported_at IS NOT NULL AND orders_id IN (:orders)" } }\` (or \`booked: { changedAfter: true }\`), or say \`stock: available\` if the ERP's figure already excludes the shop's orders`,
    };
  }
  if (mapping.stock === 'available' && def.reservations) {
    // The dashboard, /metrics and the stuck-import alert follow `reservations:` and would show units subtracted that never are.
    return {
      code: 'STOCK_RESERVATIONS_UNUSED',
      fatal: true,
      message: `pipeline ${def.name}: mapping ${mapping.name} says \`stock: available\` (the ERP's figure already excludes the shop's orders, nothing is subtracted) but the pipeline has \`reservations:\`, which the dashboard, /metrics and the stuck-import alert read as subtracting. Say \`stock: reserved\` in the mapping if the ERP's figure is on hand, or remove \`reservations:\` from the pipeline if it already is available`,
    };
  }
  return undefined;
}
