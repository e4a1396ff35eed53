/** Per-record events (PostgreSQL reads; events are added through `write`). */
import type pg from 'pg';
import { toEvent, type EventRow } from '../rows.js';
import { listedEventColumns } from '../eventExcerpt.js';
import { eventWhere } from '../filters.js';
import type { EventFilter, EventStore, MinuteCount } from '../store.js';
import { iso, toMs, type EventOutcome, type RecordEvent } from '../types.js';
import { Where } from '../where.js';
import { one, query } from './db.js';

/** Event queries. */
export class PgEvents implements EventStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(id: number): Promise<RecordEvent | undefined> {
    const row = await one<EventRow>(this.pool, 'SELECT * FROM events WHERE id = $1', [id]);
    return row ? toEvent(row) : undefined;
  }

  async list(filter: EventFilter = {}): Promise<RecordEvent[]> {
    const where = eventWhere(filter, new Where(true));
    const order = filter.order ?? (filter.runId !== undefined ? 'asc' : 'desc');
    const sql = `SELECT ${filter.excerpt ? listedEventColumns('postgres') : '*'} FROM events ${where} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ${where.next(0)} OFFSET ${where.next(1)}`;
    return (await query<EventRow>(this.pool, sql, [...where.params, filter.limit ?? 100, filter.offset ?? 0])).map(toEvent);
  }

  async history(resource: string, by: { erpKey: string } | { shopId: string | number }, limit = 100): Promise<RecordEvent[]> {
    return 'erpKey' in by ? this.list({ resource, erpKey: by.erpKey, limit, order: 'desc' }) : this.list({ resource, shopId: by.shopId, limit, order: 'desc' });
  }

  async countsPerMinute(options: { since: string | number | Date; until?: string | number | Date; pipeline?: string; shop?: string }): Promise<MinuteCount[]> {
    const where = new Where(true)
      .eq('pipeline', options.pipeline)
      .eq('shop', options.shop)
      .add('at >= ?', toMs(options.since))
      .add('at < ?', options.until === undefined ? Number.MAX_SAFE_INTEGER : toMs(options.until));
    const sql = `SELECT (at / 60000) AS m, outcome, COUNT(*) AS n FROM events ${where} GROUP BY m, outcome ORDER BY m, outcome`;
    return (await query<{ m: number; outcome: string; n: number }>(this.pool, sql, where.params)).map((r) => ({ minute: iso(r.m * 60000), outcome: r.outcome as EventOutcome, count: r.n }));
  }
}
