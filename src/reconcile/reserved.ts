/**
 * Reservations in a reconciliation (issue 43, item 4): with `stock: reserved` the figure a stock
 * push would send is the ERP's figure less the shop orders the ERP has not booked yet, so the ERP
 * side is compared (and repaired) as exactly that. A shop that shows 7 while the ERP holds 10 and
 * an order of 3 waits to be booked is in step, not drifting; a repair never sends more than 7.
 * The subtraction is the stock push's own (src/reservations/push.ts), opened the same way: the
 * shop's orders since the last read are recorded and the ERP asked which it booked, first.
 */
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { StockFigure } from '../reservations/apply.js';
import { StockPush } from '../reservations/push.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { PipelineDeps } from '../pipeline/types.js';
import type { ResourceDef, StockDef } from '../shop/registry/index.js';
import { isRecord } from '../util/guards.js';

/** What one stock field of one record had subtracted. */
export interface FieldReservation {
  /** The field path as the comparison names it (`products_quantity`, `options[2].quantity`, `storages[0].products_quantity`). */
  readonly field: string;
  /** The ERP's figure before reservations. */
  readonly erp: number;
  /** Units of unbooked orders subtracted. */
  readonly units: number;
  readonly orders: readonly number[];
}

/** Totals of a reconciliation's reservations (the report's `reservations`). */
export interface ReservationTotals {
  /** `reserved`: the ERP figure is on hand and unbooked orders were subtracted; `available` or `missing` (no `stock:`): nothing subtracted. */
  readonly stock: 'reserved' | 'available' | 'missing';
  /** Units subtracted over all compared records. */
  units: number;
  /** Records whose stock had something subtracted. */
  records: number;
  /** Distinct shop orders behind them. */
  readonly orders: Set<number>;
}

/** The mapping's stock choice; `missing` when it writes stock without one (`mappings check` warns STOCK_CHOICE_MISSING). */
export function stockChoice(mapping: CompiledMapping): 'reserved' | 'available' | 'missing' {
  return mapping.stock ?? 'missing';
}

/** Open the stock push's reservations for a reconciliation (or its repair); undefined when the mapping writes no stock. */
export function openStock(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef, logger: Logger): Promise<StockPush | undefined> {
  return StockPush.open({ def, resource, mapping: deps.mapping, state: deps.state, shop: deps.shop, logger, dryRun: false, ...(deps.lookups ? { lookups: deps.lookups } : {}) });
}

/** The index of the list entry a stock figure names (`options[SKU-1]`, `storages[1/0]`), as the comparison counts entries. */
function entryIndex(payload: Record<string, unknown>, stock: StockDef, figure: StockFigure): string {
  if (figure.kind === 'scalar') return figure.field;
  const def = stock.fields.find((f) => f.kind === figure.kind);
  if (!def || def.kind === 'scalar') return figure.field;
  const list = payload[def.list];
  if (!Array.isArray(list)) return figure.field;
  const id = figure.field.slice(def.list.length + 1, figure.field.lastIndexOf(']'));
  const at = list.findIndex((e) => isRecord(e) && (def.kind === 'skus' ? String(e[def.model]) === id : def.keys.map((k) => String(e[k] ?? 0)).join('/') === id));
  return at < 0 ? figure.field : `${def.list}[${at}].${def.quantity}`;
}

/** Apply the unbooked orders to one mapped payload as the push does; the payload to compare and what came off it. */
export function reserveOne(stock: StockPush, def: StockDef, payload: Record<string, unknown>, record: Record<string, unknown>): { payload: Record<string, unknown>; reserved: FieldReservation[] } {
  const applied = stock.apply(payload, record);
  const reserved = applied.figures.filter((f) => f.reserved > 0).map((f) => ({ field: entryIndex(applied.payload, def, f), erp: f.erp, units: f.reserved, orders: f.orders }));
  return { payload: applied.payload, reserved };
}
