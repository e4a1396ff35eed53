/**
 * Requests a shop client actually sent, counted in a ring of per-second buckets over the last
 * minute. The controller's figure is what the client allows (the hard cap until the shop first
 * said 429), not traffic: an idle daemon showed "146.7/s shop requests" (issue 45). This is the
 * figure beside it.
 */
import { monotonicNow } from '../../util/time.js';

/** Seconds the actual rate is measured over. */
export const SENT_WINDOW_SECONDS = 60;

/** A count of request starts over the last minute, one bucket per second. */
export class SentRequests {
  readonly #counts = new Array<number>(SENT_WINDOW_SECONDS).fill(0);
  /** Which second (since the clock's epoch) each bucket holds; a bucket of an older second is stale. */
  readonly #seconds = new Array<number>(SENT_WINDOW_SECONDS).fill(-Infinity);
  readonly #clock: () => number;

  constructor(clock: () => number = monotonicNow) {
    this.#clock = clock;
  }

  /** One request left now. */
  record(): void {
    const second = Math.floor(this.#clock() / 1000);
    const i = slot(second);
    if (this.#seconds[i] !== second) {
      this.#seconds[i] = second;
      this.#counts[i] = 0;
    }
    this.#counts[i]! += 1;
  }

  /** Requests sent in the last SENT_WINDOW_SECONDS seconds (the current second included). */
  lastMinute(): number {
    const now = Math.floor(this.#clock() / 1000);
    let total = 0;
    for (let i = 0; i < SENT_WINDOW_SECONDS; i++) if (this.#seconds[i]! > now - SENT_WINDOW_SECONDS && this.#seconds[i]! <= now) total += this.#counts[i]!;
    return total;
  }

  /** Requests per second actually sent, averaged over the whole window (so an idle minute reads 0). */
  perSecond(): number {
    return this.lastMinute() / SENT_WINDOW_SECONDS;
  }
}

function slot(second: number): number {
  return ((second % SENT_WINDOW_SECONDS) + SENT_WINDOW_SECONDS) % SENT_WINDOW_SECONDS;
}
