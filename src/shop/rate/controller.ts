/**
 * Adaptive rate and concurrency (AIMD) for a shop that does not publish its limits.
 *
 * Two limits, both never above the configured hard caps:
 * - concurrency (requests in flight) starts at a polite floor and grows while answers come back
 *   fast and clean: by one per clean answer up to 6 (slow start, doubling every round trip, so a
 *   short run is not spent warming up), by one per round trip beyond that or after trouble.
 *   5xx, lost answers and latency rising well above the best seen cut it (× 0.5, × 0.75).
 * - a request rate exists only once the shop has said 429: the count it accepted in the second
 *   around the 429 is remembered as the ceiling N, kept as a window (`window`: at most N starts in
 *   any 1000 ms + a margin, 50 ms at first, about 95 % of the limit; the queue enforces it) and a
 *   pace of N per window; beyond that it probes twenty times more slowly than it climbs after a cut,
 *   so a fixed shop limit costs one or two 429s per run, not a sawtooth. When no request left in the
 *   second before the first one counted (first requests, or after an idle second), that one opened
 *   the shop's second: the requests sent since are exactly N, and `windowHolds` tells the queue the
 *   window stands in for the Retry-After pause even at first contact (`secondOverAt`: hold until
 *   that second is over at the latest, as the first request may have arrived late). Otherwise the
 *   count goes by answer and may include the end of the shop's previous second: the queue pauses,
 *   and a 429 in the second opened after the pause counts exactly. A 429 met while N was kept, not
 *   in such a second, widens the margin by 50 ms (arrivals are more bunched than allowed for) and
 *   the window holds the retries. After a minute without 429 the learnt limit is forgotten and the
 *   rate climbs additively again (up to the hard cap).
 * Request starts are paced at 1.25 × concurrency / latency, so a round's requests are spread over
 * the round trip instead of leaving in one burst: when a hidden limit is met, only the few sent
 * while the first 429 was on its way are refused, not a whole round.
 * Decreases happen at most once per cool-down (a burst of bad answers from one round is one signal);
 * 429 bursts have a cool-down of their own, so a latency cut just before never swallows a first 429.
 * Pure logic with an injected clock: the request queue feeds it and applies what it says.
 */
import { monotonicNow } from '../../util/time.js';

/** Hard caps and floor of the controller. */
export interface AdaptiveRateSettings {
  /** Requests in flight at the start and the least ever allowed. @default 2 */
  readonly floorConcurrency?: number;
  /** Hard cap of requests in flight. */
  readonly maxConcurrency: number;
  /** Hard cap of requests per second. */
  readonly maxRequestsPerSecond: number;
  /** Least rate a 429 can bring the rate down to (requests per second). @default 1 */
  readonly floorRequestsPerSecond?: number;
}

/** What one answer said about the shop's load. */
export type RateSignal =
  | { readonly kind: 'ok'; readonly latencyMs: number }
  /** 429, with or without Retry-After; `latencyMs` (time on the wire) says when the refused request left. */
  | { readonly kind: 'throttled'; readonly retryAfterMs?: number; readonly latencyMs?: number }
  /**
   * 502/503/504 or a lost answer (timeout, reset). `latencyMs` when the shop answered: it counted
   * the request towards its limit all the same, so the request is counted in its second too.
   */
  | { readonly kind: 'overloaded'; readonly latencyMs?: number };

/** The controller's current limits, for the dashboard and metrics. */
export interface RateSnapshot {
  readonly mode: 'adaptive' | 'fixed';
  /** Requests in flight allowed now. */
  readonly concurrency: number;
  /** Requests per second allowed now (the hard cap until the shop first answered 429). */
  readonly requestsPerSecond: number;
  /** `slow-start` until the first sign of trouble, then `steady`. */
  readonly phase: 'slow-start' | 'steady' | 'fixed';
  /** Rate the shop accepted when it last answered 429, if it ever did. */
  readonly learntLimitPerSecond?: number;
  /**
   * What was actually sent, beside the limits above (the request queue adds it; the controller
   * alone does not know): requests started in the last minute, that count / 60 (one decimal), and
   * requests on the wire now.
   */
  readonly sent?: { readonly lastMinute: number; readonly perSecond: number; readonly inFlight: number };
}

