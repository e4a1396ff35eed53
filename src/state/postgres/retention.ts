/**
 * Retention (PostgreSQL): the same rules as SQLite (see sqlite/retention.ts): old events go,
 * stored payloads sooner, finished runs later; dead letters stay. Each batch of `batchSize` rows
 * is one statement (its own short transaction) with a pause between, so settles keep going.
 * Space is given back by autovacuum, not by the prune, so `reclaimedBytes` is 0.
 */
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { cutoffs, pause, type PruneReport, type RetentionPolicy } from '../retentionPolicy.js';
import type { RetentionStore } from '../store.js';
import { execute, one } from './db.js';

/** Tables of the state's schema (what `sizeBytes` adds up, with their indexes and TOAST). */
const SIZE_SQL = `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
  WHERE s.nspname = $1 AND c.relkind IN ('r', 'p', 'm')`;

const RUNS_WHERE = `finished_at IS NOT NULL AND finished_at < $1 AND status <> 'running'
  AND id NOT IN (SELECT MAX(id) FROM runs GROUP BY pipeline)
  AND id NOT IN (SELECT run_id FROM dead_letters WHERE run_id IS NOT NULL)`;
const PAYLOADS_WHERE = 'at < $1 AND (payload IS NOT NULL OR diff IS NOT NULL)';

/** Prune one state schema. */
export class PgRetention implements RetentionStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly logger: Logger,
  ) {}

  async historySince(): Promise<string | undefined> {
    const row = await one<{ at: number | null }>(this.pool, 'SELECT MIN(at) AS at FROM events');
    return row?.at != null ? new Date(row.at).toISOString() : undefined;
  }

  async sizeBytes(): Promise<number> {
    return (await one<{ n: number }>(this.pool, SIZE_SQL, [this.schema]))?.n ?? 0;
  }

  async prune(policy: RetentionPolicy, options: { dryRun?: boolean; now?: number } = {}): Promise<PruneReport> {
    const now = options.now ?? Date.now();
    const dryRun = options.dryRun === true;
    const before = cutoffs(policy, now);
    if (dryRun) {
      const count = async (sql: string, ...p: number[]) => (await one<{ n: number }>(this.pool, sql, p))?.n ?? 0;
      return {
        dryRun,
        events: await count('SELECT COUNT(*) AS n FROM events WHERE at < $1', before.events),
        payloads: await count(`SELECT COUNT(*) AS n FROM events WHERE ${PAYLOADS_WHERE} AND at >= $2`, before.payloads, before.events),
        runs: await count(`SELECT COUNT(*) AS n FROM runs WHERE ${RUNS_WHERE}`, before.runs),
        reclaimedBytes: 0,
        ...(await this.since()),
      };
    }
    const events = await this.inBatches('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < $1 LIMIT $2)', before.events, policy.batchSize);
    const payloads = await this.inBatches(`UPDATE events SET payload = NULL, diff = NULL WHERE id IN (SELECT id FROM events WHERE ${PAYLOADS_WHERE} LIMIT $2)`, before.payloads, policy.batchSize);
    const runs = await this.inBatches(`DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE ${RUNS_WHERE} LIMIT $2)`, before.runs, policy.batchSize);
    const report: PruneReport = { dryRun, events, payloads, runs, reclaimedBytes: 0, ...(await this.since()) };
    if (events + payloads + runs > 0) this.logger.info(report, 'state pruned');
    return report;
  }

  private async since(): Promise<{ historySince?: string }> {
    const since = await this.historySince();
    return since ? { historySince: since } : {};
  }

  private async inBatches(sql: string, before: number, batchSize: number): Promise<number> {
    let total = 0;
    for (;;) {
      const changed = await execute(this.pool, sql, [before, batchSize]);
      total += changed;
      if (changed < batchSize) return total;
      await pause();
    }
  }
}
