/**
 * The low-water mark: records are read in cursor order but settle out of order across batches in
 * flight. The cursor may only move to the last position below which *everything* is settled, so a
 * crash never skips a record that was still in flight.
 */
import type { CursorPosition } from '../erp/types.js';

interface Slot {
  readonly seq: number;
  readonly position: CursorPosition;
  settled: boolean;
}

/** Tracks read positions in order and yields the highest fully settled one. */
export class LowWaterMark {
  private readonly slots: Slot[] = [];
  private head = 0;
  private readonly bySeq = new Map<number, Slot>();
  private nextSeq = 0;
  private mark: CursorPosition | undefined;

  /**
   * `cap` bounds every position handed out: the source's watermark (sourceWatermark.ts) keeps the
   * cursor before a transaction still open in the ERP, whatever was read after it. A cap that
   * answers undefined holds the cursor where nothing is stored yet (nothing is written).
   */
  constructor(
    initial?: CursorPosition,
    private readonly cap?: (p: CursorPosition) => CursorPosition | undefined,
  ) {
    this.mark = initial;
  }

  private capped(p: CursorPosition | undefined): CursorPosition | undefined {
    return p && this.cap ? this.cap(p) : p;
  }

  /** Register a record as read (in source order); returns its sequence number. */
  track(position: CursorPosition): number {
    const slot: Slot = { seq: this.nextSeq++, position, settled: false };
    this.slots.push(slot);
    this.bySeq.set(slot.seq, slot);
    return slot.seq;
  }

  /** Mark a record settled; returns true when the low-water mark moved. */
  settle(seq: number): boolean {
    const slot = this.bySeq.get(seq);
    if (!slot || slot.settled) return false;
    slot.settled = true;
    this.bySeq.delete(seq);
    let moved = false;
    while (this.head < this.slots.length && this.slots[this.head]!.settled) {
      this.mark = this.slots[this.head]!.position;
      this.head++;
      moved = true;
    }
    // Drop the consumed prefix now and then so memory stays bounded on long runs.
    if (this.head > 4096 && this.head * 2 > this.slots.length) {
      this.slots.splice(0, this.head);
      this.head = 0;
    }
    return moved;
  }

  /**
   * Where the mark would stand once these records are settled too, without settling them: a write
   * records this checkpoint, and the records count as settled only after that write committed. A
   * write that fails then never lets a later one move the cursor past its records.
   */
  peek(seqs: Iterable<number>): CursorPosition | undefined {
    const also = new Set(seqs);
    let mark = this.mark;
    for (let i = this.head; i < this.slots.length; i++) {
      const slot = this.slots[i]!;
      if (!slot.settled && !also.has(slot.seq)) break;
      mark = slot.position;
    }
    return this.capped(mark);
  }

  /** The position the cursor may be saved at (undefined: nothing settled yet and no initial cursor). */
  get position(): CursorPosition | undefined {
    return this.capped(this.mark);
  }

  /** Records read but not yet settled. */
  get inFlight(): number {
    return this.bySeq.size;
  }
}
