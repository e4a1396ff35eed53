/**
 * Types of the state store.
 *
 * Glossary
 * - pipeline: a named flow of records in one direction (ERP → shop push, shop → ERP pull).
 * - run: one execution of a pipeline (sync, backfill, dry run, dead-letter retry).
 * - lane: what a lock protects: a pipeline's incremental runs, or one backfill range of it.
 * - cursor: how far a lane got in its source's order (value + record key), saved only once
 *   everything before it is settled.
 * - reference: ERP key ↔ shop id of one record of a shop resource.
 * - sent hash: content hash of the last payload the shop accepted for a record, per pipeline.
 * - intent: a create about to be sent for a record without reference; a crash leaves it behind
 *   and the next run reconciles it before creating again.
 * - event: what happened to one record in one run (created, updated, unchanged, failed…).
 * - dead letter: a record that failed; kept with its reason until retried or dropped.
 * - sent value: the last value the shop accepted for one guard field of a record (`owner: guard`).
 * - conflict: a guard field the shop's people changed since it was last sent; held (not
 *   overwritten) and kept until a person takes the ERP's value or keeps the shop's.
 */
import type { CursorValue } from '../erp/types.js';

/** A stored cursor. */
export interface StoredCursor {
  readonly pipeline: string;
  readonly name: string;
  readonly value: CursorValue;
  readonly key: string | null;
  /** Lane-specific bookkeeping (pull boundary, backfill finished…). */
  readonly boundary?: Readonly<Record<string, unknown>>;
  readonly updatedAt: string;
}

/** A shop id as stored: digits come back as numbers. */
export type ShopId = string | number;

