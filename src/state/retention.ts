/**
 * Retention: the state must not grow without bound on a daemon that runs for months. Old events
 * go, stored payloads go sooner (they are the bulk), old runs go; dead letters are never pruned
 * (each is work a person still has to look at). Deletes run in small batches, each its own short
 * transaction with a pause between, so a pipeline writing at the same time waits at most one batch.
 * Space goes back to the disk through SQLite's incremental vacuum.
 */
import type { Logger } from '../log.js';
import type { Db } from './db.js';

/** How long what is kept. */
export interface RetentionPolicy {
  /** Events (per-record history) older than this go. */
  readonly eventsDays: number;
  /** Stored payloads and diffs older than this are cleared from their events (the events stay). */
  readonly payloadsDays: number;
  /** Finished runs older than this go (the latest run of each pipeline and runs with open dead letters stay). */
  readonly runsDays: number;
  /** Rows per delete batch. */
  readonly batchSize: number;
}

/** The defaults: events 30 days, payloads 7, runs 90, batches of 2,000 rows. */
export const DEFAULT_RETENTION: RetentionPolicy = { eventsDays: 30, payloadsDays: 7, runsDays: 90, batchSize: 2000 };

/** What a prune removed (or, dry, would remove). */
export interface PruneReport {
  readonly dryRun: boolean;
  readonly events: number;
  readonly payloads: number;
  readonly runs: number;
  /** Bytes the state file shrank by (0 on a dry run). */
  readonly reclaimedBytes: number;
  /** The oldest event kept, when any. */
  readonly historySince?: string;
}

const DAY = 86_400_000;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Prune and reclaim space in one state database. */
export class Retention {
  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly logger: Logger,
  ) {}

  /** The oldest event kept (how far back history goes), when there is any. */
  historySince(): string | undefined {
    const row = this.db.prepare<[], { at: number | null }>('SELECT MIN(at) AS at FROM events').get();
    return row?.at != null ? new Date(row.at).toISOString() : undefined;
  }

  /** Bytes the database file takes (pages in use and free). */
  sizeBytes(): number {
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const size = this.db.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  /** Prune by `policy` (relative to `now`); a dry run only counts. */
  async prune(policy: RetentionPolicy, options: { dryRun?: boolean; now?: number } = {}): Promise<PruneReport> {
    const now = options.now ?? Date.now();
    const dryRun = options.dryRun === true;
    const eventsBefore = now - policy.eventsDays * DAY;
    const payloadsBefore = now - policy.payloadsDays * DAY;
    const runsBefore = now - policy.runsDays * DAY;
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
        ...(this.historySince() ? { historySince: this.historySince() } : {}),
      };
    }
    const sizeBefore = this.sizeBytes();
    const events = await this.inBatches(`DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < ? LIMIT ?)`, eventsBefore, policy.batchSize);
    const payloads = await this.inBatches(
      `UPDATE events SET payload = NULL, diff = NULL WHERE id IN (SELECT id FROM events WHERE at < ? AND (payload IS NOT NULL OR diff IS NOT NULL) LIMIT ?)`,
      payloadsBefore,
      policy.batchSize,
    );
    const runs = await this.inBatches(`DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE ${runsWhere} LIMIT ?)`, runsBefore, policy.batchSize);
    await this.reclaim();
    const report: PruneReport = { dryRun, events, payloads, runs, reclaimedBytes: Math.max(0, sizeBefore - this.sizeBytes()), ...(this.historySince() ? { historySince: this.historySince() } : {}) };
    if (events + payloads + runs > 0) this.logger.info(report, 'state pruned');
    return report;
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