/** Latency counts as rising above this multiple of the best smoothed latency seen (plus LATENCY_SLACK_MS). */
const LATENCY_FACTOR = 2;
/** Absolute slack so a loopback shop's 1 ms → 3 ms jitter is not "rising latency". */
const LATENCY_SLACK_MS = 20;
/**
 * A learnt limit of N per second is kept as N request starts per second plus this margin: requests
 * spaced by the second when sent arrive bunched (a busy shop or client delays some), and a
 * shop counting in fixed one-second windows refuses the N + 1st that lands in one window.
 * 50 ms costs 5 % of the limit's throughput (0.9 of the accepted rate, before, cost 10 %).
 */
const WINDOW_MARGIN_MS = 50;
/** Each 429 met while a learnt limit was kept widens the margin by this much (the jitter is larger here)… */
const MARGIN_STEP_MS = 50;
/** …up to this (N per 1.25 s: 80 % of the limit). */
const MAX_MARGIN_MS = 250;
/** Beyond the learnt limit kept over a second and the margin, the rate grows this many times more slowly: a probe, not a climb. */
const PROBE_SLOWDOWN = 20;
/** A learnt limit is forgotten after this long without a 429 (the shop's load, or its limit, may have changed). */
const MEMORY_MS = 60_000;
/**
 * Slow start (one more in flight per clean answer) ends here even without trouble; beyond, one more
 * per round trip. The requests sent while the first 429 from a hidden limit is on its way all come
 * back 429 too, and there are about as many as are in flight: 8 drew 3–4 % 429s against a 20/s
 * limit in the bench, 16 (doubling up to the hard cap) 4–6 % on a loaded machine, 4 slowed an
 * 80 ms shop down; 6 keeps both.
 */
const SLOW_START_LIMIT = 6;
/** Pacing headroom over concurrency / latency: enough that concurrency, not pacing, is the limit, even while latency wobbles. */
const PACING = 1.25;

/** The AIMD controller of one shop client. */
export class AdaptiveRate {
  readonly #floor: number;
  readonly #maxConcurrency: number;
  readonly #maxRate: number;
  readonly #floorRate: number;
  readonly #clock: () => number;
  #concurrency: number;
  #rate: number | undefined;
  #ceiling: number | undefined;
  /** Learnt limit before the current 429 burst, and the answers the shop accepted around it. */
  #ceilingBefore = Infinity;
  #acceptedAroundThrottle = 0;
  #slowStart = true;
  #coolUntil = 0;
  /** 429s before this belong to the burst already learnt from (kept apart: a latency cut's cool-down must not swallow a first 429). */
  #throttleCoolUntil = 0;
  #lastThrottleAt = 0;
  #smoothed: number | undefined;
  #best: number | undefined;
  #marginMs = WINDOW_MARGIN_MS;
  /** Whether the window knows when the shop's second is over: the last 429 came while a learnt limit was kept, or its count is exact. */
  #windowKnown = false;
  /** When the request answered by the last burst's first 429 left. */
  #lastThrottleSentAt = 0;
  /** When the requests answered cleanly in the last two seconds left (by start, not answer: what the shop counted). */
  readonly #sent: number[] = [];
  /** When those answers came, in the same order. */
  readonly #answered: number[] = [];
  /** Least time on the wire of a clean answer: the shop's own latency, or less. */
  #minLatency = Infinity;
  /** At first contact, when the shop's second the 429 came in is over at the latest (window margin included). */
  #secondOverAt: number | undefined;

  constructor(settings: AdaptiveRateSettings, clock: () => number = monotonicNow) {
    this.#maxConcurrency = Math.max(1, settings.maxConcurrency);
    this.#floor = Math.min(this.#maxConcurrency, Math.max(1, settings.floorConcurrency ?? 2));
    this.#maxRate = settings.maxRequestsPerSecond;
    this.#floorRate = Math.min(this.#maxRate, settings.floorRequestsPerSecond ?? 1);
    this.#concurrency = this.#floor;
    this.#clock = clock;
  }

