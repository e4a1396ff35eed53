/** What retention keeps, and what a prune reports; the same for every backend. */

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
  /** Bytes the state shrank by on disk (0 on a dry run, and on PostgreSQL, where autovacuum gives space back later). */
  readonly reclaimedBytes: number;
  /** The oldest event kept, when any. */
  readonly historySince?: string;
}

export const DAY_MS = 86_400_000;

/** The cut-off times of a policy. */
export function cutoffs(policy: RetentionPolicy, now: number): { events: number; payloads: number; runs: number } {
  return { events: now - policy.eventsDays * DAY_MS, payloads: now - policy.payloadsDays * DAY_MS, runs: now - policy.runsDays * DAY_MS };
}

/** Let other work (a pipeline's settle) in between two delete batches. */
export const pause = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
