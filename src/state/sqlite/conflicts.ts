/** Field conflicts and sent values (SQLite, issue 46): reads in chunks of keys, writes inside `write(fn)`. */
import { byRecord, CONFLICT_COLUMNS, CONFLICT_ORDER, conflictOf, conflictValues, sentValueColumns, sentValuesOf, type ConflictRow, type SentValueRow } from '../conflictRows.js';
import type { ConflictFilter, ConflictStore, FieldConflict, SentValue, SentValueStore } from '../types.js';
import { Where } from '../where.js';
import { cached, chunks, marks, type Db } from './db.js';

const UPSERT = `INSERT INTO field_conflicts (${CONFLICT_COLUMNS.join(', ')}) VALUES (${marks(CONFLICT_COLUMNS.length)})
  ON CONFLICT (pipeline, erp_key, field) DO UPDATE SET ${CONFLICT_COLUMNS.slice(3).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** The field_conflicts table. */
export class SqliteConflicts implements ConflictStore {
  constructor(private readonly db: Db) {}

  async list(filter: ConflictFilter = {}): Promise<FieldConflict[]> {
    const where = new Where().eq('pipeline', filter.pipeline).eq('shop', filter.shop).eq('erp_key', filter.erpKey).eq('status', filter.status);
    const rows = cached<(string | number)[], ConflictRow>(this.db, `SELECT * FROM field_conflicts ${where} ORDER BY ${CONFLICT_ORDER} LIMIT ? OFFSET ?`).all(...where.params, filter.limit ?? 500, filter.offset ?? 0);
    return rows.map(conflictOf);
  }

  async ofRecords(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, FieldConflict[]>> {
    const out: FieldConflict[] = [];
    for (const part of chunks([...new Set(erpKeys)])) {
      out.push(...cached<string[], ConflictRow>(this.db, `SELECT * FROM field_conflicts WHERE pipeline = ? AND status = 'open' AND erp_key IN (${marks(part.length)}) ORDER BY erp_key, field`).all(pipeline, ...part).map(conflictOf));
    }
    return byRecord(out);
  }

  async openCounts(): Promise<Map<string, number>> {
    const rows = cached<[], { pipeline: string; n: number }>(this.db, "SELECT pipeline, COUNT(*) AS n FROM field_conflicts WHERE status = 'open' GROUP BY pipeline").all();
    return new Map(rows.map((r) => [r.pipeline, Number(r.n)]));
  }

  /** Write at once, inside the caller's transaction (`write(fn)`): every column replaced. */
  putNow(conflict: FieldConflict): void {
    cached(this.db, UPSERT).run(...conflictValues(conflict));
  }
}

/** The sent_values table. */
export class SqliteSentValues implements SentValueStore {
  constructor(private readonly db: Db) {}

  async get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, Map<string, SentValue>>> {
    const rows: SentValueRow[] = [];
    for (const part of chunks([...new Set(recordKeys)])) {
      rows.push(...cached<string[], SentValueRow>(this.db, `SELECT record_key, field, value, erp_value FROM sent_values WHERE pipeline = ? AND record_key IN (${marks(part.length)})`).all(pipeline, ...part));
    }
    return sentValuesOf(rows);
  }

  /** Write at once, inside the caller's transaction (`write(fn)`). */
  putNow(pipeline: string, recordKey: string, field: string, value: unknown, erp?: { readonly value: unknown }): void {
    cached(this.db, 'INSERT INTO sent_values (pipeline, record_key, field, value, erp_value, at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pipeline, record_key, field) DO UPDATE SET value = excluded.value, erp_value = excluded.erp_value, at = excluded.at').run(
      pipeline,
      recordKey,
      field,
      ...sentValueColumns(value, erp),
      Date.now(),
    );
  }
}
