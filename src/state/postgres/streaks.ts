/** Failure streaks and pauses of the shops (PostgreSQL): each change is one statement, so replicas counting at once lose nothing. */
import type pg from 'pg';
import type { ShopStreak, ShopStreakStore } from '../store.js';
import { streakOf } from '../sqlite/streaks.js';
import { query } from './db.js';

type Row = Parameters<typeof streakOf>[0];

/** The shop_streaks table. */
export class PgStreaks implements ShopStreakStore {
  constructor(private readonly pool: pg.Pool) {}

  async failed(shop: string, at: number, error: string): Promise<ShopStreak> {
    const [row] = await query<Row>(
      this.pool,
      `INSERT INTO shop_streaks (shop, failures, failing_since, last_error) VALUES ($1, 1, $2, $3)
       ON CONFLICT (shop) DO UPDATE SET failures = shop_streaks.failures + 1, failing_since = COALESCE(shop_streaks.failing_since, excluded.failing_since), last_error = excluded.last_error
       RETURNING *`,
      [shop, at, error],
    );
    return streakOf(row!);
  }

  async worked(shop: string): Promise<{ wasPaused: boolean }> {
    const rows = await query<{ paused_at: string | null }>(this.pool, 'DELETE FROM shop_streaks WHERE shop = $1 RETURNING paused_at', [shop]);
    return { wasPaused: rows.some((r) => r.paused_at !== null) };
  }

  async get(shop: string): Promise<ShopStreak | undefined> {
    const [row] = await query<Row>(this.pool, 'SELECT * FROM shop_streaks WHERE shop = $1', [shop]);
    return row ? streakOf(row) : undefined;
  }

  async list(): Promise<ShopStreak[]> {
    return (await query<Row>(this.pool, 'SELECT * FROM shop_streaks ORDER BY shop')).map(streakOf);
  }

  async pause(shop: string, at: number, reason: string): Promise<boolean> {
    return (await query(this.pool, 'UPDATE shop_streaks SET paused_at = $2, paused_reason = $3 WHERE shop = $1 AND paused_at IS NULL RETURNING shop', [shop, at, reason])).length > 0;
  }

  async resume(shop: string): Promise<boolean> {
    return (await query(this.pool, 'DELETE FROM shop_streaks WHERE shop = $1 AND paused_at IS NOT NULL RETURNING shop', [shop])).length > 0;
  }
}
