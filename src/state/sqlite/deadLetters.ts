/** Dead letters (SQLite): failed records kept with their reason until retried or dropped. */
import { listedLetterColumns, toListedLetter, type ListedLetterRow } from '../letterExcerpt.js';
import { LETTER_COLUMNS, letterValues, toDeadLetter, type DeadLetterRow } from '../rows.js';
import type { DeadLetterFilter, DeadLetterStore } from '../store.js';
import type { DeadLetter, NewDeadLetter } from '../types.js';
import { Where } from '../where.js';
import { cached, chunks, marks, type Db } from './db.js';
import type { CellValue, RowKind, WriteBuffer } from './writeBuffer.js';

/**
 * Letters resolved in one settle, removed in one statement (the unique index on (pipeline, erp_key)
 * finds each); not even looked for when their pipelines hold no letter, every settle of a healthy
 * pipeline (a lookup per delivered record was as much as the letters of a bad day).
 */
const RESOLVE_ROW: RowKind = {
  head: 'DELETE FROM dead_letters WHERE (pipeline, erp_key) IN (VALUES',
  width: 2,
  tail: ')',
  needed: (db, values) => {
    const pipelines = new Set<CellValue>();
    for (let i = 0; i < values.length; i += 2) pipelines.add(values[i]!);
    const any = cached<[string], { n: number }>(db, 'SELECT EXISTS (SELECT 1 FROM dead_letters WHERE pipeline = ?) AS n');
    for (const p of pipelines) if (any.get(String(p))?.n === 1) return true;
    return false;
  },
};

/** The upsert of a letter: a second failure of the same record counts an attempt (both backends). */
export const LETTER_UPSERT = `INSERT INTO dead_letters (${LETTER_COLUMNS.join(', ')}, attempts) VALUES (%VALUES%, 1)
  ON CONFLICT (pipeline, erp_key) DO UPDATE SET shop = excluded.shop, resource = excluded.resource, record = excluded.record, payload = excluded.payload,
    code = excluded.code, reason = excluded.reason, attempts = dead_letters.attempts + 1, run_id = excluded.run_id, last_failed_at = excluded.last_failed_at,
    origin = excluded.origin`;

/** Dead-letter storage; one letter per pipeline and ERP key, attempts counted. */
export class SqliteDeadLetters implements DeadLetterStore {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly getByKeyStmt;
  private readonly delStmt;
  private readonly delByKeyStmt;
  private readonly countStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
    private readonly buffer: WriteBuffer,
  ) {
    this.upsertStmt = db.prepare(LETTER_UPSERT.replace('%VALUES%', marks(LETTER_COLUMNS.length)));
    this.getStmt = db.prepare<[number], DeadLetterRow>('SELECT * FROM dead_letters WHERE id = ?');
    this.getByKeyStmt = db.prepare<[string, string], DeadLetterRow>('SELECT * FROM dead_letters WHERE pipeline = ? AND erp_key = ?');
    this.delStmt = db.prepare('DELETE FROM dead_letters WHERE id = ?');
    this.delByKeyStmt = db.prepare('DELETE FROM dead_letters WHERE pipeline = ? AND erp_key = ?');
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM dead_letters WHERE pipeline = ?');
  }

  /** Add a failed record, or count another attempt (inside `write`). */
  add(letter: NewDeadLetter): void {
    // After the letters resolved before it: a record that failed again after it was delivered keeps this letter.
    this.buffer.flush();
    this.upsertStmt.run(...letterValues(this.shop, letter, Date.now()));
  }

  /** Remove a record's letter (inside `write`; when its writes end). */
  resolve(pipeline: string, erpKey: string): void {
    this.buffer.add(RESOLVE_ROW, [pipeline, erpKey]);
  }

  async get(id: number): Promise<DeadLetter | undefined> {
    const row = this.getStmt.get(id);
    return row ? toDeadLetter(row) : undefined;
  }

  async getByKey(pipeline: string, erpKey: string): Promise<DeadLetter | undefined> {
    const row = this.getByKeyStmt.get(pipeline, erpKey);
    return row ? toDeadLetter(row) : undefined;
  }

  async getManyByKey(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, DeadLetter>> {
    const out = new Map<string, DeadLetter>();
    for (const part of chunks(erpKeys)) {
      for (const row of cached<string[], DeadLetterRow>(this.db, `SELECT * FROM dead_letters WHERE pipeline = ? AND erp_key IN (${marks(part.length)})`).all(pipeline, ...part)) {
        const letter = toDeadLetter(row);
        out.set(letter.erpKey, letter);
      }
    }
    return out;
  }

  async list(filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
    const where = new Where().eq('pipeline', filter.pipeline).eq('shop', filter.shop).eq('code', filter.code).eq('erp_key', filter.erpKey);
    const tail = `FROM dead_letters ${where} ORDER BY last_failed_at DESC, id DESC LIMIT ? OFFSET ?`;
    const params = [...where.params, filter.limit ?? 100, filter.offset ?? 0];
    if (filter.excerpt) return cached<(string | number)[], ListedLetterRow>(this.db, `SELECT ${listedLetterColumns('sqlite')} ${tail}`).all(...params).map(toListedLetter);
    return cached<(string | number)[], DeadLetterRow>(this.db, `SELECT * ${tail}`).all(...params).map(toDeadLetter);
  }

  async count(pipeline: string): Promise<number> {
    return this.countStmt.get(pipeline)?.n ?? 0;
  }

  async delete(id: number): Promise<boolean> {
    return this.delStmt.run(id).changes > 0;
  }

  async drop(pipeline: string, ids?: readonly number[]): Promise<number> {
    return this.db.transaction(() => {
      if (ids === undefined) return this.db.prepare('DELETE FROM dead_letters WHERE pipeline = ?').run(pipeline).changes;
      let n = 0;
      for (const id of ids) n += this.db.prepare('DELETE FROM dead_letters WHERE id = ? AND pipeline = ?').run(id, pipeline).changes;
      return n;
    })();
  }
}
