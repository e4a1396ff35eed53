/** Per-record events (SQLite): what happened to each record in each run, for history and charts. */
import { EVENT_COLUMNS, eventValues, toEvent, type EventRow } from '../rows.js';
import { listedEventColumns } from '../eventExcerpt.js';
import { eventWhere } from '../filters.js';
import type { EventFilter, EventStore, MinuteCount } from '../store.js';
import { iso, toMs, type EventOutcome, type NewRecordEvent, type RecordEvent } from '../types.js';
import { Where } from '../where.js';
import { cached, marks, type Db } from './db.js';

/** Events a multi-row insert carries (14 values each: well below SQLite's 32,766 parameters). */
const EVENTS_PER_INSERT = 50;

/** Event storage and queries. */
export class SqliteEvents implements EventStore {
  private readonly insertStmt;
  private readonly getStmt;
  /** Values of events added in the open transaction, inserted by `flush` as multi-row statements. */
  private buffered: (string | number | null)[] = [];

  constructor(
    private readonly db: Db,
    private readonly shop: string,
  ) {
    this.getStmt = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
    this.insertStmt = db.prepare(`INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES (${marks(EVENT_COLUMNS.length)})`);
  }

  /** Append an event (inside `write`; inserted when the transaction's writes end, `flush`). */
  add(e: NewRecordEvent): void {
    for (const v of eventValues(this.shop, e)) this.buffered.push(v);
  }

  /**
   * Insert the events added since the last flush, many rows a statement (a settle adds one per
   * record: a statement each cost a fifth more); the state's `write` calls it before it commits.
   */
  flush(): void {
    const values = this.buffered;
    if (values.length === 0) return;
    this.buffered = [];
    const rows = values.length / EVENT_COLUMNS.length;
    for (let at = 0; at < rows; at += EVENTS_PER_INSERT) {
      const n = Math.min(EVENTS_PER_INSERT, rows - at);
      const stmt = n === 1 ? this.insertStmt : cached(this.db, `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${Array.from({ length: n }, () => `(${marks(EVENT_COLUMNS.length)})`).join(', ')}`);
      stmt.run(...values.slice(at * EVENT_COLUMNS.length, (at + n) * EVENT_COLUMNS.length));
    }
  }

  /** Where the buffer stands (a nested write's start). */
  mark(): number {
    return this.buffered.length;
  }

  /** Forget the events added since `mark` (their write threw, so its savepoint or transaction rolled back). */
  discard(mark = 0): void {
    this.buffered.length = Math.min(mark, this.buffered.length);
  }

  async get(id: number): Promise<RecordEvent | undefined> {
    const row = this.getStmt.get(id);
    return row ? toEvent(row) : undefined;
  }

  async list(filter: EventFilter = {}): Promise<RecordEvent[]> {
    const where = eventWhere(filter, new Where());
    const order = filter.order ?? (filter.runId !== undefined ? 'asc' : 'desc');
    return cached<(string | number)[], EventRow>(this.db, `SELECT ${filter.excerpt ? listedEventColumns('sqlite') : '*'} FROM events ${where} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`)
      .all(...where.params, filter.limit ?? 100, filter.offset ?? 0)
      .map(toEvent);
  }

  async history(resource: string, by: { erpKey: string } | { shopId: string | number }, limit = 100): Promise<RecordEvent[]> {
    return 'erpKey' in by ? this.list({ resource, erpKey: by.erpKey, limit, order: 'desc' }) : this.list({ resource, shopId: by.shopId, limit, order: 'desc' });
  }

  async countsPerMinute(options: { since: string | number | Date; until?: string | number | Date; pipeline?: string; shop?: string }): Promise<MinuteCount[]> {
    const where = new Where().eq('pipeline', options.pipeline).eq('shop', options.shop).add('at >= ?', toMs(options.since)).add('at < ?', options.until === undefined ? Number.MAX_SAFE_INTEGER : toMs(options.until));
    return cached<(string | number)[], { m: number; outcome: string; n: number }>(this.db, `SELECT (at / 60000) AS m, outcome, COUNT(*) AS n FROM events ${where} GROUP BY m, outcome ORDER BY m`)
      .all(...where.params)
      .map((r) => ({ minute: iso(r.m * 60000), outcome: r.outcome as EventOutcome, count: r.n }));
  }
}
