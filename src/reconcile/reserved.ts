/**
 * Reservations in a reconciliation (issue 43, item 4): with `stock: reserved` the figure a stock
 * push would send is the ERP's figure less the shop orders the ERP has not booked yet, so the ERP
 * side is compared (and repaired) as exactly that. A shop that shows 7 while the ERP holds 10 and
 * an order of 3 waits to be booked is in step, not drifting; a repair never sends more than 7.
 * Per article (`products_quantity`, by the mapping's shop key) and per SKU (`options[].quantity`,
 * by the entry's `model`); warehouse rows only when the pipeline names the shop's warehouse.
 */
import { reservedFigure, unbookedFor, unbookedKey, type Unbooked } from '../reservations/index.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { StockDef } from '../shop/registry/index.js';
import type { StateStore } from '../state/index.js';
import { canonicalDecimal, numberText } from '../util/decimal.js';
import { isRecord } from '../util/guards.js';

/** What one stock field of one record had subtracted. */
export interface FieldReservation {
  /** The field path as the report names it (`products_quantity`, `options[2].quantity`). */
  readonly field: string;
  /** The ERP's figure before reservations. */
  readonly erp: number;
  /** Units of unbooked orders subtracted. */
  readonly units: number;
  readonly orders: readonly number[];
}

/** Totals of a reconciliation's reservations (the report's `reservations`). */
export interface ReservationTotals {
  /** `reserved`: the ERP figure is on hand and unbooked orders were subtracted; `available`: nothing subtracted. */
  readonly stock: 'reserved' | 'available';
  /** Units subtracted over all compared records. */
  units: number;
  /** Records whose stock had something subtracted. */
  records: number;
  /** Distinct shop orders behind them. */
  readonly orders: Set<number>;
}

/** Where the reservations of one pipeline apply. */
export interface ReservationScope {
  readonly shop: string;
  /** The resource's stock fields (registry) and the field holding the article an order line names. */
  readonly stock: StockDef;
  /** `reservations.warehouse`: the storages_id the shop's orders take from, when named. */
  readonly warehouse?: number;
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && canonicalDecimal(v.trim()) !== undefined) return Number(v);
  return undefined;
}

/** The reduced figure in the form the ERP figure came in (a decimal text stays text). */
function like(original: unknown, value: number): unknown {
  const rounded = Math.round(value * 1e8) / 1e8;
  return typeof original === 'string' ? (numberText(rounded) ?? String(rounded)) : rounded;
}

/** Subtract the unbooked units of `u` from `payload[field]` (in place); the record of it, when something was. */
function subtract(payload: Record<string, unknown>, field: string, path: string, u: Unbooked | undefined): FieldReservation | undefined {
  const erp = asNumber(payload[field]);
  if (erp === undefined || !u || u.units <= 0) return undefined;
  payload[field] = like(payload[field], reservedFigure(erp, u.units));
  return { field: path, erp, units: u.units, orders: u.orders };
}

/**
 * Apply the unbooked orders to mapped payloads (in place), as the stock push does; returns per
 * payload what was subtracted. One ledger read per batch of payloads.
 */
export async function applyReservations(state: StateStore, scope: ReservationScope, payloads: readonly Record<string, unknown>[]): Promise<FieldReservation[][]> {
  const articles = [...new Set(payloads.map((p) => p[scope.stock.article]).filter((a): a is string | number => typeof a === 'string' || typeof a === 'number').map(String))];
  if (articles.length === 0) return payloads.map(() => []);
  const unbooked = await unbookedFor(state, scope.shop, articles);
  // The shop books an item with attributes on the product's quantity and on its SKU's: the article figure carries every line of it.
  const perArticle = new Map<string, Unbooked>();
  for (const u of unbooked.values()) {
    const had = perArticle.get(u.article);
    perArticle.set(u.article, { article: u.article, units: (had?.units ?? 0) + u.units, orders: [...new Set([...(had?.orders ?? []), ...u.orders])] });
  }
  return payloads.map((payload) => {
    const out: FieldReservation[] = [];
    const article = payload[scope.stock.article];
    if (article === undefined || article === null) return out;
    const a = String(article);
    for (const f of scope.stock.fields) {
      if (f.kind === 'scalar') {
        const r = subtract(payload, f.field, f.field, perArticle.get(a));
        if (r) out.push(r);
        continue;
      }
      const list = payload[f.list];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (!isRecord(entry)) return;
        const path = `${f.list}[${i}].${f.quantity}`;
        if (f.kind === 'skus') {
          if (entry[f.model] === undefined || entry[f.model] === null) return;
          const r = subtract(entry, f.quantity, path, unbooked.get(unbookedKey(a, String(entry[f.model]))));
          if (r) out.push(r);
          return;
        }
        // Warehouse rows are the ERP's own unless the pipeline names the one the shop's orders take from.
        if (scope.warehouse === undefined || Number(entry[f.warehouse]) !== scope.warehouse) return;
        const r = subtract(entry, f.quantity, path, perArticle.get(a));
        if (r) out.push(r);
      });
    }
    return out;
  });
}

/**
 * The stock choice of a pipeline: `reserved` (the mapping says `stock: reserved`; the pipeline's
 * `reservations:` is required by the config then), `available`, or undefined when the mapping makes
 * none (reconcile then compares the ERP figure as it is, as the push does, and `mappings check`
 * warns STOCK_CHOICE_MISSING).
 */
export function stockChoice(def: PipelineDefinition, mapping: CompiledMapping): { readonly stock: 'reserved' | 'available'; readonly warehouse?: number } | undefined {
  if (mapping.stock === undefined) return undefined;
  if (mapping.stock === 'available') return { stock: 'available' };
  const warehouse = def.reservations?.warehouse;
  return { stock: 'reserved', ...(warehouse !== undefined ? { warehouse } : {}) };
}
