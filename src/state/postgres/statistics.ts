/**
 * Planner statistics of the tables the push and pull read by key in every batch (references,
 * sent hashes, pull hashes, history entries, followed records).
 *
 * Why: PostgreSQL plans from table statistics, which autovacuum refreshes only after a minute's
 * nap and 10 % of a table changed. A state that grows by thousands of rows within a run (a first
 * import) has none, and without them the planner reads a batch's references through an index on
 * its (shop, resource) prefix and filters every row of the resource: each batch read costs time
 * in proportion to the table (measured: 12–34 ms per 100 keys at 20,000 references, 0.25 ms once
 * analysed), so a push grows quadratic. So the store analyses such a table itself once it wrote
 * 1,000 rows to it and as many as the table held at its last ANALYZE: once per doubling (1,000,
 * 2,000, 4,000… rows), which keeps the planner's idea of the table within a factor of two while
 * a run fills it; a table already analysed and large is left to autovacuum. ANALYZE samples at
 * most 30,000 rows (milliseconds), takes no lock that blocks reads or writes, and makes cached
 * plans of the table's prepared statements replan.
 */
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { one } from './db.js';

/** Tables whose batch reads depend on their statistics. */
// followed: a pull with `follow:` reads it per batch, and its first pass adopts a whole age window of orders at once.
// sent_values: a push with `owner: guard` fields reads it per update batch (issue 46).
export const KEYED_TABLES = ['refs', 'sent_hashes', 'seen', 'history_entries', 'followed', 'sent_values'] as const;
export type KeyedTable = (typeof KEYED_TABLES)[number];

/** Rows written to a table before its statistics are looked at. */
const MIN_ROWS = 1_000;
/** Rows written since the last ANALYZE, as a share of the rows it counted, that make the statistics stale. */
const SCALE = 1;

/** Counts rows this process wrote per keyed table and analyses a table once its statistics are stale. */
export class Statistics {
  private readonly written = new Map<KeyedTable, number>();
  /** Rows at the last ANALYZE (pg_class.reltuples); undefined until first looked at. */
  private readonly baseline = new Map<KeyedTable, number>();
  private readonly running = new Set<KeyedTable>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** Note rows written (after their commit); starts an ANALYZE in the background when one is due. */
  wrote(rows: ReadonlyMap<string, number>): void {
    for (const table of KEYED_TABLES) {
      const n = rows.get(table);
      if (!n) continue;
      const total = (this.written.get(table) ?? 0) + n;
      this.written.set(table, total);
      if (total < MIN_ROWS || total < SCALE * (this.baseline.get(table) ?? 0) || this.running.has(table)) continue;
      this.running.add(table);
      const p = this.refresh(table)
        .catch((err: unknown) => this.logger.warn({ err, table }, 'refreshing planner statistics of a state table failed; autovacuum will do it later'))
        .finally(() => {
          this.running.delete(table);
          this.pending.delete(p);
        });
      this.pending.add(p);
    }
  }

  /** Wait for statistics refreshes under way (before the pool closes). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async refresh(table: KeyedTable): Promise<void> {
    const before = this.written.get(table) ?? 0;
    if (!this.baseline.has(table)) {
      // First look: a table analysed before (by autovacuum or another replica) may be large enough that these rows change little.
      const rows = await this.reltuples(table);
      if (rows >= 0 && before < SCALE * rows) {
        this.baseline.set(table, rows);
        return;
      }
    }
    await this.pool.query(`ANALYZE ${table}`);
    this.written.set(table, (this.written.get(table) ?? 0) - before);
    this.baseline.set(table, Math.max(0, await this.reltuples(table)));
    this.logger.debug({ table, rows: this.baseline.get(table) }, 'planner statistics of a state table refreshed');
  }

  /** pg_class.reltuples: rows at the last ANALYZE or VACUUM, -1 when never analysed. */
  private async reltuples(table: KeyedTable): Promise<number> {
    return (await one<{ n: number }>(this.pool, 'SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass($1)', [table]))?.n ?? -1;
  }
}
