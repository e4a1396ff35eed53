/**
 * Following records after their creation (issue 44: orders after checkout). An orders pull sees
 * only new orders; a pipeline with `follow:` keeps reading the orders it delivered until each
 * reaches a final status or an age limit, and delivers every change once, with what changed.
 * These are the shapes every part (pull, pass, push guard, state, dashboard, sim) shares.
 */

/** What kind of change a followed record went through. */
export type FollowChangeKind =
  /** A new status (a status_history entry with another status than the one before). */
  | 'status'
  /** A new status that the pipeline's `follow.cancelled` names. */
  | 'cancelled'
  /** A new status that `follow.returned` names, or a new tracking entry flagged as a return (`is_retoure`). */
  | 'return'
  /** A new status_history entry without a status change (a comment). */
  | 'comment'
  /** A new tracking entry (not a return). */
  | 'tracking'
  /** A changed billing or delivery address block. */
  | 'address'
  /** Changed items. */
  | 'items';

/**
 * One change, as the mapping sees it in `_changes[]` of the record (flat, so a sink child table can
 * take it as it is). `seq` numbers the changes of one record from 1 and never changes: the ERP acts
 * on a change once by (record key, seq).
 */
export interface FollowChange {
  readonly seq: number;
  readonly kind: FollowChangeKind;
  /** ISO: when shopsync saw it. */
  readonly detected_at: string;
  /** The status after the change (status, cancelled, return by status, comment). */
  readonly status?: number;
  /** The status before it. */
  readonly previous_status?: number;
  /** The status_history entry's comment. */
  readonly comment?: string;
  /** The status_history entry's date as the shop wrote it. */
  readonly history_at?: string;
  /** Tracking entries: code and provider. */
  readonly tracking_code?: string;
  readonly service_provider?: string;
  /** address: which block changed (`billing`, `delivery`). */
  readonly field?: string;
}

/** What shopsync last delivered of a followed record, to tell a change from a re-read. */
export interface FollowSnapshot {
  readonly status?: number;
  /** Entries of the status log delivered. */
  readonly history: number;
  /** Tracking entries delivered, by key (`code`). */
  readonly tracking: readonly string[];
  /** Content hash per address block. */
  readonly addresses: Readonly<Record<string, string>>;
  /** Content hash of the items. */
  readonly items: string;
}

/** Why a record is no longer followed. */
export type FollowDoneReason = 'final' | 'age' | 'deleted';

/** One followed record of a pipeline, as the state holds it. */
export interface FollowedRecord {
  readonly pipeline: string;
  readonly shop: string;
  /** The record's key (orders_id as text). */
  readonly key: string;
  /** YYYY-MM-DD of its placement (the day filter's day). */
  readonly placedDay: string;
  /** Its status as last delivered. */
  readonly status?: number;
  /** Whether that status is one of `follow.cancelled` (the push guard's rule reads it). */
  readonly cancelled: boolean;
  readonly snapshot: FollowSnapshot;
  /** Every change delivered so far, oldest first (what `_changes` holds). */
  readonly changes: readonly FollowChange[];
  /** ISO: first delivered; last delivered with a change; no longer followed. */
  readonly firstAt: string;
  readonly changedAt?: string;
  readonly doneAt?: string;
  readonly doneReason?: FollowDoneReason;
}

/** Open followed records of one placement day, and how many the pipeline followed that day in all. */
export interface FollowDay {
  readonly day: string;
  readonly open: readonly string[];
  /** Records of the day the state holds (open and done): the cost of reading the day in pages. */
  readonly total: number;
}

/** What the dashboard and metrics show of a pipeline's follow. */
export interface FollowSummary {
  readonly open: number;
  readonly done: number;
  /** The open record placed first. */
  readonly oldest?: { readonly key: string; readonly placedDay: string };
  /** ISO: the last change delivered. */
  readonly lastChangeAt?: string;
}

/** Followed records in the state (both backends). */
export interface FollowStore {
  /** The rows of these keys of a pipeline. */
  get(pipeline: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>>;
  /** The newest row of each key in a shop, whichever pipeline follows it (the push guard). */
  ofShop(shop: string, keys: readonly string[]): Promise<Map<string, FollowedRecord>>;
  /** Open rows grouped by placement day, oldest day first; only days in [fromDay, toDay) when given. */
  openDays(pipeline: string, range?: { readonly fromDay?: string; readonly toDay?: string }): Promise<FollowDay[]>;
  /** No longer follow these keys (`at` ISO). */
  finish(pipeline: string, keys: readonly string[], reason: FollowDoneReason, at: string): Promise<void>;
  /** Open rows placed before `day` (YYYY-MM-DD) are done with reason `age`; answers their keys. */
  ageOut(pipeline: string, day: string, at: string): Promise<string[]>;
  summary(pipeline: string): Promise<FollowSummary>;
}

/** What the settle of a delivery writes, in the same commit as the record's hash. */
export interface FollowWriter {
  put(row: FollowedRecord): void;
}
