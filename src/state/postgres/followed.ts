/** Followed records (PostgreSQL, issue 44): one statement per read or change, keys as arrays. */
import type pg from 'pg';
import type { FollowDay, FollowDoneReason, FollowedRecord, FollowStore, FollowSummary } from '../../follow/types.js';
import { daysOf, followedOf, KEY_ORDER, newestByKey, type FollowedRow } from '../followedRows.js';
import { execute, one, query, type Param } from './db.js';

/** The followed table (its rows are written by `write(fn)`: see writer.ts, spec `followed`). */
export class PgFollowed implements FollowStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>> {
    if (keys.length === 0) return new Map();
    const rows = await query<FollowedRow>(this.pool, 'SELECT * FROM followed WHERE pipeline = $1 AND record_key = ANY($2::text[])', [pipeline, [...new Set(keys)]]);
    return new Map(rows.map((r) => [r.record_key, followedOf(r)]));
  }

  async ofShop(shop: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>> {
    if (keys.length === 0) return new Map();
    const rows = await query<FollowedRow>(this.pool, 'SELECT * FROM followed WHERE shop = $1 AND record_key = ANY($2::text[])', [shop, [...new Set(keys)]]);
    return newestByKey(rows.map(followedOf));
  }

  async openDays(pipeline: string, range: { readonly fromDay?: string; readonly toDay?: string } = {}): Promise<FollowDay[]> {
    const where = ['pipeline = $1'];
    const params: Param[] = [pipeline];
    if (range.fromDay !== undefined) params.push(range.fromDay), where.push(`placed_day >= $${params.length}`);
    if (range.toDay !== undefined) params.push(range.toDay), where.push(`placed_day < $${params.length}`);
    const cond = where.join(' AND ');
    const open = await query<{ placed_day: string; record_key: string }>(this.pool, `SELECT placed_day, record_key FROM followed WHERE ${cond} AND done_at IS NULL ORDER BY placed_day, ${KEY_ORDER}`, params);
    if (open.length === 0) return [];
    // Totals only of the days with open rows: a day whose orders are all done is not read again.
    const days = [...new Set(open.map((r) => r.placed_day))];
    const totals = await query<{ placed_day: string; n: number }>(this.pool, 'SELECT placed_day, COUNT(*) AS n FROM followed WHERE pipeline = $1 AND placed_day = ANY($2::text[]) GROUP BY placed_day', [pipeline, days]);
    return daysOf(open, totals);
  }

  async finish(pipeline: string, keys: readonly string[], reason: FollowDoneReason, at: string): Promise<void> {
    if (keys.length === 0) return;
    // A row done already keeps why and when it was done.
    await execute(this.pool, 'UPDATE followed SET done_at = $1, done_reason = $2 WHERE pipeline = $3 AND done_at IS NULL AND record_key = ANY($4::text[])', [at, reason, pipeline, [...new Set(keys)]]);
  }

  async ageOut(pipeline: string, day: string, at: string): Promise<string[]> {
    const rows = await query<{ record_key: string }>(this.pool, "UPDATE followed SET done_at = $1, done_reason = 'age' WHERE pipeline = $2 AND done_at IS NULL AND placed_day < $3 RETURNING record_key", [at, pipeline, day]);
    return rows.map((r) => r.record_key);
  }

  async summary(pipeline: string): Promise<FollowSummary> {
    const c = await one<{ open: number; done: number; last: string | null }>(
      this.pool,
      'SELECT COUNT(*) FILTER (WHERE done_at IS NULL) AS open, COUNT(*) FILTER (WHERE done_at IS NOT NULL) AS done, MAX(changed_at) AS last FROM followed WHERE pipeline = $1',
      [pipeline],
    );
    const oldest = await one<{ record_key: string; placed_day: string }>(this.pool, `SELECT record_key, placed_day FROM followed WHERE pipeline = $1 AND done_at IS NULL ORDER BY placed_day, ${KEY_ORDER} LIMIT 1`, [pipeline]);
    return {
      open: Number(c?.open ?? 0),
      done: Number(c?.done ?? 0),
      ...(oldest ? { oldest: { key: oldest.record_key, placedDay: oldest.placed_day } } : {}),
      ...(c?.last ? { lastChangeAt: c.last } : {}),
    };
  }
}
