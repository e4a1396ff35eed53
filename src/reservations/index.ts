/**
 * Reservations (issue 43): what a stock push subtracts from the ERP's figure for shop orders the
 * ERP has not booked yet. docs/catalog.md "Stock and orders in flight".
 */
import type { ReservationLine, ReservationStore, Unbooked } from './types.js';

export type { ReservationLine, ReservationStore, StockSent, StockSentStore, Unbooked } from './types.js';

export { reservedFigure } from './figure.js';
export { applyReservations, type Applied, type StockFigure, type StockWarning } from './apply.js';
export { dropUnchangedStock } from './sent.js';
export { refreshReservations, type RefreshResult } from './refresh.js';
export { bookedByChange, bookedByQuery } from './booked.js';
export { mappingStockWarning, stockChoiceProblem, writesStock, type StockChoiceProblem } from './choice.js';
export { reservationsSchema, type ReservationsConfig } from './schema.js';

/** The map key of an article, or of one SKU of it. */
export function unbookedKey(article: string, sku?: string): string {
  return sku === undefined ? article : `${article}|${sku}`;
}

/**
 * Unbooked units of `articles` in `shop`, keyed `article` (lines without SKU) or `article|sku`.
 * Lines are summed per key; a line naming a warehouse is kept in its own entry only through
 * `warehouse` (the per-warehouse caller filters by it).
 */
export async function unbookedFor(state: { readonly reservations: ReservationStore }, shop: string, articles: readonly string[]): Promise<Map<string, Unbooked>> {
  return sumLines(await state.reservations.unbooked(shop, articles));
}

/** Lines summed per `article` / `article|sku`. */
export function sumLines(lines: readonly ReservationLine[]): Map<string, Unbooked> {
  const out = new Map<string, Unbooked>();
  for (const l of lines) {
    const key = unbookedKey(l.article, l.sku);
    const had = out.get(key);
    const orders = had ? (had.orders.includes(l.ordersId) ? had.orders : [...had.orders, l.ordersId]) : [l.ordersId];
    out.set(key, {
      article: l.article,
      ...(l.sku !== undefined ? { sku: l.sku } : {}),
      ...(l.warehouse !== undefined ? { warehouse: l.warehouse } : {}),
      units: (had?.units ?? 0) + l.quantity,
      orders,
    });
  }
  return out;
}