  /** Requests in flight allowed now (whole number). */
  get concurrency(): number {
    return Math.floor(this.#concurrency);
  }

  /** Requests per second allowed now: the pace of the requests in flight, the learnt rate, never above the hard cap. */
  get requestsPerSecond(): number {
    const pace = this.#smoothed === undefined ? Infinity : (PACING * this.#concurrency * 1000) / Math.max(1, this.#smoothed);
    return Math.min(this.#maxRate, this.#rate ?? Infinity, pace);
  }

  /**
   * Whether the window knows when the shop's second is over: the last 429 came while a learnt limit
   * was kept, or the client's own requests opened that second (its count is exact). Otherwise (the
   * count may hold the end of the shop's previous second) only a pause for Retry-After is sure to
   * outlast it.
   */
  get windowHolds(): boolean {
    return this.#windowKnown && this.window !== undefined;
  }

  /**
   * After a first 429 whose count of the shop's second is exact (`windowHolds`): when that second is
   * over at the latest. The window alone dates it from the request starts, which is too early when
   * the first request took long to arrive.
   */
  get secondOverAt(): number | undefined {
    return this.#secondOverAt;
  }

  /**
   * While the shop's limit is known (it said 429): at most `starts` request starts in any `windowMs`,
   * the learnt limit per second kept over a second and a margin for arrival jitter.
   */
  get window(): { readonly starts: number; readonly windowMs: number } | undefined {
    if (this.#ceiling === undefined || this.#rate === undefined) return undefined;
    const windowMs = 1000 + this.#marginMs;
    // The rate lowered by 5xx or a second 429 holds too; rounding guards 19.999… becoming 19.
    const starts = Math.max(1, Math.floor(Math.min(this.#ceiling, (this.#rate * windowMs) / 1000) + 1e-6));
    return { starts, windowMs };
  }

  /** Current limits. */
  snapshot(): RateSnapshot {
    return {
      mode: 'adaptive',
      concurrency: this.concurrency,
      requestsPerSecond: round(this.requestsPerSecond),
      phase: this.#slowStart ? 'slow-start' : 'steady',
      ...(this.#ceiling !== undefined ? { learntLimitPerSecond: round(this.#ceiling) } : {}),
    };
  }

  /**
   * Take one answer into account. `held` says which limit held requests back when it came:
   * requests waiting for a slot (`true` or `slots`) grow concurrency, requests waiting for the rate
   * (`true` or `rate`) grow the rate; an idle client grows nothing. Returns whether a limit changed.
   */
  observe(signal: RateSignal, held: boolean | { readonly slots: boolean; readonly rate: boolean }): boolean {
    const busy = typeof held === 'boolean' ? { slots: held, rate: held } : held;
    const now = this.#clock();
    const before = this.snapshot();
    if (signal.kind === 'ok') this.#clean(signal.latencyMs, busy, now);
    else if (signal.kind === 'throttled') this.#throttled(signal.retryAfterMs ?? 0, now - (signal.latencyMs ?? 0), now);
    else {
      if (signal.latencyMs !== undefined) this.#counted(now - signal.latencyMs, now);
      this.#decrease(0.5, 0.8, now);
    }
    const after = this.snapshot();
    // Pacing moves with every answer; only a change worth showing counts.
    const rateMoved = Math.abs(after.requestsPerSecond - before.requestsPerSecond) > before.requestsPerSecond * 0.05;
    return rateMoved || after.concurrency !== before.concurrency || after.phase !== before.phase || after.learntLimitPerSecond !== before.learntLimitPerSecond;
  }

  /** A request the shop answered: it counts in the shop's second whatever the answer said. */
  #counted(sentAt: number, now: number): void {
    this.#sent.push(sentAt);
    this.#answered.push(now);
    this.#forget(now);
    if (now < this.#throttleCoolUntil && this.#ceiling !== undefined && this.#acceptedAroundThrottle > 0 && sentAt < this.#lastThrottleSentAt && sentAt > this.#lastThrottleSentAt - 1000) {
      // Sent before the 429 came back and answered all the same (a 5xx too): the shop's limit is that much higher.
      // One sent after it (the Retry-After over, a new second at the shop) says nothing about that second.
      this.#acceptedAroundThrottle += 1;
      this.#learn(this.#acceptedAroundThrottle);
    }
  }

  #clean(latencyMs: number, busy: { readonly slots: boolean; readonly rate: boolean }, now: number): void {
    const sentAt = now - latencyMs;
    this.#counted(sentAt, now);
    this.#minLatency = Math.min(this.#minLatency, latencyMs);
    this.#smoothed = this.#smoothed === undefined ? latencyMs : this.#smoothed * 0.8 + latencyMs * 0.2;
    // The best smoothed latency drifts up slowly, so a shop that became slower for good is the new normal.
    this.#best = this.#best === undefined ? this.#smoothed : Math.min(this.#smoothed, this.#best + (this.#smoothed - this.#best) * 0.01);
    if (this.#smoothed > this.#best * LATENCY_FACTOR + LATENCY_SLACK_MS) {
      this.#decrease(0.75, 1, now);
      return;
    }
    if (busy.slots) {
      const step = this.#slowStart && this.#concurrency < SLOW_START_LIMIT ? 1 : 1 / Math.max(1, this.#concurrency);
      this.#concurrency = Math.min(this.#maxConcurrency, this.#concurrency + step);
    }
    if (this.#ceiling !== undefined && now - this.#lastThrottleAt > MEMORY_MS) this.#ceiling = undefined;
    if (this.#rate === undefined || !(busy.slots || busy.rate)) return;
    // About +1 request/s per second of clean answers; near the learnt limit PROBE_SLOWDOWN times slower.
    const near = this.#ceiling !== undefined && this.#rate >= (this.#ceiling * 1000) / (1000 + this.#marginMs) - 1e-9;
    this.#rate = Math.min(this.#maxRate, this.#rate + (near ? 1 / PROBE_SLOWDOWN : 1) / Math.max(1, this.#rate));
    if (this.#ceiling !== undefined && this.#rate > this.#ceiling * 1.1) this.#ceiling = this.#rate;
    if (this.#rate >= this.#maxRate) this.#rate = undefined;
  }

  #throttled(retryAfterMs: number, sentAt: number, now: number): void {
    this.#slowStart = false;
    if (now < this.#throttleCoolUntil) return;
    this.#forget(now);
    // The shop counted the requests that left in the second before the refused one (those still on
    // their way are added as they come back)…
    const counted = this.#sent.filter((t) => t > sentAt - 1000 && t < sentAt);
    const first = Math.min(...counted);
    // …and more if its second began earlier. It began with the first of them if none left in the
    // second before (an idle client, or its first requests): the count is then exactly its limit, and
    // the window (N starts since then) knows when the shop's second ends.
    const opened = counted.length > 0 && !this.#sent.some((t) => t < first && t >= first - 1000);
    this.#windowKnown = this.#ceiling !== undefined || opened;
    // A 429 although the limit was known and kept: requests arrive more bunched than the margin allows.
    // Not so in a second opened after a pause: the count is exact, the limit kept was too high.
    if (this.#ceiling !== undefined && !opened) this.#marginMs = Math.min(MAX_MARGIN_MS, this.#marginMs + MARGIN_STEP_MS);
    // That first request reached the shop (and opened its second) at the latest its answer less the
    // shop's latency: a first request on a fresh connection, to a cold shop, may take long to arrive.
    this.#secondOverAt = opened && this.#ceiling === undefined ? this.#answered[this.#sent.indexOf(first)]! - this.#minLatency + 1000 + this.#marginMs : undefined;
    this.#ceilingBefore = this.#ceiling ?? Infinity;
    // Otherwise by answer, as the shop's clock may see them (requests sent early may have arrived late):
    // the count may then be too high, and a 429 in the second opened after the pause corrects it.
    // (Not those counted for the 429 before: they were the shop's second before.)
    const since = Math.max(now - 1000, this.#lastThrottleAt);
    const answered = opened ? counted.length : this.#answered.filter((t) => t > since).length;
    this.#acceptedAroundThrottle = Math.max(1, answered);
    this.#lastThrottleAt = now;
    this.#lastThrottleSentAt = sentAt;
    this.#learn(this.#acceptedAroundThrottle);
    this.#throttleCoolUntil = now + Math.max(retryAfterMs, this.#coolDownMs());
    this.#coolUntil = Math.max(this.#coolUntil, this.#throttleCoolUntil);
  }

  /** The shop accepted `accepted` requests in the second around its 429: that is its limit, kept over a second and the margin. */
  #learn(accepted: number): void {
    const limit = Math.max(this.#floorRate, Math.min(accepted, this.#ceilingBefore, this.#maxRate));
    this.#ceiling = limit;
    this.#rate = Math.max(this.#floorRate, (limit * 1000) / (1000 + this.#marginMs));
  }

  #decrease(concurrencyFactor: number, rateFactor: number, now: number): void {
    this.#slowStart = false;
    if (now < this.#coolUntil) return;
    this.#concurrency = Math.max(1, Math.min(this.#concurrency, this.#maxConcurrency) * concurrencyFactor);
    if (rateFactor < 1) this.#rate = Math.max(this.#floorRate, this.requestsPerSecond * rateFactor);
    this.#coolUntil = now + this.#coolDownMs();
  }

  /** One round trip or so: answers already on their way when trouble started say nothing new. */
  #coolDownMs(): number {
    return Math.max(100, 2 * (this.#smoothed ?? 0));
  }

  #forget(now: number): void {
    // Two seconds and a half: a refused request's second and the second before it, sent a while ago.
    // Answers are kept in the order they came, so the oldest go first (none sent later than answered).
    let drop = 0;
    while (drop < this.#answered.length && this.#answered[drop]! <= now - 2500) drop++;
    if (drop === 0) return;
    this.#sent.splice(0, drop);
    this.#answered.splice(0, drop);
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
