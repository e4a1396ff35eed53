/**
 * Records waiting for a reference: a record whose mapping failed only because a lookup of a
 * shopsync reference missed (a sub-category before its parent, a product before its manufacturer)
 * waits until the batches it may depend on have settled, and is mapped again then. It stays in
 * flight meanwhile, so the cursor never passes it; one that still misses is dead-lettered.
 */
import type { CursorPosition, ErpRecord } from '../../erp/types.js';
import type { MissingReference } from './prepare.js';
import type { Settlement } from './work.js';

/** Records kept waiting at most per run; beyond that a miss is dead-lettered at once (bounded memory). */
export const MAX_WAITING = 10_000;

/** A record waiting for a reference. */
export interface Waiting {
  readonly input: { readonly seq?: number; readonly erpKey: string; readonly record: ErpRecord; readonly position?: CursorPosition };
  /** The dead letter it gets if the reference is still unknown at the end of the run. */
  readonly settlement: Settlement;
  readonly missing: readonly MissingReference[];
}

/** The records of one run that wait for a reference, by ERP key, in source order. */
export class WaitingRoom {
  private readonly byKey = new Map<string, Waiting>();
  /** Records that waited and were then mapped (for the run log). */
  resolved = 0;

  /** Keep a record waiting under its identity (the ERP key, or the mapping's record key); false when the room is full (the caller dead-letters it at once). */
  add(w: Waiting, key: string = w.input.erpKey): boolean {
    if (this.byKey.size >= MAX_WAITING && !this.byKey.has(key)) return false;
    this.byKey.set(key, w);
    return true;
  }

  /** Remove the waiting version of a record read again (a newer version supersedes it); returns it. */
  remove(key: string): Waiting | undefined {
    const w = this.byKey.get(key);
    this.byKey.delete(key);
    return w;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Take every waiting record (in source order) for another mapping pass. */
  takeAll(): Waiting[] {
    const all = [...this.byKey.values()];
    this.byKey.clear();
    return all;
  }

  /** The references still missing, for the log (at most `limit`). */
  missingSample(limit = 5): string[] {
    return [...new Set([...this.byKey.values()].flatMap((w) => w.missing.map((m) => `${m.resource}:${m.erpKey}`)))].slice(0, limit);
  }
}