/** ERP key ↔ shop id of one record. */
export interface Reference {
  readonly shop: string;
  readonly resource: string;
  readonly erpKey: string;
  readonly shopId: ShopId;
  /** The record's number (products_model…) when shopsync last wrote it, for records kept by a stable ERP id (issue 46). */
  readonly number?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An unsettled create. */
export interface Intent {
  readonly shop: string;
  readonly resource: string;
  readonly erpKey: string;
  readonly pipeline: string;
  readonly hash: string;
  readonly naturalKey?: Readonly<Record<string, unknown>>;
  readonly runId?: number;
  readonly createdAt: string;
}

/** `repair`: the records a reconciliation found drifted, pushed again (`shopsync reconcile --repair`). */
export type RunMode = 'sync' | 'backfill' | 'dry-run' | 'retry' | 'repair';
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'partial' | 'aborted' | 'crashed';

/** Per-run record counters. */
export interface RunCounts {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  deadLettered: number;
  /** Of the dead-lettered: records the source could not use (broken rows, no key, unreadable files). */
  unreadable: number;
  warnings: number;
  requests: number;
  /**
   * Guard fields the run held instead of overwriting (a conflict, or a shop it could not read);
   * absent counts as 0, so counts written before issue 46 (and literals in tests) stay valid.
   */
  conflicts?: number;
}

/** A run row. */
export interface RunRecord {
  readonly id: number;
  readonly pipeline: string;
  /** The shop the run wrote to or read from. */
  readonly shop: string;
  readonly mode: RunMode;
  readonly lane: string;
  readonly status: RunStatus;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly pid?: number;
  readonly host?: string;
  /** Whose run it is (`runOwner`): the starter's token while it runs, the taker's once a takeover marked it crashed. */
  readonly owner?: string;
  readonly range?: Readonly<Record<string, unknown>>;
  readonly counts: Readonly<RunCounts>;
  readonly error?: Readonly<Record<string, unknown>>;
}

/** `deactivated`, `deleted`: a shop record whose ERP record is gone (pipeline option `onMissing`). */
export type EventOutcome = 'created' | 'updated' | 'unchanged' | 'failed' | 'dead-lettered' | 'delivered' | 'skipped' | 'would-create' | 'would-update' | 'deactivated' | 'deleted';

/** A warning or error as stored with an event. */
export interface StoredIssue {
  readonly code: string;
  readonly message: string;
  readonly field?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What happened to one record in one run. */
export interface RecordEvent {
  readonly id: number;
  readonly runId: number;
  readonly pipeline: string;
  readonly shop: string;
  readonly resource?: string;
  readonly erpKey?: string;
  readonly shopId?: ShopId;
  readonly outcome: EventOutcome;
  readonly warnings: readonly StoredIssue[];
  readonly error?: StoredIssue;
  readonly payloadHash?: string;
  readonly payload?: unknown;
  readonly diff?: unknown;
  readonly at: string;
}

/** A new event (id and time are assigned by the store). */
export type NewRecordEvent = Omit<RecordEvent, 'id' | 'at' | 'warnings' | 'shop'> & {
  readonly warnings?: readonly StoredIssue[];
  readonly atMs?: number;
  /** `payload`'s JSON text when the caller has it already (the hash's text): stored instead of writing the payload again. */
  readonly payloadText?: string;
};

/** A dead letter. */
export interface DeadLetter {
  readonly id: number;
  readonly pipeline: string;
  readonly shop: string;
  readonly resource?: string;
  readonly erpKey: string;
  readonly record: Readonly<Record<string, unknown>>;
  readonly payload?: unknown;
  readonly code: string;
  readonly reason: string;
  readonly attempts: number;
  readonly runId?: number;
  readonly firstFailedAt: string;
  readonly lastFailedAt: string;
  /** Where the record came from, when the source could tell (file and line or element, raw text). */
  readonly origin?: DeadLetterOrigin;
}

/** The source place of a dead letter's record. */
export interface DeadLetterOrigin {
  readonly file?: string;
  readonly line?: number;
  readonly element?: number;
  readonly raw?: string;
}

/** Milliseconds → ISO string. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO string, Date or ms → ms. */
export function toMs(t: string | number | Date): number {
  if (typeof t === 'number') return t;
  if (t instanceof Date) return t.getTime();
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) throw new TypeError(`Expected an ISO date-time, got \`${t}\``);
  return ms;
}

/** A stored shop id back to its natural type. */
export function readShopId(raw: string): ShopId {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
}

/** Parse a JSON column that may be null. */
export function parseJson<T>(text: string | null | undefined): T | undefined {
  return text === null || text === undefined ? undefined : (JSON.parse(text) as T);
}

/** What a failing record leaves behind. */
export type NewDeadLetter = Pick<DeadLetter, 'pipeline' | 'resource' | 'erpKey' | 'record' | 'payload' | 'code' | 'reason' | 'runId' | 'origin'>;

/** Zeroed counters. */
export function emptyCounts(): RunCounts {
  return { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deadLettered: 0, unreadable: 0, warnings: 0, requests: 0 };
}

/** Whether a conflict waits for a person (`open`) or is decided (`resolved`). */
export type ConflictStatus = 'open' | 'resolved';

/**
 * How a conflict ended: `erp` the ERP's value was sent over the shop's (while still open: the next
 * push of the pipeline sends it), `shop` the shop's value was kept and became the last sent,
 * `agreed` the two sides came to one value (or the shop went back to the one last sent).
 */
export type ConflictResolution = 'erp' | 'shop' | 'agreed';

/** A guard field whose shop value is neither what shopsync last sent nor the ERP's (docs/mappings.md "Who owns a field"). */
export interface FieldConflict {
  readonly pipeline: string;
  readonly shop: string;
  readonly resource: string;
  readonly erpKey: string;
  readonly shopId?: ShopId;
  /** The field's target path (`languages.de.products_description`). */
  readonly field: string;
  /** What the ERP sends now (as the mapping produced it). */
  readonly erpValue: unknown;
  /** What shopsync last sent; absent when it does not know (the guard came after the record was last written). */
  readonly sentValue?: unknown;
  /** What the shop holds (null when its record lacks the field). */
  readonly shopValue: unknown;
  readonly status: ConflictStatus;
  readonly resolution?: ConflictResolution;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
  readonly resolvedAt?: string;
  /** The run that saw it last. */
  readonly runId?: number;
}

/** Filters of `conflicts.list`. */
export interface ConflictFilter {
  readonly pipeline?: string;
  readonly shop?: string;
  readonly erpKey?: string;
  readonly status?: ConflictStatus;
  /** @default 500 */
  readonly limit?: number;
  readonly offset?: number;
}

/** Field conflicts (one row per pipeline, record and field; written with `write(fn)`). */
export interface ConflictStore {
  /** Conflicts, open ones first, the latest seen first. */
  list(filter?: ConflictFilter): Promise<FieldConflict[]>;
  /** The open conflicts of these records, by ERP key (one query per few hundred keys). */
  ofRecords(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, FieldConflict[]>>;
  /** Open conflicts per pipeline (pipelines without any are absent). */
  openCounts(): Promise<Map<string, number>>;
}

/** What the shop holds of a guard field by shopsync's account, and the ERP's value that stands for. */
export interface SentValue {
  /** What the shop accepted (or what a person kept of the shop's). */
  readonly value: unknown;
  /** The ERP's value this stands for, when it is another: "keep shop" declined it, so it stays unsent until the ERP changes. Absent: `value`. */
  readonly erp?: unknown;
}

/** The last value the shop accepted per guard field of a record. */
export interface SentValueStore {
  /** By record key, then field path; records without any are absent. */
  get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, Map<string, SentValue>>>;
}
