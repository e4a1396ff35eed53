/**
 * One version of an ERP key at a time: a record whose key already has a version on its way to
 * the shop (queued, in flight, retried) is held until that version settled, and is prepared only
 * then. Otherwise two versions race — a retried older stock figure lands after the newer one, or a
 * newer version compares its hash against the state before the older one wrote it — and a key read
 * twice before its first create settled is created twice.
 */
import type { CursorPosition, ErpRecord, RecordOrigin, RefusedRecord } from '../../erp/types.js';

/** A source record as the engine accepts it. */
export interface PushInput {
  readonly seq?: number;
  readonly erpKey: string;
  readonly record: ErpRecord;
  readonly position?: CursorPosition;
  /** The source could not use this record: it is dead-lettered as it is, never mapped or sent. */
  readonly refused?: RefusedRecord;
  readonly origin?: RecordOrigin;
  /** A retried letter of a refused record: the key its letter is stored under, kept as it is (the record has no key to derive it from). */
  readonly letterKey?: string;
  /** Read again by the source's lookback (at or before the cursor an earlier run stored): settled quietly when nothing changed. */
  readonly reread?: boolean;
  /** Mapped even when the source is as last accepted: what goes out depends on more than the source now (the shop's new orders, src/reservations/correct.ts). */
  readonly remap?: boolean;
  /** Sent even when equal to what was last sent: the shop's figure moved without us (an order it booked since was cancelled, src/reservations/correct.ts). */
  readonly resend?: boolean;
}

/** The keys of a run that have a version in progress, each with the later versions held behind it. */
export class KeyLanes {
  private readonly held = new Map<string, PushInput[]>();
  private readonly ready: PushInput[] = [];

  /** Claim the key for this record; false when another version holds it (the record is then held). */
  claim(input: PushInput): boolean {
    const q = this.held.get(input.erpKey);
    if (q) {
      q.push(input);
      return false;
    }
    this.held.set(input.erpKey, []);
    return true;
  }

  /** Claim a key for a record that is not new to the engine (a waiting record mapped again). */
  reclaim(erpKey: string): void {
    if (!this.held.has(erpKey)) this.held.set(erpKey, []);
  }

  /** The version of this key settled (or left the engine): the next held version becomes ready, keeping the key. */
  release(erpKey: string): void {
    const q = this.held.get(erpKey);
    if (!q) return;
    const next = q.shift();
    if (next) this.ready.push(next);
    else this.held.delete(erpKey);
  }

  /** Held versions whose predecessor settled, in the order they were read; each still owns its key. */
  takeReady(): PushInput[] {
    return this.ready.splice(0);
  }

  /** Whether released versions wait to be prepared. */
  get pending(): boolean {
    return this.ready.length > 0;
  }
}
