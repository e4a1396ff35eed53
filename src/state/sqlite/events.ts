/** Per-record events (SQLite): what happened to each record in each run, for history and charts. */
import { EVENT_COLUMNS, eventValues, toEvent, type EventRow } from '../rows.js';
import { listedEventColumns } from '../eventExcerpt.js';
import { eventWhere } from '../filters.js';
import type { EventFilter, EventStore, MinuteCount } from '../store.js';
import { iso, toMs, type EventOutcome, type NewRecordEvent, type RecordEvent } from '../types.js';
import { Where } from '../where.js';
import { cached, type Db } from './db.js';
import type { RowKind, WriteBuffer } from './writeBuffer.js';

/** An event as a buffered row: a settle adds one per record, inserted many to a statement when its writes end. */
const EVENT_ROW: RowKind = { head: `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES`, width: EVENT_COLUMNS.length, tail: '' };

/** Event storage and queries. */
export class SqliteEvents implements EventStore {
  private readonly getStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
    private readonly buffer: WriteBuffer,
  ) {
    this.getStmt = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
  }

  /** Append an event (inside `write`; inserted when the transaction's writes end). */
  add(e: NewRecordEvent): void {
    this.buffer.add(EVENT_ROW, eventValues(this.shop, e));
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
