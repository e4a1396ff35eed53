/** Dead letters (PostgreSQL reads and removals; letters are added and resolved through `write`). */
import type pg from 'pg';
import { listedLetterColumns, toListedLetter, type ListedLetterRow } from '../letterExcerpt.js';
import { toDeadLetter, type DeadLetterRow } from '../rows.js';
import type { DeadLetterFilter, DeadLetterStore } from '../store.js';
import type { DeadLetter } from '../types.js';
import { Where } from '../where.js';
import { execute, one, query } from './db.js';

/** Dead-letter storage; one letter per pipeline and ERP key. */
export class PgDeadLetters implements DeadLetterStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(id: number): Promise<DeadLetter | undefined> {
    const row = await one<DeadLetterRow>(this.pool, 'SELECT * FROM dead_letters WHERE id = $1', [id]);
    return row ? toDeadLetter(row) : undefined;
  }

  async getByKey(pipeline: string, erpKey: string): Promise<DeadLetter | undefined> {
    const row = await one<DeadLetterRow>(this.pool, 'SELECT * FROM dead_letters WHERE pipeline = $1 AND erp_key = $2', [pipeline, erpKey]);
    return row ? toDeadLetter(row) : undefined;
  }

  async getManyByKey(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, DeadLetter>> {
    const out = new Map<string, DeadLetter>();
    if (erpKeys.length === 0) return out;
    for (const row of await query<DeadLetterRow>(this.pool, 'SELECT * FROM dead_letters WHERE pipeline = $1 AND erp_key = ANY($2::text[])', [pipeline, [...erpKeys]])) {
      const letter = toDeadLetter(row);
      out.set(letter.erpKey, letter);
    }
    return out;
  }

  async list(filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
    const where = new Where(true).eq('pipeline', filter.pipeline).eq('shop', filter.shop).eq('code', filter.code).eq('erp_key', filter.erpKey);
    const tail = `FROM dead_letters ${where} ORDER BY last_failed_at DESC, id DESC LIMIT ${where.next(0)} OFFSET ${where.next(1)}`;
    const params = [...where.params, filter.limit ?? 100, filter.offset ?? 0];
    if (filter.excerpt) return (await query<ListedLetterRow>(this.pool, `SELECT ${listedLetterColumns('postgres')} ${tail}`, params)).map(toListedLetter);
    return (await query<DeadLetterRow>(this.pool, `SELECT * ${tail}`, params)).map(toDeadLetter);
  }

  async count(pipeline: string): Promise<number> {
    return (await one<{ n: number }>(this.pool, 'SELECT COUNT(*) AS n FROM dead_letters WHERE pipeline = $1', [pipeline]))?.n ?? 0;
  }

  async delete(id: number): Promise<boolean> {
    return (await execute(this.pool, 'DELETE FROM dead_letters WHERE id = $1', [id])) > 0;
  }

  async drop(pipeline: string, ids?: readonly number[]): Promise<number> {
    // One statement either way, so all of them go or none.
    if (ids === undefined) return execute(this.pool, 'DELETE FROM dead_letters WHERE pipeline = $1', [pipeline]);
    return execute(this.pool, 'DELETE FROM dead_letters WHERE pipeline = $1 AND id = ANY($2::bigint[])', [pipeline, [...ids]]);
  }
}
