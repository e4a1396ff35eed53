/**
 * The state store's contract, kept by every backend (`sqlite/`, `postgres/`).
 *
 * Reads are async and come in set-based forms (`getMany`) so a batch of records costs one query
 * per table, not one per record. Writes that must land together go through `write(fn)`: `fn`
 * records them on a `StateWriter` synchronously and the backend commits them in one transaction
 * (SQLite runs them as they come; PostgreSQL folds them into one statement per table). A store is
 * scoped to one shop: references, intents and history entries are per shop, and runs, events and
 * dead letters it writes carry the shop's name; `forShop` gives the same store scoped to another.
 */
import type { ReservationStore, StockSent, StockSentStore } from '../reservations/types.js';
import type { CursorValue } from '../erp/types.js';
import type { FollowStore, FollowWriter } from '../follow/types.js';

import type { PruneReport, RetentionPolicy } from './retentionPolicy.js';
import type { ConflictStore, DeadLetter, FieldConflict, Intent, NewDeadLetter, SentValueStore, NewRecordEvent, RecordEvent, Reference, RunCounts, RunMode, RunRecord, RunStatus, ShopId, StoredCursor } from './types.js';

/** The shop a single `shop:` block configures, and the scope of a store opened without one. */
export const DEFAULT_SHOP = 'default';

/** Filters of `runs.list`. */
export interface RunFilter {
  readonly pipeline?: string;
  readonly shop?: string;
  readonly status?: RunStatus | readonly RunStatus[];
  readonly mode?: RunMode;
  /** Runs that had at least one record with this outcome. */
  readonly outcome?: 'failed' | 'dead-lettered' | 'warnings';
  readonly since?: string | number | Date;
  readonly until?: string | number | Date;
  /** @default 50 */
  readonly limit?: number;
  readonly offset?: number;
}

/** Filters of `events.list`. */
export interface EventFilter {
  readonly runId?: number;
  readonly pipeline?: string;
  readonly shop?: string;
  readonly resource?: string;
  readonly erpKey?: string;
  readonly shopId?: string | number;
  readonly outcome?: RecordEvent['outcome'] | readonly RecordEvent['outcome'][];
  /** Events carrying this warning or error code. */
  readonly code?: string;
  readonly since?: string | number | Date;
  readonly until?: string | number | Date;
  /** @default 100 */
  readonly limit?: number;
  readonly offset?: number;
  /** @default 'asc' for a run's events, 'desc' otherwise */
  readonly order?: 'asc' | 'desc';
  /** A payload or diff over 16 KiB comes as `{ truncated, bytes }` (`eventExcerpt.ts`), for lists shown to people. */
  readonly excerpt?: boolean;
}

/** Filters of `deadLetters.list`. */
export interface DeadLetterFilter {
  readonly pipeline?: string;
  readonly shop?: string;
  readonly code?: string;
  readonly erpKey?: string;
  readonly limit?: number;
  readonly offset?: number;
  /** Read record and payload only as excerpts (`letterExcerpt.ts`), for lists shown to people; a retry refuses such a letter. */
  readonly excerpt?: boolean;
}

/** One bucket of `events.countsPerMinute`. */
export interface MinuteCount {
  /** Start of the minute (ISO). */
  readonly minute: string;
  readonly outcome: RecordEvent['outcome'];
  readonly count: number;
}

export type HistoryState = 'pending' | 'sent';

/** A tracked append-only list entry (order status history). */
export interface HistoryEntry {
  readonly resource: string;
  readonly shopId: string;
  readonly identity: string;
  readonly state: HistoryState;
  readonly entry: Readonly<Record<string, unknown>>;
  readonly runId?: number;
}

/** Who holds a lock. */
export interface LockInfo {
  readonly name: string;
  readonly owner: string;
  readonly pid: number;
  readonly host: string;
  readonly acquiredAt: string;
  readonly heartbeatAt: string;
}

/** A held lock. */
export interface LockHandle {
  readonly name: string;
  readonly owner: string;
  /** True when the lock was taken over from a dead holder (its runs are marked crashed). */
  readonly tookOver: boolean;
  /** Refresh the lease; rejects with `LOCK_LOST` when another process has taken the lock. */
  heartbeat(): Promise<void>;
  /** Give the lock back (no-op when already released). */
  release(): Promise<void>;
}

