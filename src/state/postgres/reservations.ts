/** The reservation ledger and the stock sent per field (PostgreSQL): one statement per change, so replicas lose nothing. */
import type pg from 'pg';
import type { ReservationLine, ReservationStore, StockSent, StockSentStore } from '../../reservations/types.js';
import { byRecord, DELIVERED_FILL, RELEASED_FILL, lineOf, lineValues, stockSentOf, UPSERT_TAIL, type ReservationRow, type StockSentRow } from '../reservationRows.js';
import { execute, query, transaction } from './db.js';

const OPEN = 'booked_at IS NULL AND released_at IS NULL';

/** The reservations and reservation_cursors tables. */
export class PgReservations implements ReservationStore {
  constructor(private readonly pool: pg.Pool) {}

  async record(lines: readonly ReservationLine[]): Promise<void> {
    if (lines.length === 0) return;
    await transaction(this.pool, async (client) => {
      for (const l of lines) {
        await execute(
          client,
          `INSERT INTO reservations (shop, orders_id, pos, article, sku, warehouse, quantity, placed_at, seen_at, delivered_at, booked_at, released_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ${UPSERT_TAIL}`,
          lineValues(l),
        );
      }
      await execute(client, DELIVERED_FILL);
      await execute(client, RELEASED_FILL);
    });
  }

  async unbooked(shop: string, articles?: readonly string[]): Promise<ReservationLine[]> {
    if (articles === undefined) return (await query<ReservationRow>(this.pool, `SELECT * FROM reservations WHERE shop = $1 AND ${OPEN} ORDER BY orders_id, pos`, [shop])).map(lineOf);
    if (articles.length === 0) return [];
    const rows = await query<ReservationRow>(this.pool, `SELECT * FROM reservations WHERE shop = $1 AND ${OPEN} AND article = ANY($2::text[]) ORDER BY orders_id, pos`, [shop, [...new Set(articles)]]);
    return rows.map(lineOf);
  }

  private async stamp(column: 'booked_at' | 'delivered_at' | 'released_at', shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    if (ordersIds.length === 0) return;
    await execute(this.pool, `UPDATE reservations SET ${column} = $1 WHERE shop = $2 AND ${column} IS NULL AND orders_id = ANY($3::bigint[])`, [at, shop, [...new Set(ordersIds)]]);
  }

  async markBooked(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    await this.stamp('booked_at', shop, ordersIds, at);
  }

  async delivered(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    if (ordersIds.length === 0) return;
    await execute(this.pool, 'INSERT INTO reservation_deliveries (shop, orders_id, at) SELECT $1, id, $3 FROM unnest($2::bigint[]) AS id ON CONFLICT (shop, orders_id) DO NOTHING', [shop, [...new Set(ordersIds)], at]);
    await this.stamp('delivered_at', shop, ordersIds, at);
  }

  async release(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    if (ordersIds.length === 0) return;
    await execute(this.pool, 'INSERT INTO reservation_releases (shop, orders_id, at) SELECT $1, id, $3 FROM unnest($2::bigint[]) AS id ON CONFLICT (shop, orders_id) DO NOTHING', [shop, [...new Set(ordersIds)], at]);
    await this.stamp('released_at', shop, ordersIds, at);
  }

  async released(shop: string, since: string): Promise<ReservationLine[]> {
    return (await query<ReservationRow>(this.pool, 'SELECT * FROM reservations WHERE shop = $1 AND booked_at IS NULL AND released_at >= $2 ORDER BY orders_id, pos', [shop, since])).map(lineOf);
  }

  async oldestUnbooked(shop: string): Promise<ReservationLine | undefined> {
    const [row] = await query<ReservationRow>(this.pool, `SELECT * FROM reservations WHERE shop = $1 AND ${OPEN} ORDER BY seen_at, orders_id, pos LIMIT 1`, [shop]);
    return row ? lineOf(row) : undefined;
  }

  async unbookedUnits(shop: string): Promise<number> {
    const [row] = await query<{ n: number | string | null }>(this.pool, `SELECT SUM(quantity) AS n FROM reservations WHERE shop = $1 AND ${OPEN}`, [shop]);
    return Number(row?.n ?? 0);
  }

  async cursor(shop: string): Promise<string | undefined> {
    const [row] = await query<{ day: string }>(this.pool, 'SELECT day FROM reservation_cursors WHERE shop = $1', [shop]);
    return row?.day;
  }

  async setCursor(shop: string, day: string): Promise<void> {
    await execute(this.pool, 'INSERT INTO reservation_cursors (shop, day) VALUES ($1, $2) ON CONFLICT (shop) DO UPDATE SET day = excluded.day', [shop, day]);
  }
}

/** The stock_sent table. */
export class PgStockSent implements StockSentStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, StockSent[]>> {
    if (recordKeys.length === 0) return new Map();
    const rows = await query<StockSentRow>(this.pool, 'SELECT * FROM stock_sent WHERE pipeline = $1 AND record_key = ANY($2::text[]) ORDER BY field', [pipeline, [...new Set(recordKeys)]]);
    return byRecord(rows.map(stockSentOf));
  }

  async put(rows: readonly StockSent[]): Promise<void> {
    if (rows.length === 0) return;
    await transaction(this.pool, async (client) => {
      for (const r of rows) {
        await execute(
          client,
          `INSERT INTO stock_sent (pipeline, record_key, field, erp, reserved, sent, at) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (pipeline, record_key, field) DO UPDATE SET erp = excluded.erp, reserved = excluded.reserved, sent = excluded.sent, at = excluded.at`,
          [r.pipeline, r.recordKey, r.field, r.erp, r.reserved, r.sent, r.at],
        );
      }
    });
  }

  async of(pipeline: string, recordKey: string): Promise<StockSent[]> {
    return (await query<StockSentRow>(this.pool, 'SELECT * FROM stock_sent WHERE pipeline = $1 AND record_key = $2 ORDER BY field', [pipeline, recordKey])).map(stockSentOf);
  }
}
