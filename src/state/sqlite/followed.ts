/** Followed records (SQLite, issue 44): reads in chunks of keys, each change one statement. */
import type { FollowDay, FollowDoneReason, FollowedRecord, FollowStore, FollowSummary } from '../../follow/types.js';
import { daysOf, FOLLOWED_COLUMNS, followedOf, followedValues, KEY_ORDER, newestByKey, type FollowedRow } from '../followedRows.js';
import { cached, chunks, marks, type Db } from './db.js';

const UPSERT = `INSERT INTO followed (${FOLLOWED_COLUMNS.join(', ')}) VALUES (${marks(FOLLOWED_COLUMNS.length)})
  ON CONFLICT (pipeline, record_key) DO UPDATE SET ${FOLLOWED_COLUMNS.slice(2).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** The followed table. */
export class SqliteFollowed implements FollowStore {
  constructor(private readonly db: Db) {}

  async get(pipeline: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>> {
    const out = new Map<string, FollowedRecord>();
    for (const part of chunks([...new Set(keys)])) {
      for (const r of cached<string[], FollowedRow>(this.db, `SELECT * FROM followed WHERE pipeline = ? AND record_key IN (${marks(part.length)})`).all(pipeline, ...part)) {
        out.set(r.record_key, followedOf(r));
      }
    }
    return out;
  }

  async ofShop(shop: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>> {
    const rows: FollowedRecord[] = [];
    for (const part of chunks([...new Set(keys)])) {
      rows.push(...cached<string[], FollowedRow>(this.db, `SELECT * FROM followed WHERE shop = ? AND record_key IN (${marks(part.length)})`).all(shop, ...part).map(followedOf));
    }
    return newestByKey(rows);
  }

  async openDays(pipeline: string, range: { readonly fromDay?: string; readonly toDay?: string } = {}): Promise<FollowDay[]> {
    const where = ['pipeline = ?'];
    const params: string[] = [pipeline];
    if (range.fromDay !== undefined) where.push('placed_day >= ?'), params.push(range.fromDay);
    if (range.toDay !== undefined) where.push('placed_day < ?'), params.push(range.toDay);
    const cond = where.join(' AND ');
    const open = cached<string[], { placed_day: string; record_key: string }>(this.db, `SELECT placed_day, record_key FROM followed WHERE ${cond} AND done_at IS NULL ORDER BY placed_day, ${KEY_ORDER}`).all(...params);
    if (open.length === 0) return [];
    // Totals only of the days with open rows: a day whose orders are all done is not read again.
    const totals = cached<string[], { placed_day: string; n: number }>(
      this.db,
      `SELECT placed_day, COUNT(*) AS n FROM followed WHERE ${cond} AND placed_day IN (SELECT placed_day FROM followed WHERE ${cond} AND done_at IS NULL) GROUP BY placed_day`,
    ).all(...params, ...params);
    return daysOf(open, totals);
  }

  async finish(pipeline: string, keys: readonly string[], reason: FollowDoneReason, at: string): Promise<void> {
    // A row done already keeps why and when it was done.
    this.db.transaction(() => {
      for (const part of chunks([...new Set(keys)])) {
        cached(this.db, `UPDATE followed SET done_at = ?, done_reason = ? WHERE pipeline = ? AND done_at IS NULL AND record_key IN (${marks(part.length)})`).run(at, reason, pipeline, ...part);
      }
    })();
  }

  async ageOut(pipeline: string, day: string, at: string): Promise<string[]> {
    const rows = cached<[string, string, string], { record_key: string }>(
      this.db,
      "UPDATE followed SET done_at = ?, done_reason = 'age' WHERE pipeline = ? AND done_at IS NULL AND placed_day < ? RETURNING record_key",
    ).all(at, pipeline, day);
    return rows.map((r) => r.record_key);
  }

  async summary(pipeline: string): Promise<FollowSummary> {
    const c = cached<[string], { open: number | null; done: number | null; last: string | null }>(
      this.db,
      'SELECT SUM(done_at IS NULL) AS open, SUM(done_at IS NOT NULL) AS done, MAX(changed_at) AS last FROM followed WHERE pipeline = ?',
    ).get(pipeline);
    const oldest = cached<[string], { record_key: string; placed_day: string }>(this.db, `SELECT record_key, placed_day FROM followed WHERE pipeline = ? AND done_at IS NULL ORDER BY placed_day, ${KEY_ORDER} LIMIT 1`).get(pipeline);
    return {
      open: Number(c?.open ?? 0),
      done: Number(c?.done ?? 0),
      ...(oldest ? { oldest: { key: oldest.record_key, placedDay: oldest.placed_day } } : {}),
      ...(c?.last ? { lastChangeAt: c.last } : {}),
    };
  }

  /** Write at once, inside the caller's transaction (`write(fn)`): every column replaced. */
  putNow(row: FollowedRecord): void {
    cached(this.db, UPSERT).run(...followedValues(row));
  }
}