/** Options of `locks.acquire`. */
export interface AcquireOptions {
  /** A lock whose holder cannot be asked (another host) is stale after this long without a heartbeat. @default 120000 */
  readonly staleAfterMs?: number;
}

/** A cursor as written. */
export interface CursorWrite {
  readonly value: CursorValue;
  readonly key: string | null;
  readonly boundary?: Readonly<Record<string, unknown>>;
}

/** Writes recorded inside `write(fn)`; they land together when `fn` returns. */
export interface StateWriter {
  readonly refs: {
    /** Record (or move) a reference; `number` (issue 46) is the record's number as written, absent keeps the stored one. */
    put(resource: string, erpKey: string, shopId: ShopId, number?: string): void;
    delete(resource: string, erpKey: string): void;
  };
  readonly hashes: {
    /**
     * Store a payload hash; `sourceHash` only when the payload follows from the source record alone (else none is kept);
     * `changedAt` (a delivery's change time, epoch ms) raises the stored one, never lowers it; absent keeps it.
     */
    put(pipeline: string, resource: string, erpKey: string, hash: string, sourceHash?: string, changedAt?: number): void;
    delete(pipeline: string, resource: string, erpKey: string): void;
  };
  readonly intents: {
    put(intent: Omit<Intent, 'createdAt' | 'shop'>): void;
    delete(resource: string, erpKey: string): void;
  };
  readonly seen: { put(pipeline: string, key: string, hash: string): void };
  readonly events: { add(event: NewRecordEvent): void };
  readonly deadLetters: {
    /** Add a failed record, or count another attempt of one already there. */
    add(letter: NewDeadLetter): void;
    /** Remove a record's letter (it has since been delivered). */
    resolve(pipeline: string, erpKey: string): void;
  };
  readonly history: {
    mark(resource: string, shopId: ShopId, identity: string, state: HistoryState, entry: Readonly<Record<string, unknown>>, runId?: number): void;
    forget(resource: string, shopId: ShopId, identity: string): void;
  };
  readonly cursors: { set(pipeline: string, name: string, cursor: CursorWrite): void };
  readonly runs: { saveCounts(id: number, counts: Readonly<RunCounts>): void };
  /** The stock figures a settled record sent, in the same commit as its hash: a lost write would leave a figure that hides the next one. */
  readonly stockSent: {
    put(row: StockSent): void;
    /** Before a figure leaves: until its answer is settled, what the shop holds is unknown, and nothing may be dropped as unchanged against it. */
    forget(pipeline: string, recordKey: string, field: string): void;
  };
  /** A followed record's row (issue 44), in the same commit as its seen hash: upsert by (pipeline, key), every column replaced. */
  readonly followed: FollowWriter;
  /** A field conflict (issue 46): upsert by (pipeline, ERP key, field), every column replaced. */
  readonly conflicts: { put(conflict: FieldConflict): void };
  /** The value a guard field was accepted with, in the commit of the record's hash (issue 46); `erp` the ERP's value it stands for when another (absent: the same). */
  readonly sentValues: { put(pipeline: string, recordKey: string, field: string, value: unknown, erp?: { readonly value: unknown }): void };
}

/** Cursors per pipeline and lane. */
export interface CursorStore {
  get(pipeline: string, name?: string): Promise<StoredCursor | undefined>;
  list(pipeline?: string): Promise<StoredCursor[]>;
  /** Save a lane's cursor on its own (inside a settling transaction use `write`). */
  set(pipeline: string, name: string, cursor: CursorWrite): Promise<void>;
  delete(pipeline: string, name?: string): Promise<void>;
}

/** ERP key ↔ shop id per resource, in the store's shop. */
export interface ReferenceStore {
  get(resource: string, erpKey: string): Promise<Reference | undefined>;
  /** Shop ids of many ERP keys in one query; keys without a reference are absent. */
  getMany(resource: string, erpKeys: readonly string[]): Promise<Map<string, ShopId>>;
  /** The ERP keys a shop id is known by (normally one). */
  byShopId(resource: string, shopId: ShopId): Promise<Reference[]>;
  /** The numbers stored with these references (issue 46); keys without a reference or a number are absent. */
  numbers(resource: string, erpKeys: readonly string[]): Promise<Map<string, string>>;
  /** The references whose record had this number when last written (issue 46): normally none or one. */
  byNumber(resource: string, number: string): Promise<Reference[]>;
  /** References of a resource in ERP key order. */
  list(resource: string, options?: { limit?: number; offset?: number }): Promise<Reference[]>;
  count(resource: string): Promise<number>;
}

