/**
 * The request queue: p-queue holds requests in flight and per interval under the hard caps; on
 * top of it a brake that spaces request starts. After a 429 the queue pauses for Retry-After.
 * - adaptive (default): the AIMD controller of ../rate sets concurrency and, once the shop said
 *   429, the rate and a window (at most N starts in any second and a margin); every answer is fed
 *   to it. A 429 with Retry-After of a second or less ("this second is full", the least a header
 *   in seconds can say) does not pause the queue once the window is known: the window already
 *   holds starts back until the shop's second is over (at first contact the queue waits until the
 *   controller says it is over at the latest), and a whole second's pause cost a tenth of a
 *   ten-second run. A longer Retry-After, or one shared with other replicas, pauses as before.
 * - fixed: the configured rate; after a 429 the brake halves it (spacing request starts further
 *   apart and lowering concurrency) and every `intervalCap` successes in a row it recovers one
 *   step, until the configured rate is reached again.
 * With a shared limiter (several replicas on one PostgreSQL state) every attempt also takes a
 * point of the shop's budget shared by all replicas right before it goes out; the 429 pause is
 * written there for everyone, and a pause another replica wrote slows this queue down as if it
 * had seen the 429 itself.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { ClientEvent } from './types.js';
import { monotonicNow, sleep } from '../../util/time.js';
import { ShopApiError } from '../errors.js';
import { AdaptiveRate, SentRequests, type RateSignal, type RateSnapshot, type SharedRateLimiter } from '../rate/index.js';

/** Largest slowdown factor after repeated 429s (rate = configured rate / factor). */
const MAX_SLOWDOWN = 16;

/** Options of the request queue. */
export interface RequestQueueOptions {
  /** `adaptive`: concurrency and intervalCap/intervalMs are hard caps the controller stays under. */
  readonly mode: 'adaptive' | 'fixed';
  readonly concurrency: number;
  readonly intervalCap: number;
  readonly intervalMs: number;
  readonly onEvent: (event: ClientEvent) => void;
  /** The shop's budget shared by every replica: the ceiling across processes. */
  readonly shared?: SharedRateLimiter;
  /** Clock of the count of requests sent (`rate().sent`), for tests. @default monotonicNow */
  readonly now?: () => number;
}

/** A rate-limited queue of HTTP attempts that slows down after 429 and recovers step by step. */
export class RequestQueue {
  readonly #queue: PQueue;
  readonly #options: RequestQueueOptions;
  readonly #adaptive: AdaptiveRate | undefined;
  #slowdown = 1;
  #successes = 0;
  #nextStart = 0;
  /** Start times of the attempts sent in the last two seconds (adaptive), less those answered 429. */
  readonly #starts: number[] = [];
  /** Attempts past p-queue that wait in the brake: requests held back by the rate. */
  #braking = 0;
  /**
   * When an attempt last had to wait for the rate. A caller that sends one request at a time
   * (a pipeline with `options.concurrency: 1`) never has one waiting while an answer comes in, yet
   * the rate is what spaces its requests: without this a rate cut by a 5xx never grew back.
   */
  #heldByRateAt = -Infinity;
  #resumeAt = 0;
  #resumeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Aborted by close(): waiting attempts reject with CLIENT_CLOSED instead of hanging forever. */
  readonly #closing = new AbortController();
  /** Attempts that went out, per second over the last minute: the actual rate beside the allowed one. */
  readonly #sent: SentRequests;
  /** Attempts sent and not yet answered (p-queue's `pending` also counts those still held by the brake). */
  #onWire = 0;

