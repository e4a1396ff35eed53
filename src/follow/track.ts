/**
 * The follow side of a pull's delivery (DESIGN-44 points 1, 2, 5): per page, the followed rows of
 * the records read; per record, what changed since its row's snapshot (the mapping input gets every
 * change so far under `_changes`) and the row to store once the sink committed the record. The
 * PullDelivery writes that row in the same state transaction as the record's seen hash, so a change
 * is stored exactly when it reached the ERP.
 */
import type { FollowDef } from '../shop/registry/types.js';
import type { StateStore } from '../state/index.js';
import { changesSince, placedDayOf, snapshotOf, withChanges } from './changes.js';
import type { FollowConfig } from './schema.js';
import type { FollowedRecord } from './types.js';

/** A record prepared for the mapping: its input and the followed row it leaves once delivered. */
export interface FollowPrepared {
  readonly input: Record<string, unknown>;
  readonly row: FollowedRecord;
  /** The row as stored before (absent: never followed). */
  readonly before?: FollowedRecord;
  /** Changes found on this read. */
  readonly fresh: number;
}

/** What the follow of a delivery did (the run's `followed` log line). */
export interface FollowTally {
  /** Records delivered with a change. */
  changed: number;
  /** Rows that stopped being followed (a final status). */
  done: number;
  /** Records delivered before the follow was on, now followed. */
  adopted: number;
}

/** A row stored, and the one it replaced. */
type Stored = Pick<FollowPrepared, 'row' | 'before'>;

/** Follows the records one pipeline delivers. */
export class FollowTracker {
  /** Followed rows of the page being delivered (`prefetch`); a key mapped to undefined has none. */
  private readonly rows = new Map<string, FollowedRecord | undefined>();
  readonly tally: FollowTally = { changed: 0, done: 0, adopted: 0 };
  /** Followed rows of unchanged records, written together (a first pass adopts a whole age window). */
  private adoptions: FollowPrepared[] = [];

  constructor(
    private readonly def: FollowDef,
    private readonly config: FollowConfig,
    private readonly pipeline: string,
    private readonly state: StateStore,
    /** The records book stock: a cancelled one's reservation is released. */
    private readonly books: boolean,
    private readonly batchSize: number,
  ) {}

  /** Read the followed rows of a page's keys in one query. */
  async prefetch(keys: readonly string[]): Promise<void> {
    this.rows.clear();
    const found = await this.state.followed.get(this.pipeline, keys);
    for (const key of keys) this.rows.set(key, found.get(key));
  }

  /** The stored row of a key (the page's prefetch, else one query). */
  async rowOf(key: string): Promise<FollowedRecord | undefined> {
    if (this.rows.has(key)) return this.rows.get(key);
    return (await this.state.followed.get(this.pipeline, [key])).get(key);
  }

  /** The mapping input of `record` (its export views applied) and the row it leaves once delivered at `at`. */
  async prepare(key: string, record: Readonly<Record<string, unknown>>, input: Readonly<Record<string, unknown>>, at: string): Promise<FollowPrepared> {
    const before = await this.rowOf(key);
    const row = this.next(key, record, before, at);
    const fresh = row.changes.length - (before?.changes.length ?? 0);
    return { input: withChanges(input, row.changes), row, ...(before ? { before } : {}), fresh };
  }

  /**
   * An unchanged record whose followed row moved on (none yet: delivered before `follow:` was on;
   * or a change the mapping does not carry) gets its row without a delivery, a batch of them in one
   * state write (at the latest by `writeAdoptions` at the delivery's flush).
   */
  async adopt(prepared: FollowPrepared): Promise<void> {
    if (!rowMoved(prepared.before, prepared.row)) return;
    this.adoptions.push(prepared);
    if (this.adoptions.length >= this.batchSize) await this.writeAdoptions();
  }

  /** Write the adoptions queued. */
  async writeAdoptions(): Promise<void> {
    const rows = this.adoptions;
    this.adoptions = [];
    if (rows.length === 0) return;
    await this.state.write((tx) => {
      for (const r of rows) tx.followed.put(r.row);
    });
    this.tally.adopted += rows.filter((r) => !r.before).length;
    await this.settled(rows);
  }

  /** Rows just stored (settled with their delivery, or adopted): tallied, and a cancelled order's reservation released (idempotent). */
  async settled(rows: readonly Stored[]): Promise<void> {
    const cancelled: number[] = [];
    for (const { row, before } of rows) {
      if (row.changes.length > (before?.changes.length ?? 0)) this.tally.changed++;
      if (row.doneAt !== undefined && before?.doneAt === undefined) this.tally.done++;
      if (row.cancelled && Number.isFinite(Number(row.key))) cancelled.push(Number(row.key));
      // Later reads of this page compare against it.
      if (this.rows.has(row.key)) this.rows.set(row.key, row);
    }
    if (cancelled.length > 0 && this.books) await this.state.reservations.release(this.state.shop, cancelled, new Date().toISOString());
  }

  /** Whether a status means cancelled (reservations are released, the push guard holds the order). */
  isCancelled(status: number | undefined): boolean {
    return status !== undefined && this.config.cancelled.includes(status);
  }

  /** The row after this read: snapshot, changes so far, and whether it is still followed. */
  private next(key: string, record: Readonly<Record<string, unknown>>, before: FollowedRecord | undefined, at: string): FollowedRecord {
    const snapshot = snapshotOf(this.def, record);
    const lastSeq = before?.changes.at(-1)?.seq ?? 0;
    // The first delivery has no changes: what the order is now arrives as the order itself.
    const fresh = before ? changesSince(this.def, this.config, record, before.snapshot, lastSeq, at) : [];
    const status = snapshot.status;
    const final = status !== undefined && this.config.until.includes(status);
    // Final: done (since the first time it was seen final). An aged-out order stays done; any other
    // done order that moved on (re-seen after `deleted`, a status out of a final one) is followed again.
    const done = final
      ? { doneAt: before?.doneReason === 'final' && before.doneAt ? before.doneAt : at, doneReason: 'final' as const }
      : before?.doneReason === 'age' && before.doneAt
        ? { doneAt: before.doneAt, doneReason: 'age' as const }
        : {};
    const changedAt = fresh.length > 0 ? at : before?.changedAt;
    return {
      pipeline: this.pipeline,
      shop: this.state.shop,
      key,
      placedDay: placedDayOf(this.def, record) ?? before?.placedDay ?? at.slice(0, 10),
      ...(status !== undefined ? { status } : {}),
      cancelled: this.isCancelled(status),
      snapshot,
      changes: [...(before?.changes ?? []), ...fresh],
      firstAt: before?.firstAt ?? at,
      ...(changedAt !== undefined ? { changedAt } : {}),
      ...done,
    };
  }
}

/** Whether a row differs from the one stored in what the follow reads (a re-read that needs no write otherwise). */
export function rowMoved(before: FollowedRecord | undefined, row: FollowedRecord): boolean {
  if (!before) return true;
  return row.changes.length !== before.changes.length || row.doneReason !== before.doneReason || row.status !== before.status || row.placedDay !== before.placedDay;
}
