/**
 * Public types of pipelines.
 *
 * Glossary
 * - pipeline: a named flow of records: push (ERP source → mapping → shop) or pull (shop export →
 *   mapping → ERP sink).
 * - run: one execution: `sync` (incremental, moves the cursor), `backfill` (an explicit range with
 *   its own checkpoint, never moves the incremental cursor), `dry-run` (writes nothing).
 * - settled: a record whose outcome (created, updated, unchanged, dead-lettered…) is committed to
 *   the state; the cursor never passes an unsettled record (low-water mark).
 * - reference, sent hash, intent, dead letter: see `src/state/types.ts`.
 */
import type { LookupConnections } from './lookups/ports.js';
import type { SourceWatermark } from '../erp/types.js';
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { ShopClient } from '../shop/client/types.js';
import type { RunCounts, StateStore } from '../state/index.js';
import type { Sink, Source, CursorValue } from '../erp/types.js';
import type { SyncEvents } from './events.js';
import type { PipelineDefinition } from './schema.js';

export type RunStatusFinal = 'succeeded' | 'failed' | 'partial' | 'aborted';

/** What a run did. */
export interface RunSummary {
  /** State run id (0 for dry runs, which write no state). */
  readonly runId: number;
  readonly pipeline: string;
  readonly mode: RunMode | 'retry' | 'repair';
  readonly status: RunStatusFinal;
  readonly counts: Readonly<RunCounts>;
  readonly durationMs: number;
  /** Dry runs: what each record would do. */
  readonly plan?: readonly PlannedRecord[];
  readonly error?: { readonly code: string; readonly message: string };
  /** Push runs: what became of shop records whose ERP record is gone (`onMissing`). */
  readonly missing?: MissingReport;
  /** Incremental SQL reads: what the ERP database said about its open transactions before the read. */
  readonly watermark?: SourceWatermark;
}

/** The `onMissing` step of a run. */
export interface MissingReport {
  /** Whether the run could decide what is missing (a complete, unbroken read), and if not, why. */
  readonly decided: boolean;
  readonly why?: string;
  readonly action: 'deactivate' | 'delete' | 'ignore';
  /** Shop records the step would touch (already deactivated ones left out). */
  readonly candidates: number;
  /** Records of the resource the state knows in the pipeline's shop (the guard's base). */
  readonly total: number;
  readonly deactivated: number;
  readonly deleted: number;
  readonly failed: number;
  /** Set when the mass-deletion guard refused the step: nothing was touched. */
  readonly refused?: { readonly code: 'MASS_DELETE_REFUSED'; readonly message: string; readonly sample: readonly string[] };
}

export type RunMode = 'sync' | 'backfill' | 'dry-run';

/** A dry run's verdict on one record. */
export interface PlannedRecord {
  readonly erpKey: string;
  /** `deactivate`, `delete`: a shop record whose ERP record is gone (`onMissing`). */
  readonly action: 'create' | 'update' | 'skip' | 'fail' | 'deactivate' | 'delete';
  readonly shopId?: string | number;
  readonly payload?: Readonly<Record<string, unknown>>;
  /** Updates: field → {shop, next} for every field that differs from the shop's current record. */
  readonly diff?: Readonly<Record<string, { readonly shop: unknown; readonly next: unknown }>>;
  readonly reason?: string;
  /** Warnings of the mapping and the guard rails; the payload would go out with them. */
  readonly warnings?: readonly PlannedFinding[];
  /** Fails: every finding that refuses the record (mapping errors, guard rails, source refusals), each with its code. */
  readonly errors?: readonly PlannedFinding[];
}

/** A finding about one planned record: a stable code, a message saying how to fix it, the payload field it concerns. */
export interface PlannedFinding {
  readonly code: string;
  readonly message: string;
  readonly field?: string;
}

/** A backfill range: cursor values (`from`..`to`, inclusive) or, for pulls, an id range or dates. */
export interface RunRange {
  readonly from?: CursorValue;
  readonly to?: CursorValue;
}

/** Options of one run. */
export interface RunOptions {
  /** @default 'sync' */
  readonly mode?: RunMode;
  /** Backfill range. */
  readonly range?: RunRange;
  /** Aborting lets in-flight batches settle, checkpoints and returns status `aborted`. */
  readonly signal?: AbortSignal;
  /** How often the lane lock is confirmed; a lost lock stops the run at its next checkpoint. @default 15000 */
  readonly heartbeatMs?: number;
  /** Sync and dry run: read the whole source (not from the cursor), then apply `onMissing`. A sync without a cursor reads everything anyway. */
  readonly complete?: boolean;
  /** Let the `onMissing` step touch more records than `options.massDelete` allows (implies `complete`). */
  readonly allowMassDelete?: boolean;
  /**
   * How long the run's final write is tried again while the state does not answer; then the run
   * fails with that error (the next run marks it crashed). The daemon passes Infinity: its process
   * goes on, so the run must not stay `running`. @default 30000
   */
  readonly finishRetryMs?: number;
}

/** What the push and pull engines get from `runPipeline` for one run (internal). */
export interface LaneRunOptions {
  readonly runId: number;
  readonly mode: RunOptions['mode'];
  /** Cursor lane: `incremental` or `backfill:<from>..<to>`. */
  readonly cursorName: string;
  readonly counts: RunCounts;
  readonly range?: RunRange;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** Read the whole source, not from the cursor (`RunOptions.complete`). */
  readonly complete?: boolean;
  readonly allowMassDelete?: boolean;
  /** When the run began (epoch ms with fraction): reads of other pipelines started after it may be shared with it (`ReadOptions.since`). */
  readonly since?: number;
  /** Rejects (`LOCK_LOST`) once this process no longer holds the run's lane: called before requests leave and before the cursor's final move. */
  readonly fence?: () => Promise<void>;
}

/** Where a run gets its ERP side: ready instances, or factories called once per run (and closed after it). */
export type SourceProvider = Source | (() => Promise<Source>);
export type SinkProvider = Sink | (() => Promise<Sink>);

/** What a run needs. */
export interface PipelineDeps {
  readonly state: StateStore;
  readonly shop: ShopClient;
  /** The compiled mapping of the pipeline. */
  readonly mapping: CompiledMapping;
  readonly source?: SourceProvider;
  readonly sink?: SinkProvider;
  /** Pull: the ERP connections the pipeline's `lookups:` ask; push with `reservations.booked.query`: its source connection. Opened for one run (closed after it). */
  readonly lookups?: () => LookupConnections;
  readonly logger?: Logger;
  readonly events?: SyncEvents;
}

export type { PipelineDefinition };
