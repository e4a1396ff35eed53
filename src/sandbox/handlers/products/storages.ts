/**
 * storages[] (spec: Products import rule 9): stock per additional warehouse, keyed by
 * (storages_id, products_id, options_id); partial writes; no mirror, no delete.
 */
import type { SandboxContext } from '../../handler.js';
import { roundNumber } from '../../../util/decimal.js';
import { isRecord, phpFloat, phpInt, type RecordScope } from '../../kit.js';
import { skuIds } from './options.js';

type Row = Record<string, unknown>;

const QUANTITY_FIELDS = ['products_quantity', 'products_safe_quantity', 'products_reorder_level'] as const;
const TEXT_MAX = 50;

/** decimal(16,8): 8 decimals, rounded half-up as the mapping rounds (src/util/decimal.ts). */
function dec8(value: unknown): number {
  return roundNumber(phpFloat(value), 8);
}

/** Apply storages[] to a product (mutates `product.storages`). */
export function applyStorages(ctx: SandboxContext, product: Row, value: unknown, scope: RecordScope): void {
  if (!ctx.flag('EXTENDED_STORAGE_SYSTEM')) {
    scope.warn('STORAGE_SYSTEM_DISABLED', 'storages[] was ignored: the extended storage system (EXTENDED_STORAGE_SYSTEM) is disabled', 'storages');
    return;
  }
  if (!Array.isArray(value)) {
    scope.warn('STORAGE_INVALID', 'storages must be an array; ignored', 'storages');
    return;
  }
  const rows = ((product.storages as Row[] | undefined) ?? []).map((r) => ({ ...r }));
  const skus = skuIds(product);
  const active = new Set(ctx.reference().storages.filter((s) => s.active === 1).map((s) => s.storages_id));
  value.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const idRaw = raw.storages_id ?? raw.warehouse_id;
    // Missing or <= 0: skipped without any warning (as the shop does).
    const storagesId = idRaw === undefined || idRaw === null ? 0 : phpInt(idRaw);
    if (storagesId <= 0) return;
    if (!active.has(storagesId)) {
      scope.warn('STORAGE_NOT_FOUND', `storages[${i}]: warehouse ${storagesId} does not exist or is inactive; entry skipped`, `storages[${i}].storages_id`, { storages_id: storagesId });
      return;
    }
    const optionsId = raw.options_id === undefined || raw.options_id === null ? 0 : phpInt(raw.options_id);
    // Not shown in the spec: an options_id must name a SKU of this product (docs/spec-gaps.md, "Variants").
    if (optionsId !== 0 && !skus.has(optionsId)) {
      scope.warn('STORAGE_OPTION_NOT_FOUND', `storages[${i}]: options_id ${optionsId} names no variant (SKU) of this product; entry skipped`, `storages[${i}].options_id`, { options_id: optionsId });
      return;
    }
    const sent: Row = {};
    for (const f of QUANTITY_FIELDS) if (f in raw) sent[f] = raw[f] === null ? 0 : dec8(raw[f]);
    if ('products_storage_text' in raw) sent.products_storage_text = raw.products_storage_text === null ? '' : String(raw.products_storage_text);
    // An entry with only the key writes nothing.
    if (Object.keys(sent).length === 0) return;
    // The column is varchar(50) and the shop does not truncate: the database rejects the write, silently.
    if (typeof sent.products_storage_text === 'string' && [...sent.products_storage_text].length > TEXT_MAX) return;
    const existing = rows.find((r) => r.storages_id === storagesId && r.options_id === optionsId);
    if (existing) {
      Object.assign(existing, sent);
      return;
    }
    // A new row without both quantities is rejected by the database without an error in the response.
    if (!('products_quantity' in sent) || !('products_safe_quantity' in sent)) return;
    rows.push({ storages_id: storagesId, options_id: optionsId, products_quantity: 0, products_safe_quantity: 0, products_reorder_level: 0, products_storage_text: '', ...sent });
  });
  rows.sort((a, b) => (a.storages_id as number) - (b.storages_id as number) || (a.options_id as number) - (b.options_id as number));
  product.storages = rows;
}

/** The export's storages[] (every row, inactive warehouses included), or undefined when the system is off. */
export function storagesView(ctx: SandboxContext, product: Row): Row[] | undefined {
  if (!ctx.flag('EXTENDED_STORAGE_SYSTEM')) return undefined;
  return ((product.storages as Row[] | undefined) ?? []).map((r) => ({ ...r, products_id: product.products_id }));
}
