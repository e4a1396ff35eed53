/**
 * Append-only list entries (order status history) the shop holds or may hold (SQLite).
 *
 * An entry is marked `pending` in its own committed transaction BEFORE the request goes out and
 * `sent` once the answer confirms it. A `pending` entry found later means the answer was lost:
 * the pipeline reads the order back and looks for the entry instead of resending it blindly.
 */
import { toHistoryEntry, type HistoryRow } from '../rows.js';
import type { HistoryEntry, HistoryState, HistoryStore } from '../store.js';
import type { ShopId } from '../types.js';
import { cached, chunks, marks, type Db } from './db.js';

/** Append-only entry bookkeeping in one shop. */
export class SqliteHistory implements HistoryStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly pendingStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
  ) {
    this.getStmt = db.prepare<[string, string, string, string], HistoryRow>('SELECT * FROM history_entries WHERE shop = ? AND resource = ? AND shop_id = ? AND identity = ?');
    this.putStmt = db.prepare(
      `INSERT INTO history_entries (shop, resource, shop_id, identity, state, entry, run_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (shop, resource, shop_id, identity) DO UPDATE SET state = excluded.state, entry = excluded.entry, run_id = excluded.run_id, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM history_entries WHERE shop = ? AND resource = ? AND shop_id = ? AND identity = ?');
    this.pendingStmt = db.prepare<[string, string], HistoryRow>(`SELECT * FROM history_entries WHERE state = 'pending' AND shop = ? AND resource = ?`);
  }

  async get(resource: string, shopId: ShopId, identity: string): Promise<HistoryEntry | undefined> {
    const row = this.getStmt.get(this.shop, resource, String(shopId), identity);
    return row ? toHistoryEntry(row) : undefined;
  }

  async getMany(resource: string, shopId: ShopId, identities: readonly string[]): Promise<Map<string, HistoryEntry>> {
    const out = new Map<string, HistoryEntry>();
    for (const part of chunks([...new Set(identities)])) {
      const sql = `SELECT * FROM history_entries WHERE shop = ? AND resource = ? AND shop_id = ? AND identity IN (${marks(part.length)})`;
      for (const r of cached<string[], HistoryRow>(this.db, sql).all(this.shop, resource, String(shopId), ...part)) out.set(r.identity, toHistoryEntry(r));
    }
    return out;
  }

  async pending(resource: string): Promise<HistoryEntry[]> {
    return this.pendingStmt.all(this.shop, resource).map(toHistoryEntry);
  }

  /** Mark an entry as possibly sent or sent (inside `write`). */
  mark(resource: string, shopId: ShopId, identity: string, state: HistoryState, entry: Readonly<Record<string, unknown>>, runId?: number): void {
    this.putStmt.run(this.shop, resource, String(shopId), identity, state, JSON.stringify(entry), runId ?? null, Date.now());
  }

  /** Forget a pending entry the shop turned out not to hold (inside `write`). */
  forget(resource: string, shopId: ShopId, identity: string): void {
    this.delStmt.run(this.shop, resource, String(shopId), identity);
  }
}