/** Hash of the last payload the shop accepted, per pipeline and record. */
export interface SentHashStore {
  get(pipeline: string, resource: string, erpKey: string): Promise<string | undefined>;
  getMany(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, string>>;
  /** The payload hashes of these records with the source hashes stored beside them (one query per chunk). */
  getManyWithSource(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, SentHash>>;
  /** Forget every hash of a pipeline (`--full` resend). */
  clear(pipeline: string): Promise<void>;
}

/** A record's last accepted payload hash, and the source hash it was mapped from when the mapping was pure. */
export interface SentHash {
  readonly hash: string;
  readonly source?: string;
  /** The change time (epoch ms, from the cursor) of the newest source version delivered; absent when none was recorded. */
  readonly changedAt?: number;
}

/** Creates about to be sent, in the store's shop. */
export interface IntentStore {
  get(resource: string, erpKey: string): Promise<Intent | undefined>;
  /** Which of these ERP keys have an open intent. */
  getMany(resource: string, erpKeys: readonly string[]): Promise<Set<string>>;
  /** Open intents of a pipeline. */
  list(pipeline: string): Promise<Intent[]>;
}

/** Pulls: the hash of what was last delivered to the ERP. */
export interface SeenStore {
  get(pipeline: string, key: string): Promise<string | undefined>;
  getMany(pipeline: string, keys: readonly string[]): Promise<Map<string, string>>;
  clear(pipeline: string): Promise<void>;
}

/** Run bookkeeping. */
export interface RunStore {
  /**
   * Record a started run in the store's shop; returns its id. `owner` (`runOwner`) is what its
   * `finish` must name. Stamped by the state's clock where it has one (PostgreSQL), so replicas
   * whose clocks differ write comparable times.
   */
  start(run: { pipeline: string; mode: RunMode; lane: string; range?: Readonly<Record<string, unknown>>; owner?: string }): Promise<number>;
  saveCounts(id: number, counts: Readonly<RunCounts>): Promise<void>;
  /**
   * A run's final write. It applies only while the run is still `running` and still `owner`'s
   * (undefined matches a run started without one); otherwise the run was taken over (marked
   * `crashed` by the process that took its lane) and nothing is written: `finished` is false.
   * `finished_at` never precedes `started_at`.
   */
  finish(id: number, status: Exclude<RunStatus, 'running'>, counts: Readonly<RunCounts>, error?: Readonly<Record<string, unknown>>, owner?: string): Promise<RunFinish>;
  get(id: number): Promise<RunRecord | undefined>;
  /** Mark runs of a lane still `running` as crashed (call once the lane's lock is ours); `by` (`runOwner`) becomes their owner. */
  markCrashed(lane: string, by?: string): Promise<number>;
  list(filter?: RunFilter): Promise<RunRecord[]>;
  /** The latest run of each pipeline. */
  latestByPipeline(): Promise<RunRecord[]>;
  /** Store a run's change-latency histogram (JSON, replacing the one before; see src/pipeline/latency.ts). */
  saveLatency(id: number, latency: unknown): Promise<void>;
  /** The change-latency histograms of runs started at or after `since` (Unix ms), every shop's. */
  latencySince(since: number): Promise<RunLatencyRow[]>;
}

/** What a run's final write did: written, or refused because the run is no longer the caller's. */
export type RunFinish =
  | { readonly finished: true }
  | {
      readonly finished: false;
      /** The run's status now (`crashed` after a takeover); undefined when the row is gone (retention, a restore). */
      readonly status: RunStatus | undefined;
      /** Who owns it now: the taker's token (`runOwner`), null when unknown. */
      readonly owner: string | null;
    };

/** A run's stored change-latency histogram (JSON text). */
export interface RunLatencyRow {
  readonly runId: number;
  readonly pipeline: string;
  readonly shop: string;
  readonly latencyJson: string;
}

/** Per-record events. */
export interface EventStore {
  get(id: number): Promise<RecordEvent | undefined>;
  list(filter?: EventFilter): Promise<RecordEvent[]>;
  /** A record's history across runs, newest first. */
  history(resource: string, by: { erpKey: string } | { shopId: string | number }, limit?: number): Promise<RecordEvent[]>;
  countsPerMinute(options: { since: string | number | Date; until?: string | number | Date; pipeline?: string; shop?: string }): Promise<MinuteCount[]>;
}

/** Dead letters: one per pipeline and ERP key. */
export interface DeadLetterStore {
  get(id: number): Promise<DeadLetter | undefined>;
  getByKey(pipeline: string, erpKey: string): Promise<DeadLetter | undefined>;
  /** The letters of these records, by ERP key (one query per few hundred keys). */
  getManyByKey(pipeline: string, erpKeys: readonly string[]): Promise<Map<string, DeadLetter>>;
  list(filter?: DeadLetterFilter): Promise<DeadLetter[]>;
  count(pipeline: string): Promise<number>;
  /** Remove a letter by id; true when it existed. */
  delete(id: number): Promise<boolean>;
  /** Drop letters of a pipeline (these ids, or all of them) in one transaction; returns how many went. */
  drop(pipeline: string, ids?: readonly number[]): Promise<number>;
}

/** Append-only entry bookkeeping, in the store's shop. */
export interface HistoryStore {
  get(resource: string, shopId: ShopId, identity: string): Promise<HistoryEntry | undefined>;
  getMany(resource: string, shopId: ShopId, identities: readonly string[]): Promise<Map<string, HistoryEntry>>;
  pending(resource: string): Promise<HistoryEntry[]>;
}

/** Lane locks; a lock of a process that died is released (SQLite: pid check; PostgreSQL: session advisory lock). */
export interface LockStore {
  get(name: string): Promise<LockInfo | undefined>;
  list(): Promise<LockInfo[]>;
  /** Take a lane's lock or reject with `LOCK_HELD` naming the holder. */
  acquire(name: string, options?: AcquireOptions): Promise<LockHandle>;
}

/** A daemon replica on a shared state, as its heartbeat row says. */
export interface ReplicaInfo {
  readonly id: string;
  /** What logs, metrics (`replica` label) and `status` call it (`SHOPSYNC_REPLICA`, else host:pid). */
  readonly name: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: string;
  readonly heartbeatAt: string;
  /** Milliseconds since its last beat, by the state's own clock (PostgreSQL: the server's). */
  readonly heartbeatAgeMs: number;
  /** Its job-engine worker ids (what `forceUnlockWorkers` needs once it is dead). */
  readonly workerIds: readonly string[];
}

/** A replica's own row, as it beats. */
export interface ReplicaBeat {
  readonly id: string;
  readonly name: string;
  readonly host: string;
  readonly pid: number;
  /** Epoch ms. */
  readonly startedAt: number;
  readonly workerIds: readonly string[];
}

/**
 * Replica heartbeats: the daemons sharing a PostgreSQL state beat here so a dead one is noticed
 * and its jobs freed. A SQLite state is single-process and never fills it.
 */
export interface ReplicaStore {
  /** Insert or refresh a replica's row: heartbeat now, its current worker ids. */
  beat(replica: ReplicaBeat): Promise<void>;
  /** Every replica with a row, oldest first. */
  list(): Promise<ReplicaInfo[]>;
  /** Remove a replica's row (only if silent for longer than `silentForMs`, when given); true when it went. */
  remove(id: string, options?: { silentForMs?: number }): Promise<boolean>;
}

/** A shop's run of failed runs and its pause (docs/operations.md, "A shop failing for days"). */
export interface ShopStreak {
  readonly shop: string;
  /** Runs of the shop's pipelines that failed in a row for a reason of the shop's; 0 after a run that worked. */
  readonly failures: number;
  /** When the first of them finished, epoch ms. */
  readonly failingSince: number | null;
  readonly lastError: string | null;
  /** When the shop was paused (its scheduled runs are skipped), epoch ms; null while not paused. */
  readonly pausedAt: number | null;
  readonly pausedReason: string | null;
}

/** Failure streaks and pauses of the shops, shared by every process on the state. */
export interface ShopStreakStore {
  /** Count a failed run of the shop; returns the streak after it. */
  failed(shop: string, at: number, error: string): Promise<ShopStreak>;
  /** A run of the shop worked: the streak ends and a pause is lifted; returns whether it had been paused. */
  worked(shop: string): Promise<{ wasPaused: boolean }>;
  get(shop: string): Promise<ShopStreak | undefined>;
  /** Every shop with a streak or a pause. */
  list(): Promise<ShopStreak[]>;
  /** Pause the shop unless it is; true when this call paused it. */
  pause(shop: string, at: number, reason: string): Promise<boolean>;
  /** Lift a pause and start counting again; true when the shop was paused. */
  resume(shop: string): Promise<boolean>;
}

/** `shopsync state restore` put this state in place from a backup (docs/operations.md, "The state goes back in time"). */
export interface RestoreMark {
  /** When the restore happened, epoch ms. */
  readonly restoredAt: number;
  /** The backup file it came from. */
  readonly file: string;
  /** When the backup file was last written (its modification time), epoch ms. */
  readonly backupWrittenAt?: number;
  /** The newest run the backup knows (ISO), so the message can say how far back the state went. */
  readonly newestRunAt?: string;
}

/** The user's say-so for one pipeline: deliveries of an earlier state may be overwritten. */
export interface RewindAcceptance {
  /** When it was given, epoch ms. */
  readonly acceptedAt: number;
  /** The restore it accepts (`RestoreMark.restoredAt`), when the state had one. */
  readonly restoredAt?: number;
  /**
   * Rows the sink holds that this state never delivered are updated, not refused, until a run of
   * the pipeline has read everything since its cursor (then the state knows them all again).
   */
  readonly open: boolean;
}

/**
 * What tells a state that went back in time (a restore, a deleted state) from one that is current,
 * and the user's say-so to go on. Pull pipelines read it before they deliver.
 */
export interface RewindStore {
  /** The restore this state came from, if `shopsync state restore` put it in place. */
  restored(): Promise<RestoreMark | undefined>;
  markRestored(mark: RestoreMark): Promise<void>;
  acceptance(pipeline: string): Promise<RewindAcceptance | undefined>;
  /** Accept the current restore (if any) and earlier deliveries the sink holds, for one pipeline. */
  accept(pipeline: string, at: number): Promise<RewindAcceptance>;
  /** A run read everything since its cursor: the state knows its deliveries again (the keys in flight are cleared); the restore stays accepted. */
  caughtUp(pipeline: string): Promise<void>;
  /** Keys the pipeline sent to its sink since it last caught up (committed by the sink or not). */
  inFlight(pipeline: string): Promise<ReadonlySet<string>>;
  /** Record every key sent since the last catch-up, before the sink writes the next batch. */
  setInFlight(pipeline: string, keys: readonly string[]): Promise<void>;
}

/** An incident message some replica must (re)send: what `takeOverdue` hands over. */
export interface IncidentMessage {
  readonly id: string;
  readonly state: 'open' | 'resolved';
  /** When the incident opened, epoch ms. */
  readonly since: number;
  /** The message as stored (JSON, without `since`). */
  readonly message: string;
}

/**
 * Alert incidents of the deployment. Every change is one atomic statement that says whether this
 * caller made it, so among replicas on one state exactly one sends each message; a message stays
 * claimed under a lease until `sent`, and is handed to another replica if its sender died.
 */
export interface IncidentStore {
  /** Open an incident unless it is open already, holding `members` (pipelines folded into a shop-level incident); true when this call opened it (the caller sends `message`). */
  open(id: string, since: number, message: string, claim: string, leaseMs: number, members?: readonly string[]): Promise<boolean>;
  /** Record a pipeline as held by an open incident (once); true when the incident is open (the pipeline is held), false when it is not (nothing changed). */
  join(id: string, member: string): Promise<boolean>;
  /** The pipelines an incident holds, in the order they joined ([] when none or no such incident). */
  members(id: string): Promise<string[]>;
  /** Resolve an open incident; its opening time when this call resolved it (the caller sends `message`), else undefined. */
  resolve(id: string, message: string, claim: string, leaseMs: number): Promise<number | undefined>;
  /** The claimed message went out (or was given up): forget it; a resolved incident's row goes. No-op once someone else changed the incident. */
  sent(id: string, claim: string): Promise<void>;
  /** Claim the messages whose sender's lease ran out (it died while sending). */
  takeOverdue(claim: string, leaseMs: number): Promise<IncidentMessage[]>;
  /** Ids of the open incidents. */
  listOpen(): Promise<string[]>;
  /** Count one message against the deployment's hourly budget; false when `maxPerHour` were sent in the last hour. */
  takeSendSlot(maxPerHour: number): Promise<boolean>;
}

/** Pruning and space. */
export interface RetentionStore {
  /** The oldest event kept, when there is any. */
  historySince(): Promise<string | undefined>;
  /** Bytes the state takes on disk. */
  sizeBytes(): Promise<number>;
  prune(policy: RetentionPolicy, options?: { dryRun?: boolean; now?: number }): Promise<PruneReport>;
}

/** Row counts per table (state copy, `--dry-run`). */
export type TableCounts = Readonly<Record<StateTable, number>>;

/** The tables a state copy moves. */
// state_marks moves too: a restore nobody accepted yet must still hold the pulls back after the move.
// The reservation ledger and the stock sent move too: without them the new state would raise stock the shop sold (issue 43).
// Followed records move too: without them the ERP would hear an order's changes again from seq 1, or never (issue 44).
// Sent values and conflicts move too: without them every guard field would look edited in the shop, and open conflicts would vanish (issue 46).
export const STATE_TABLES = ['cursors', 'refs', 'sent_hashes', 'intents', 'seen', 'runs', 'events', 'dead_letters', 'history_entries', 'state_marks', 'reservations', 'reservation_cursors', 'reservation_deliveries', 'reservation_releases', 'stock_sent', 'followed', 'sent_values', 'field_conflicts'] as const;
export type StateTable = (typeof STATE_TABLES)[number];

/** Raw rows of one table, in the neutral form both backends read and write (epoch ms, JSON as text). */
export type StateRow = Record<string, string | number | null>;

/** Moving whole tables between backends (`shopsync state copy`). */
export interface StateDump {
  counts(): Promise<TableCounts>;
  /** Rows of a table in primary-key order, in pages. */
  rows(table: StateTable, pageSize?: number): AsyncIterable<StateRow[]>;
  /** Insert rows as they are (ids kept); the target must be empty. */
  insert(table: StateTable, rows: readonly StateRow[]): Promise<void>;
  /** After inserting rows with their ids: move id sequences past them. */
  finishCopy(): Promise<void>;
  /** Empty every table a copy writes, ids starting over (`state copy --force`); locks stay. */
  clear(): Promise<void>;
}

/** The state store of one deployment, scoped to one shop. */
export interface StateStore {
  readonly backend: 'sqlite' | 'postgres';
  /** File path, `:memory:`, or the PostgreSQL URL without its password, and the schema. */
  readonly location: string;
  /** The shop this view writes and reads references for. */
  readonly shop: string;
  /** The same store scoped to another shop (same connection). */
  forShop(shop: string): StateStore;
  readonly cursors: CursorStore;
  readonly refs: ReferenceStore;
  readonly hashes: SentHashStore;
  readonly intents: IntentStore;
  readonly seen: SeenStore;
  readonly runs: RunStore;
  readonly events: EventStore;
  readonly deadLetters: DeadLetterStore;
  readonly history: HistoryStore;
  readonly locks: LockStore;
  readonly replicas: ReplicaStore;
  /** Alert incidents, shared by every replica and every shop's view. */
  readonly incidents: IncidentStore;
  /** Failure streaks and pauses of the shops (not scoped to `shop`). */
  readonly streaks: ShopStreakStore;
  /** Shop order lines the ERP has not booked yet (issue 43; methods take the shop). */
  readonly reservations: ReservationStore;
  /** The last stock figure sent per pipeline, record and stock field (issue 43). */
  readonly stockSent: StockSentStore;
  /** Records a pull with `follow:` keeps reading until they are done (issue 44; `ofShop` takes the shop). */
  readonly followed: FollowStore;
  /** Guard fields the shop's people changed, open until a person decides (issue 46; not scoped to `shop`). */
  readonly conflicts: ConflictStore;
  /** The last value the shop accepted per guard field and record (issue 46). */
  readonly sentValues: SentValueStore;
  /** Restore marks and the user's say-so after a state went back in time (not scoped to `shop`). */
  readonly rewinds: RewindStore;
  readonly retention: RetentionStore;
  readonly dump: StateDump;
  /** Record writes with `fn` and commit them in one transaction. */
  write(fn: (tx: StateWriter) => void): Promise<void>;
  /** Write a consistent copy of the state to `file` (SQLite only; PostgreSQL: use pg_dump). */
  backup(file: string): Promise<void>;
  /** Schema version of the open state. */
  schemaVersion(): Promise<number>;
  /**
   * Prove the state takes writes now (what /readyz asks): rejects with STATE_DISK_FULL or
   * STATE_READ_ONLY (src/state/faults.ts) when a write would fail, naming why; writes no data.
   */
  probeWrite(): Promise<void>;
  /** Close the connection (idempotent; views from `forShop` share it). */
  close(): Promise<void>;
}
