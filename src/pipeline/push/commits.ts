/**
 * Group commit of a push's settlements. A batch's answer used to be committed on its own before
 * the next batch could leave: one transaction per batch, on the path of every send, and on SQLite
 * each commit writes every page the batch dirtied in six tables again. Settlements now wait here
 * and land together, in one transaction, when enough of them are waiting, when the oldest has
 * waited long enough, or when nothing is in flight (the engine commits before it waits for
 * nothing). Until their commit nothing of them is assumed: the cursor, moved in that commit, stays
 * before them, their keys stay claimed (a later version of a key waits for the commit), and a
 * crash meanwhile leaves what a crash during a request leaves (intents for creates the shop would
 * not recognise, hashes not yet stored: the records are read and sent again).
 */
import type { Settlement } from './work.js';

/** Settlements waiting for their commit are committed once this many wait (a crash re-sends at most these). */
export const GROUP_COMMIT_RECORDS = 1000;
/** …or once the oldest has waited this long (a slow shop still commits several times a second). */
export const GROUP_COMMIT_MS = 250;

/** Settlements waiting for their commit, with what runs once they are committed. */
export class PendingSettlements {
  private settlements: Settlement[] = [];
  private after: (() => void)[] = [];
  private since = 0;

  /** How many settlements wait. */
  get size(): number {
    return this.settlements.length;
  }

  /** Queue settlements; `after` runs once they are committed (never when the commit fails). */
  add(settlements: readonly Settlement[], after?: () => void): void {
    // Monotonic: a stepped wall clock must neither hold a commit back nor force one.
    if (this.settlements.length === 0) this.since = performance.now();
    for (const s of settlements) this.settlements.push(s);
    if (after) this.after.push(after);
  }

  /** Whether the waiting settlements should be committed now. */
  get due(): boolean {
    return this.settlements.length >= GROUP_COMMIT_RECORDS || (this.settlements.length > 0 && performance.now() - this.since >= GROUP_COMMIT_MS);
  }

  /** Take everything waiting (the queue is empty afterwards). */
  take(): { settlements: Settlement[]; after: (() => void)[] } {
    const taken = { settlements: this.settlements, after: this.after };
    this.settlements = [];
    this.after = [];
    return taken;
  }
}
