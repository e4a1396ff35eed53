/**
 * The request queue: p-queue limits concurrency and requests per interval; on top of it an
 * adaptive brake. After a 429 the queue pauses for Retry-After and the brake halves the rate
 * (spacing request starts further apart and lowering concurrency); every `intervalCap`
 * successes in a row it recovers one step, until the configured rate is reached again.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { ClientEvent } from './types.js';
import { sleep } from '../../util/time.js';
import { ShopApiError } from '../errors.js';

/** Largest slowdown factor after repeated 429s (rate = configured rate / factor). */
const MAX_SLOWDOWN = 16;

/** Options of the request queue. */
export interface RequestQueueOptions {
  readonly concurrency: number;
  readonly intervalCap: number;
  readonly intervalMs: number;
  readonly onEvent: (event: ClientEvent) => void;
}

/** A rate-limited queue of HTTP attempts that slows down after 429 and recovers step by step. */
export class RequestQueue {
  readonly #queue: PQueue;
  readonly #options: RequestQueueOptions;
  #slowdown = 1;
  #successes = 0;
  #nextStart = 0;
  #resumeAt = 0;
  #resumeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Aborted by close(): waiting attempts reject with CLIENT_CLOSED instead of hanging forever. */
  readonly #closing = new AbortController();

  constructor(options: RequestQueueOptions) {
    this.#options = options;
    // Every waiting attempt listens on the close signal; thousands may wait by design.
    setMaxListeners(0, this.#closing.signal);
    this.#queue = new PQueue({ concurrency: options.concurrency, intervalCap: options.intervalCap, interval: options.intervalMs, strict: true });
  }

  /** Current slowdown factor (1 = configured rate). */
  get slowdown(): number {
    return this.#slowdown;
  }

  /** Run one attempt through the queue. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#closed) throw closedError();
    const stop = signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
    const result = this.#queue.add(
      async () => {
        await this.#brake(stop);
        return task();
      },
      { signal: stop },
    );
    this.#emitDepth();
    try {
      return (await result) as T;
    } finally {
      this.#emitDepth();
    }
  }

  /** The shop answered 429: pause everything for `retryAfterMs` and halve the rate. */
  throttle(retryAfterMs: number): void {
    this.#successes = 0;
    this.#slowdown = Math.min(MAX_SLOWDOWN, this.#slowdown * 2);
    this.#queue.concurrency = Math.max(1, Math.floor(this.#options.concurrency / this.#slowdown));
    const until = Date.now() + retryAfterMs;
    if (retryAfterMs > 0 && until > this.#resumeAt) {
      this.#resumeAt = until;
      this.#queue.pause();
      clearTimeout(this.#resumeTimer);
      this.#resumeTimer = setTimeout(() => {
        if (!this.#closed) this.#queue.start();
      }, retryAfterMs);
      this.#resumeTimer.unref?.();
    }
  }

  /** A request succeeded: after `intervalCap` successes in a row, recover one step of rate. */
  succeeded(): void {
    if (this.#slowdown === 1) return;
    this.#successes += 1;
    if (this.#successes < this.#options.intervalCap) return;
    this.#successes = 0;
    this.#slowdown = Math.max(1, this.#slowdown / 2);
    this.#queue.concurrency = Math.max(1, Math.floor(this.#options.concurrency / this.#slowdown));
  }

  /** Waiting and running attempts. */
  depth(): { readonly size: number; readonly pending: number } {
    return { size: this.#queue.size, pending: this.#queue.pending };
  }

  /** Reject waiting attempts with CLIENT_CLOSED and stop; running ones finish. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#resumeTimer);
    this.#closing.abort(closedError());
    this.#queue.clear();
    this.#queue.start();
    await this.#queue.onIdle();
  }

  /** While slowed down, space request starts `slowdown × intervalMs / intervalCap` apart. */
  async #brake(signal?: AbortSignal): Promise<void> {
    if (this.#slowdown === 1) return;
    const gap = (this.#slowdown * this.#options.intervalMs) / this.#options.intervalCap;
    const now = Date.now();
    const start = Math.max(now, this.#nextStart);
    this.#nextStart = start + gap;
    if (start > now) await sleep(start - now, signal);
  }

  #emitDepth(): void {
    if (this.#closed) return;
    this.#options.onEvent({ type: 'queue', size: this.#queue.size, pending: this.#queue.pending });
  }
}

function closedError(): ShopApiError {
  return new ShopApiError('CLIENT_CLOSED', 'The shop client is closed; create a new one');
}
