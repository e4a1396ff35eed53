/**
 * Retention: the state must not grow without bound on a daemon that runs for months. Old events
 * go, stored payloads go sooner (they are the bulk), old runs go; dead letters are never pruned
 * (each is work a person still has to look at). Deletes run in small batches, each its own short
 * transaction with a pause between, so a pipeline writing at the same time waits at most one batch.
 * Space goes back to the disk through SQLite's incremental vacuum.
 */
import type { Logger } from '../../log.js';
import { cutoffs, pause, type PruneReport, type RetentionPolicy } from '../retentionPolicy.js';
import type { RetentionStore } from '../store.js';
import type { Db } from './db.js';

/** Prune and reclaim space in one state database. */
export class SqliteRetention implements RetentionStore {
  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly logger: Logger,
  ) {}

  /** The oldest event kept (how far back history goes), when there is any. */
  async historySince(): Promise<string | undefined> {
    const row = this.db.prepare<[], { at: number | null }>('SELECT MIN(at) AS at FROM events').get();
    return row?.at != null ? new Date(row.at).toISOString() : undefined;
  }

  /** Bytes the database file takes (pages in use and free). */
  async sizeBytes(): Promise<number> {
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const size = this.db.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  /** Prune by `policy` (relative to `now`); a dry run only counts. */
  async prune(policy: RetentionPolicy, options: { dryRun?: boolean; now?: number } = {}): Promise<PruneReport> {
    const now = options.now ?? Date.now();
    const dryRun = options.dryRun === true;
    const { events: eventsBefore, payloads: payloadsBefore, runs: runsBefore } = cutoffs(policy, now);
    const runsWhere = `finished_at IS NOT NULL AND finished_at < ? AND status != 'running'
      AND id NOT IN (SELECT MAX(id) FROM runs GROUP BY pipeline)
      AND id NOT IN (SELECT run_id FROM dead_letters WHERE run_id IS NOT NULL)`;
    if (dryRun) {
      const count = (sql: string, ...p: number[]) => (this.db.prepare<number[], { n: number }>(sql).get(...p) as { n: number }).n;
      return {
        dryRun,
        events: count('SELECT COUNT(*) AS n FROM events WHERE at < ?', eventsBefore),
        payloads: count('SELECT COUNT(*) AS n FROM events WHERE at < ? AND at >= ? AND (payload IS NOT NULL OR diff IS NOT NULL)', payloadsBefore, eventsBefore),
        runs: count(`SELECT COUNT(*) AS n FROM runs WHERE ${runsWhere}`, runsBefore),
        reclaimedBytes: 0,
        ...(await this.since()),
      };
    }
    const sizeBefore = await this.sizeBytes();
    const events = await this.inBatches(`DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < ? LIMIT ?)`, eventsBefore, policy.batchSize);
    const payloads = await this.inBatches(
      `UPDATE events SET payload = NULL, diff = NULL WHERE id IN (SELECT id FROM events WHERE at < ? AND (payload IS NOT NULL OR diff IS NOT NULL) LIMIT ?)`,
      payloadsBefore,
      policy.batchSize,
    );
    const runs = await this.inBatches(`DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE ${runsWhere} LIMIT ?)`, runsBefore, policy.batchSize);
    await this.reclaim();
    const report: PruneReport = { dryRun, events, payloads, runs, reclaimedBytes: Math.max(0, sizeBefore - (await this.sizeBytes())), ...(await this.since()) };
    if (events + payloads + runs > 0) this.logger.info(report, 'state pruned');
    return report;
  }

  private async since(): Promise<{ historySince?: string }> {
    const since = await this.historySince();
    return since ? { historySince: since } : {};
  }

  private async inBatches(sql: string, before: number, batchSize: number): Promise<number> {
    const stmt = this.db.prepare<[number, number]>(sql);
    let total = 0;
    for (;;) {
      const changed = this.db.transaction(() => stmt.run(before, batchSize).changes).immediate();
      total += changed;
      if (changed < batchSize) return total;
      await pause();
    }
  }

  /** Give free pages back to the disk: incremental vacuum in steps; a database made before that was on is vacuumed once to switch it on. */
  private async reclaim(): Promise<void> {
    if (this.path === ':memory:') return;
    const mode = this.db.pragma('auto_vacuum', { simple: true }) as number;
    if (mode !== 2) {
      this.logger.info({ path: this.path }, 'switching the state to incremental vacuum (a one-time full VACUUM)');
      this.db.pragma('auto_vacuum = INCREMENTAL');
      this.db.exec('VACUUM');
      return;
    }
    for (;;) {
      const free = this.db.pragma('freelist_count', { simple: true }) as number;
      if (free === 0) break;
      this.db.pragma('incremental_vacuum(1000)');
      await pause();
    }
    // The WAL holds the freed pages' last versions until a checkpoint truncates it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
