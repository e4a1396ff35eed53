/** Failure streaks and pauses of the shops (SQLite): one statement per change, as on PostgreSQL. */
import type { ShopStreak, ShopStreakStore } from '../store.js';
import type { Db } from './db.js';

interface Row {
  shop: string;
  failures: number;
  failing_since: number | null;
  last_error: string | null;
  paused_at: number | null;
  paused_reason: string | null;
}

/** A row as the contract reads it. */
export function streakOf(r: { shop: string; failures: number | string; failing_since: number | string | null; last_error: string | null; paused_at: number | string | null; paused_reason: string | null }): ShopStreak {
  const ms = (v: number | string | null) => (v === null ? null : Number(v));
  return { shop: r.shop, failures: Number(r.failures), failingSince: ms(r.failing_since), lastError: r.last_error, pausedAt: ms(r.paused_at), pausedReason: r.paused_reason };
}

/** The shop_streaks table. */
export class SqliteStreaks implements ShopStreakStore {
  constructor(private readonly db: Db) {}

  async failed(shop: string, at: number, error: string): Promise<ShopStreak> {
    const row = this.db
      .prepare<[string, number, string], Row>(
        `INSERT INTO shop_streaks (shop, failures, failing_since, last_error) VALUES (?, 1, ?, ?)
         ON CONFLICT (shop) DO UPDATE SET failures = shop_streaks.failures + 1, failing_since = COALESCE(shop_streaks.failing_since, excluded.failing_since), last_error = excluded.last_error
         RETURNING *`,
      )
      .get(shop, at, error);
    return streakOf(row!);
  }

  async worked(shop: string): Promise<{ wasPaused: boolean }> {
    const row = this.db.prepare<[string], { paused_at: number | null }>('SELECT paused_at FROM shop_streaks WHERE shop = ?').get(shop);
    if (!row) return { wasPaused: false };
    this.db.prepare('DELETE FROM shop_streaks WHERE shop = ?').run(shop);
    return { wasPaused: row.paused_at !== null };
  }

  async get(shop: string): Promise<ShopStreak | undefined> {
    const row = this.db.prepare<[string], Row>('SELECT * FROM shop_streaks WHERE shop = ?').get(shop);
    return row ? streakOf(row) : undefined;
  }

  async list(): Promise<ShopStreak[]> {
    return this.db.prepare<[], Row>('SELECT * FROM shop_streaks ORDER BY shop').all().map(streakOf);
  }

  async pause(shop: string, at: number, reason: string): Promise<boolean> {
    return this.db.prepare('UPDATE shop_streaks SET paused_at = ?, paused_reason = ? WHERE shop = ? AND paused_at IS NULL').run(at, reason, shop).changes > 0;
  }

  async resume(shop: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM shop_streaks WHERE shop = ? AND paused_at IS NOT NULL').run(shop).changes > 0;
  }
}
