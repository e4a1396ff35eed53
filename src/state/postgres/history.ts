/**
 * Append-only list entries (order status history) the shop holds or may hold (PostgreSQL reads;
 * marks go through `write`, see sqlite/history.ts for why `pending` is committed before sending).
 */
import type pg from 'pg';
import { toHistoryEntry, type HistoryRow } from '../rows.js';
import type { HistoryEntry, HistoryStore } from '../store.js';
import type { ShopId } from '../types.js';
import { one, query } from './db.js';

/** Append-only entry bookkeeping in one shop. */
export class PgHistory implements HistoryStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly shop: string,
  ) {}

  async get(resource: string, shopId: ShopId, identity: string): Promise<HistoryEntry | undefined> {
    const row = await one<HistoryRow>(this.pool, 'SELECT * FROM history_entries WHERE shop = $1 AND resource = $2 AND shop_id = $3 AND identity = $4', [this.shop, resource, String(shopId), identity]);
    return row ? toHistoryEntry(row) : undefined;
  }

  async getMany(resource: string, shopId: ShopId, identities: readonly string[]): Promise<Map<string, HistoryEntry>> {
    const out = new Map<string, HistoryEntry>();
    if (identities.length === 0) return out;
    const sql = 'SELECT * FROM history_entries WHERE shop = $1 AND resource = $2 AND shop_id = $3 AND identity = ANY($4::text[])';
    for (const r of await query<HistoryRow>(this.pool, sql, [this.shop, resource, String(shopId), [...new Set(identities)]])) out.set(r.identity, toHistoryEntry(r));
    return out;
  }

  async pending(resource: string): Promise<HistoryEntry[]> {
    return (await query<HistoryRow>(this.pool, `SELECT * FROM history_entries WHERE state = 'pending' AND shop = $1 AND resource = $2`, [this.shop, resource])).map(toHistoryEntry);
  }
}
