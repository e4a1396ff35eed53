/**
 * The shared budgets' store on PostgreSQL, on the database's clock. rate-limiter-flexible's
 * RateLimiterPostgres stamps a slot's expiry with the calling process's `Date.now()` and measures
 * the wait against it again: a replica whose clock runs 10 min behind reads every slot the others
 * opened as 10 min away, and waits that long for each one (its lanes stall), while its own stamps
 * lie in the past for the others. Here every expiry is written and compared in the same statement
 * as the database's `now()`, so the replicas' own clocks never enter. Same table and rows as
 * rate-limiter-flexible's (key, points, expire in Unix ms), and the same contract: a refusal
 * rejects with a `RateLimiterRes`, which the limiter (limiter.ts) reads as "wait msBeforeNext".
 */
import pg from 'pg';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { BudgetStore } from './limiter.js';

/** The database's time in Unix ms, once per statement (`now()` is the statement's transaction start). */
const DB_NOW_MS = `(extract(epoch from now()) * 1000)::bigint`;

/** Options of a `PgBudgetStore`. */
export interface PgBudgetStoreOptions {
  readonly pool: pg.Pool;
  /** Schema and table of the budgets (plain identifiers). */
  readonly schema: string;
  readonly table: string;
  /** Rows are keyed `<keyPrefix>:<key>` (rate-limiter-flexible's form). */
  readonly keyPrefix: string;
  /** Points one slot admits. */
  readonly points: number;
  /** Length of a slot. */
  readonly slotMs: number;
}

interface Row {
  points: number;
  ms_before_next: string | null;
}

/** A fixed-window budget per key whose windows open and close on the database's clock. */
export class PgBudgetStore implements BudgetStore {
  readonly #o: PgBudgetStoreOptions;
  readonly #t: string;

  constructor(options: PgBudgetStoreOptions) {
    this.#o = options;
    this.#t = `${pg.escapeIdentifier(options.schema)}.${pg.escapeIdentifier(options.table)}`;
  }

  /** The table (rate-limiter-flexible's own DDL, so either may create it). */
  static createTableSql(schema: string, table: string): string {
    return `CREATE TABLE IF NOT EXISTS ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`;
  }

  /** Take `points` of the key's current slot (opening a new one when it has expired); rejects with a `RateLimiterRes` when the slot is used up. */
  async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const t = this.#t;
    const r = await this.#o.pool.query<Row>({
      name: 'shopsync-budget-consume',
      text: `INSERT INTO ${t} AS b (key, points, expire) VALUES ($1, $2, ${DB_NOW_MS} + $3)
        ON CONFLICT (key) DO UPDATE SET
          points = CASE WHEN b.expire IS NOT NULL AND b.expire <= ${DB_NOW_MS} THEN $2 ELSE b.points + $2 END,
          expire = CASE WHEN b.expire IS NOT NULL AND b.expire <= ${DB_NOW_MS} THEN ${DB_NOW_MS} + $3 ELSE b.expire END
        RETURNING points, expire - ${DB_NOW_MS} AS ms_before_next`,
      values: [this.#key(key), points, this.#o.slotMs],
    });
    const res = this.#res(r.rows[0], points);
    if (res.consumedPoints > this.#o.points) throw res;
    return res;
  }

  /** The key's current slot, or null when it has expired (or never opened). */
  async get(key: string | number): Promise<RateLimiterRes | null> {
    const r = await this.#o.pool.query<Row>({
      name: 'shopsync-budget-get',
      text: `SELECT points, expire - ${DB_NOW_MS} AS ms_before_next FROM ${this.#t} WHERE key = $1 AND (expire IS NULL OR expire > ${DB_NOW_MS})`,
      values: [this.#key(key)],
    });
    return r.rows[0] ? this.#res(r.rows[0], 0) : null;
  }

  /** Set the key's points for `secDuration` from now (the database's), whatever its slot held. */
  async set(key: string | number, points: number, secDuration: number): Promise<RateLimiterRes> {
    const r = await this.#o.pool.query<Row>({
      name: 'shopsync-budget-set',
      text: `INSERT INTO ${this.#t} (key, points, expire) VALUES ($1, $2, ${DB_NOW_MS} + $3)
        ON CONFLICT (key) DO UPDATE SET points = excluded.points, expire = excluded.expire
        RETURNING points, expire - ${DB_NOW_MS} AS ms_before_next`,
      values: [this.#key(key), points, Math.round(secDuration * 1000)],
    });
    return this.#res(r.rows[0], points);
  }

  #key(key: string | number): string {
    return `${this.#o.keyPrefix}:${key}`;
  }

  #res(row: Row | undefined, changed: number): RateLimiterRes {
    const consumed = row?.points ?? 0;
    const msBeforeNext = row?.ms_before_next == null ? -1 : Math.max(0, Number(row.ms_before_next));
    return new RateLimiterRes(Math.max(this.#o.points - consumed, 0), msBeforeNext, consumed, consumed === changed);
  }
}
