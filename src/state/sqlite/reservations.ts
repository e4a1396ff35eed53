/** The reservation ledger and the stock sent per field (SQLite): one statement per change. */
import type { ReservationLine, ReservationStore, StockSent, StockSentStore } from '../../reservations/types.js';
import { byRecord, DELIVERED_FILL, RELEASED_FILL, lineOf, lineValues, stockSentOf, UPSERT_TAIL, type ReservationRow, type StockSentRow } from '../reservationRows.js';
import { cached, chunks, marks, type Db } from './db.js';
import type { RowKind, WriteBuffer } from './writeBuffer.js';

const OPEN = 'booked_at IS NULL AND released_at IS NULL';

/** The reservations and reservation_cursors tables. */
export class SqliteReservations implements ReservationStore {
  constructor(private readonly db: Db) {}

  async record(lines: readonly ReservationLine[]): Promise<void> {
    const stmt = this.db.prepare(
      `INSERT INTO reservations (shop, orders_id, pos, article, sku, warehouse, quantity, placed_at, seen_at, delivered_at, booked_at, released_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${UPSERT_TAIL}`,
    );
    this.db.transaction(() => {
      for (const l of lines) stmt.run(...lineValues(l));
      if (lines.length > 0) {
        cached(this.db, DELIVERED_FILL).run();
        cached(this.db, RELEASED_FILL).run();
      }
    })();
  }

  async unbooked(shop: string, articles?: readonly string[]): Promise<ReservationLine[]> {
    if (articles === undefined) return cached<[string], ReservationRow>(this.db, `SELECT * FROM reservations WHERE shop = ? AND ${OPEN} ORDER BY orders_id, pos`).all(shop).map(lineOf);
    const out: ReservationLine[] = [];
    for (const part of chunks([...new Set(articles)])) {
      const rows = cached<string[], ReservationRow>(this.db, `SELECT * FROM reservations WHERE shop = ? AND ${OPEN} AND article IN (${marks(part.length)}) ORDER BY orders_id, pos`).all(shop, ...part);
      out.push(...rows.map(lineOf));
    }
    return out;
  }

  private stamp(column: 'booked_at' | 'delivered_at' | 'released_at', shop: string, ordersIds: readonly number[], at: string): void {
    for (const part of chunks([...new Set(ordersIds.map(String))])) {
      cached(this.db, `UPDATE reservations SET ${column} = ? WHERE shop = ? AND ${column} IS NULL AND orders_id IN (${marks(part.length)})`).run(at, shop, ...part.map(Number));
    }
  }

  async markBooked(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    this.stamp('booked_at', shop, ordersIds, at);
  }

  async delivered(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    const keep = cached(this.db, 'INSERT INTO reservation_deliveries (shop, orders_id, at) VALUES (?, ?, ?) ON CONFLICT (shop, orders_id) DO NOTHING');
    this.db.transaction(() => {
      for (const id of new Set(ordersIds)) keep.run(shop, id, at);
      this.stamp('delivered_at', shop, ordersIds, at);
    })();
  }

  async release(shop: string, ordersIds: readonly number[], at: string): Promise<void> {
    const keep = cached(this.db, 'INSERT INTO reservation_releases (shop, orders_id, at) VALUES (?, ?, ?) ON CONFLICT (shop, orders_id) DO NOTHING');
    this.db.transaction(() => {
      for (const id of new Set(ordersIds)) keep.run(shop, id, at);
      this.stamp('released_at', shop, ordersIds, at);
    })();
  }

  async released(shop: string, since: string): Promise<ReservationLine[]> {
    return cached<[string, string], ReservationRow>(this.db, 'SELECT * FROM reservations WHERE shop = ? AND booked_at IS NULL AND released_at >= ? ORDER BY orders_id, pos').all(shop, since).map(lineOf);
  }

  async oldestUnbooked(shop: string): Promise<ReservationLine | undefined> {
    const row = cached<[string], ReservationRow>(this.db, `SELECT * FROM reservations WHERE shop = ? AND ${OPEN} ORDER BY seen_at, orders_id, pos LIMIT 1`).get(shop);
    return row ? lineOf(row) : undefined;
  }

  async unbookedUnits(shop: string): Promise<number> {
    return Number(cached<[string], { n: number | null }>(this.db, `SELECT SUM(quantity) AS n FROM reservations WHERE shop = ? AND ${OPEN}`).get(shop)?.n ?? 0);
  }

  async cursor(shop: string): Promise<string | undefined> {
    return cached<[string], { day: string }>(this.db, 'SELECT day FROM reservation_cursors WHERE shop = ?').get(shop)?.day;
  }

  async setCursor(shop: string, day: string): Promise<void> {
    cached(this.db, 'INSERT INTO reservation_cursors (shop, day) VALUES (?, ?) ON CONFLICT (shop) DO UPDATE SET day = excluded.day').run(shop, day);
  }
}

/** A figure sent as a buffered row, upserted by (pipeline, record, field). */
const STOCK_SENT_ROW: RowKind = {
  head: 'INSERT INTO stock_sent (pipeline, record_key, field, erp, reserved, sent, at) VALUES',
  width: 7,
  tail: 'ON CONFLICT (pipeline, record_key, field) DO UPDATE SET erp = excluded.erp, reserved = excluded.reserved, sent = excluded.sent, at = excluded.at',
};

/** The stock_sent table. */
export class SqliteStockSent implements StockSentStore {
  constructor(
    private readonly db: Db,
    private readonly buffer: WriteBuffer,
  ) {}

  async get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, StockSent[]>> {
    const rows: StockSent[] = [];
    for (const part of chunks([...new Set(recordKeys)])) {
      rows.push(...cached<string[], StockSentRow>(this.db, `SELECT * FROM stock_sent WHERE pipeline = ? AND record_key IN (${marks(part.length)}) ORDER BY field`).all(pipeline, ...part).map(stockSentOf));
    }
    return byRecord(rows);
  }

  async put(rows: readonly StockSent[]): Promise<void> {
    // What a write buffered goes in before the savepoint: a rollback of this one cannot take it along.
    this.buffer.flush();
    this.db.transaction(() => this.putNow(rows))();
  }

  /** Forget one figure at once, inside the caller's transaction (`write(fn)`), after the figures put before it. */
  forgetNow(pipeline: string, recordKey: string, field: string): void {
    this.buffer.flush();
    cached<[string, string, string], never>(this.db, 'DELETE FROM stock_sent WHERE pipeline = ? AND record_key = ? AND field = ?').run(pipeline, recordKey, field);
  }

  /** Add a figure inside `write(fn)`: inserted when its writes end. */
  putLater(r: StockSent): void {
    this.buffer.add7(STOCK_SENT_ROW, r.pipeline, r.recordKey, r.field, r.erp, r.reserved, r.sent, r.at);
  }

  /** Write at once, inside the caller's transaction, after the rows waiting before them (the same statement as `putLater`'s). */
  putNow(rows: readonly StockSent[]): void {
    this.buffer.within(() => {
      for (const r of rows) this.putLater(r);
    });
    this.buffer.flush();
  }

  async of(pipeline: string, recordKey: string): Promise<StockSent[]> {
    return cached<[string, string], StockSentRow>(this.db, 'SELECT * FROM stock_sent WHERE pipeline = ? AND record_key = ? ORDER BY field').all(pipeline, recordKey).map(stockSentOf);
  }
}
