/** Field conflicts and sent values (PostgreSQL, issue 46): one statement per read; rows are written by `write(fn)` (writer.ts). */
import type pg from 'pg';
import { byRecord, CONFLICT_ORDER, conflictOf, sentValuesOf, type ConflictRow, type SentValueRow } from '../conflictRows.js';
import type { ConflictFilter, ConflictStore, FieldConflict, SentValue, SentValueStore } from '../types.js';
import { Where } from '../where.js';
import { query } from './db.js';

/** The field_conflicts table. */
export class PgConflicts implements ConflictStore {
  constructor(private readonly pool: pg.Pool) {}

  async list(filter: ConflictFilter = {}): Promise<FieldConflict[]> {
    const where = new Where(true).eq('pipeline', filter.pipeline).eq('shop', filter.shop).eq('erp_key', filter.erpKey).eq('status', filter.status);
    const rows = await query<ConflictRow>(this.pool, `SELECT * FROM field_conflicts ${where} ORDER BY ${CONFLICT_ORDER} LIMIT ${where.next()} OFFSET ${where.next(1)}`, [...where.params, filter.limit ?? 500, filter.offset ?? 0]);
    return rows.map(conflictOf);
  }

  async ofRecords(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, FieldConflict[]>> {
    if (erpKeys.length === 0) return new Map();
    const rows = await query<ConflictRow>(this.pool, "SELECT * FROM field_conflicts WHERE pipeline = $1 AND status = 'open' AND erp_key = ANY($2::text[]) ORDER BY erp_key, field", [pipeline, [...new Set(erpKeys)]]);
    return byRecord(rows.map(conflictOf));
  }

  async openCounts(): Promise<Map<string, number>> {
    const rows = await query<{ pipeline: string; n: string | number }>(this.pool, "SELECT pipeline, COUNT(*) AS n FROM field_conflicts WHERE status = 'open' GROUP BY pipeline");
    return new Map(rows.map((r) => [r.pipeline, Number(r.n)]));
  }
}

/** The sent_values table. */
export class PgSentValues implements SentValueStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, Map<string, SentValue>>> {
    if (recordKeys.length === 0) return new Map();
    const rows = await query<SentValueRow>(this.pool, 'SELECT record_key, field, value, erp_value FROM sent_values WHERE pipeline = $1 AND record_key = ANY($2::text[])', [pipeline, [...new Set(recordKeys)]]);
    return sentValuesOf(rows);
  }
}
