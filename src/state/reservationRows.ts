/** Rows of the reservation tables as both backends read them, and back. */
import type { ReservationLine, StockSent } from '../reservations/types.js';

/** A reservations row (SQLite and PostgreSQL read alike: BIGINT comes back as number). */
export interface ReservationRow {
  shop: string;
  orders_id: number | string;
  pos: number | string;
  article: string;
  sku: string | null;
  warehouse: number | string | null;
  quantity: number | string;
  placed_at: string;
  seen_at: string;
  delivered_at: string | null;
  booked_at: string | null;
  released_at: string | null;
}

/** A stock_sent row. */
export interface StockSentRow {
  pipeline: string;
  record_key: string;
  field: string;
  erp: string;
  reserved: string;
  sent: string;
  at: string;
}

/** The contract's line of a row; absent columns stay absent (exactOptionalPropertyTypes). */
export function lineOf(r: ReservationRow): ReservationLine {
  return {
    shop: r.shop,
    ordersId: Number(r.orders_id),
    pos: Number(r.pos),
    article: r.article,
    ...(r.sku !== null ? { sku: r.sku } : {}),
    ...(r.warehouse !== null ? { warehouse: Number(r.warehouse) } : {}),
    quantity: Number(r.quantity),
    placedAt: r.placed_at,
    seenAt: r.seen_at,
    ...(r.delivered_at !== null ? { deliveredAt: r.delivered_at } : {}),
    ...(r.booked_at !== null ? { bookedAt: r.booked_at } : {}),
    ...(r.released_at !== null ? { releasedAt: r.released_at } : {}),
  };
}

/** The values of a line in column order of the INSERT both backends use. */
export function lineValues(l: ReservationLine): (string | number | null)[] {
  return [l.shop, l.ordersId, l.pos, l.article, l.sku ?? null, l.warehouse ?? null, l.quantity, l.placedAt, l.seenAt, l.deliveredAt ?? null, l.bookedAt ?? null, l.releasedAt ?? null];
}

/** The contract's row of stock sent. */
export function stockSentOf(r: StockSentRow): StockSent {
  return { pipeline: r.pipeline, recordKey: r.record_key, field: r.field, erp: r.erp, reserved: r.reserved, sent: r.sent, at: r.at };
}

/** Rows grouped by record key. */
export function byRecord(rows: readonly StockSent[]): Map<string, StockSent[]> {
  const out = new Map<string, StockSent[]>();
  for (const r of rows) {
    const list = out.get(r.recordKey);
    if (list) list.push(r);
    else out.set(r.recordKey, [r]);
  }
  return out;
}

/**
 * The upsert of a line: quantity/article/sku may be corrected by a later read (an edited order),
 * but the times shopsync recorded (seen, delivered, booked, released) are kept when already set.
 */
export const UPSERT_TAIL = `ON CONFLICT (shop, orders_id, pos) DO UPDATE SET article = excluded.article, sku = excluded.sku, warehouse = excluded.warehouse,
  quantity = excluded.quantity, placed_at = excluded.placed_at,
  delivered_at = COALESCE(reservations.delivered_at, excluded.delivered_at),
  booked_at = COALESCE(reservations.booked_at, excluded.booked_at),
  released_at = COALESCE(reservations.released_at, excluded.released_at)`;

/** After lines were recorded: those of orders released (cancelled, deleted) before they were read are released too. */
export const RELEASED_FILL = `UPDATE reservations SET released_at = (SELECT r.at FROM reservation_releases r WHERE r.shop = reservations.shop AND r.orders_id = reservations.orders_id)
  WHERE released_at IS NULL AND EXISTS (SELECT 1 FROM reservation_releases r WHERE r.shop = reservations.shop AND r.orders_id = reservations.orders_id)`;

/** After lines were recorded: those the orders pull delivered before they were read take its time. */
export const DELIVERED_FILL = `UPDATE reservations SET delivered_at = (SELECT d.at FROM reservation_deliveries d WHERE d.shop = reservations.shop AND d.orders_id = reservations.orders_id)
  WHERE delivered_at IS NULL AND EXISTS (SELECT 1 FROM reservation_deliveries d WHERE d.shop = reservations.shop AND d.orders_id = reservations.orders_id)`;