  constructor(options: RequestQueueOptions) {
    this.#options = options;
    this.#sent = new SentRequests(options.now);
    // Every waiting attempt listens on the close signal; thousands may wait by design.
    setMaxListeners(0, this.#closing.signal);
    this.#adaptive =
      options.mode === 'adaptive' ? new AdaptiveRate({ maxConcurrency: options.concurrency, maxRequestsPerSecond: (options.intervalCap * 1000) / options.intervalMs }) : undefined;
    const concurrency = this.#adaptive ? this.#adaptive.concurrency : options.concurrency;
    this.#queue = new PQueue({ concurrency, intervalCap: options.intervalCap, interval: options.intervalMs, strict: true });
  }

  /** Current limits and what was actually sent (for the dashboard and metrics). */
  rate(): RateSnapshot {
    const lastMinute = this.#sent.lastMinute();
    const sent = { lastMinute, perSecond: Math.round(this.#sent.perSecond() * 10) / 10, inFlight: this.#onWire };
    if (this.#adaptive) return { ...this.#adaptive.snapshot(), sent };
    const perSecond = (this.#options.intervalCap * 1000) / this.#options.intervalMs / this.#slowdown;
    return { mode: 'fixed', phase: 'fixed', concurrency: this.#queue.concurrency, requestsPerSecond: Math.round(perSecond * 10) / 10, sent };
  }

  /** What an answer said about the shop's load; the adaptive controller adjusts its limits. */
  answered(signal: RateSignal): void {
    if (!this.#adaptive) {
      if (signal.kind === 'ok') this.succeeded();
      return;
    }
    // A refused attempt did not count at the shop in the second that is still open; it leaves the window.
    if (signal.kind === 'throttled' && signal.latencyMs !== undefined) this.#unstart(monotonicNow() - signal.latencyMs);
    // Requests waiting in p-queue wait for a slot; those in the brake wait for the rate.
    const heldByRate = this.#braking > 0 || monotonicNow() - this.#heldByRateAt < 1000;
    if (!this.#adaptive.observe(signal, { slots: this.#queue.size > 0, rate: heldByRate })) return;
    this.#queue.concurrency = this.#adaptive.concurrency;
    if (!this.#closed) this.#options.onEvent({ type: 'rate', ...this.#adaptive.snapshot() });
  }

  /** Current slowdown factor (1 = configured rate). */
  get slowdown(): number {
    return this.#slowdown;
  }

  /**
   * Run one attempt through the queue. `signal` rejects the attempt while it waits (for a slot,
   * the rate, a 429 pause, the shared budget), so a stopping run is not held by a queue of its
   * requests; once the attempt goes out it is answered (p-queue would otherwise race a running
   * task against the signal and leave the request on the wire with nobody to read its outcome).
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#closed) throw closedError();
    const waiting = signal ? untilStarted(signal) : undefined;
    const stop = waiting ? AbortSignal.any([waiting.signal, this.#closing.signal]) : this.#closing.signal;
    const result = this.#queue.add(
      async () => {
        await this.#brake(stop);
        if (this.#options.shared) await this.#takeShared(this.#options.shared, stop);
        waiting?.started();
        stop.throwIfAborted();
        this.#sent.record();
        this.#onWire++;
        try {
          return await task();
        } finally {
          this.#onWire--;
        }
      },
      { signal: stop },
    );
    this.#emitDepth();
    try {
      return (await result) as T;
    } finally {
      waiting?.started();
      this.#emitDepth();
    }
  }

  /**
   * The shop answered 429: pause everything (every replica, with a shared limiter) for `retryAfterMs`;
   * a fixed rate is halved (the adaptive one learns from `answered`, so call that first). Returns how
   * long the refused request should wait before it goes back into the queue: 0 when the adaptive
   * window holds it instead of a pause (a Retry-After of a second or less, no shared limiter).
   */
  throttle(retryAfterMs: number): number {
    if (this.#adaptive?.windowHolds && retryAfterMs <= 1000 && !this.#options.shared) {
      // At first contact the window may date the shop's second too early (its first request arrived late).
      const over = this.#adaptive.secondOverAt;
      if (over !== undefined && over > monotonicNow()) this.#pause(over - monotonicNow());
      return 0;
    }
    this.#pause(retryAfterMs);
    // pause() never rejects: a store that cannot be written is logged there.
    if (retryAfterMs > 0) void this.#options.shared?.pause(retryAfterMs);
    return retryAfterMs;
  }

  /** Another replica's 429 paused the shop: learn it as if this queue had seen the 429. */
  #pausedElsewhere(retryAfterMs: number): void {
    if (this.#closed) return;
    this.#options.onEvent({ type: 'shared-pause', retryAfterMs });
    this.answered({ kind: 'throttled', retryAfterMs });
    this.#pause(retryAfterMs);
  }

  /**
   * Take a point of the shared budget. A point taken while this queue was paused (its own 429
   * came back meanwhile) is not used: sent after the pause it would land together with the
   * points others take then, so the attempt waits the pause out and takes a fresh one.
   */
  async #takeShared(shared: SharedRateLimiter, signal: AbortSignal): Promise<void> {
    for (;;) {
      const { waitedMs, refusals } = await shared.acquire({ signal, onPause: (ms) => this.#pausedElsewhere(ms) });
      if (refusals > 0 && !this.#closed) this.#options.onEvent({ type: 'shared-wait', waitedMs });
      const now = monotonicNow();
      if (this.#resumeAt <= now) return;
      await sleep(this.#resumeAt - now, signal);
    }
  }

  #pause(retryAfterMs: number): void {
    if (!this.#adaptive) {
      this.#successes = 0;
      this.#slowdown = Math.min(MAX_SLOWDOWN, this.#slowdown * 2);
      this.#queue.concurrency = Math.max(1, Math.floor(this.#options.concurrency / this.#slowdown));
      if (!this.#closed) this.#options.onEvent({ type: 'rate', ...this.rate() });
    }
    const until = monotonicNow() + retryAfterMs;
    if (retryAfterMs > 0 && until > this.#resumeAt) {
      this.#resumeAt = until;
      this.#queue.pause();
      clearTimeout(this.#resumeTimer);
      // Not unref'd: every waiting request of a run waits on this timer, and a one-off `sync` has
      // nothing else keeping the process alive while the queue is paused (issue 25).
      this.#resumeTimer = setTimeout(() => {
        if (!this.#closed) this.#queue.start();
      }, retryAfterMs);
    }
  }

  /** Fixed rate: a request succeeded; after `intervalCap` successes in a row, recover one step of rate. */
  succeeded(): void {
    if (this.#slowdown === 1) return;
    this.#successes += 1;
    if (this.#successes < this.#options.intervalCap) return;
    this.#successes = 0;
    this.#slowdown = Math.max(1, this.#slowdown / 2);
    this.#queue.concurrency = Math.max(1, Math.floor(this.#options.concurrency / this.#slowdown));
    if (!this.#closed) this.#options.onEvent({ type: 'rate', ...this.rate() });
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

  /**
   * Space request starts by the rate the controller allows, or while a fixed rate is slowed down
   * `slowdown × intervalMs / intervalCap` apart. An attempt already past p-queue when a 429 paused
   * it waits for the pause too: it would only be refused as well.
   * Starts are booked in turn, so one that woke late (the process was busy) does not push the
   * others back. Once a 429 taught the shop's limit, no window (a second and a margin) also ever
   * holds more starts than the limit: the late ones and those booked on time would otherwise leave
   * together, and a shop counting per second refuses the surplus.
   */
  async #brake(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = monotonicNow();
      if (this.#resumeAt > now) {
        await sleep(this.#resumeAt - now, signal);
        continue;
      }
      const gap = this.#gapMs();
      if (gap === 0) {
        // Not paced (before the first answer, or below the hard cap): the start counts all the same.
        this.#started();
        return;
      }
      const start = Math.max(now, this.#nextStart);
      this.#nextStart = start + gap;
      if (start > now) {
        this.#heldByRateAt = now;
        this.#braking++;
        try {
          await sleep(start - now, signal);
        } finally {
          this.#braking--;
        }
      }
      if (this.#adaptive) await this.#withinWindow(signal);
      if (this.#resumeAt <= monotonicNow()) {
        this.#started();
        return;
      }
    }
  }

  /** An attempt leaves now: the adaptive window and the controller's idea of the shop's second count it. */
  #started(): void {
    if (!this.#adaptive) return;
    const now = monotonicNow();
    // Two seconds cover the widest window.
    while (this.#starts.length > 0 && this.#starts[0]! <= now - 2000) this.#starts.shift();
    this.#starts.push(now);
  }

  /** Wait until fewer starts than the learnt limit allows were made in the controller's window. */
  async #withinWindow(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = monotonicNow();
      // Two seconds cover the widest window.
      while (this.#starts.length > 0 && this.#starts[0]! <= now - 2000) this.#starts.shift();
      const window = this.#adaptive?.window;
      if (!window) return;
      let first = this.#starts.length;
      while (first > 0 && this.#starts[first - 1]! > now - window.windowMs) first--;
      if (this.#starts.length - first < window.starts) return;
      this.#braking++;
      try {
        await sleep(this.#starts[this.#starts.length - window.starts]! + window.windowMs - now, signal);
      } finally {
        this.#braking--;
      }
    }
  }

  /** Take the start nearest `sentAt` out of the window. */
  #unstart(sentAt: number): void {
    let nearest = -1;
    for (let i = 0; i < this.#starts.length; i++) if (nearest < 0 || Math.abs(this.#starts[i]! - sentAt) < Math.abs(this.#starts[nearest]! - sentAt)) nearest = i;
    if (nearest >= 0) this.#starts.splice(nearest, 1);
  }

  /** Least time between two request starts now (0: no spacing beyond p-queue's caps). */
  #gapMs(): number {
    if (this.#adaptive) {
      const cap = (this.#options.intervalCap * 1000) / this.#options.intervalMs;
      const perSecond = this.#adaptive.requestsPerSecond;
      return perSecond < cap ? 1000 / perSecond : 0;
    }
    return this.#slowdown === 1 ? 0 : (this.#slowdown * this.#options.intervalMs) / this.#options.intervalCap;
  }

  #emitDepth(): void {
    if (this.#closed) return;
    this.#options.onEvent({ type: 'queue', size: this.#queue.size, pending: this.#queue.pending });
  }
}

/** A signal that follows `outer` until `started()`: then the attempt is on its way and no longer stopped by it. */
function untilStarted(outer: AbortSignal): { readonly signal: AbortSignal; started(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, started: () => outer.removeEventListener('abort', follow) };
}

function closedError(): ShopApiError {
  return new ShopApiError('CLIENT_CLOSED', 'The shop client is closed; create a new one');
}
