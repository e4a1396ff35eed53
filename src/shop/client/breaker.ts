/**
 * The shop's circuit breaker: one per shop client, so every pipeline of a shop in this process
 * shares it (each replica keeps its own). It opens after `failures` requests in a row gave up with
 * the shop down — no answer (refused, reset, DNS, timeout) or a 5xx, after the client's retries —
 * and no attempt in between was answered below 500 (a 4xx is a record's fault, a 429 the rate
 * limiter's business: both prove the shop is there). While open, every attempt fails at once with SHOP_CIRCUIT_OPEN without a
 * request. Once `probeAfterMs` has passed, the next attempt first sends one cheap probe (one record
 * of a list); an answer below 500 closes the breaker and the attempt goes on, a failure opens it
 * again for twice as long (up to `maxProbeAfterMs`). There is no timer: a process that asks nothing
 * of a down shop sends nothing to it.
 */
import { ShopCircuitOpenError } from '../errors.js';
import { monotonicNow } from '../../util/time.js';

/** Settings of the breaker. */
export interface BreakerOptions {
  /** Requests in a row that gave up with the shop down (no answer, 5xx after the retries) before the breaker opens; 0 = never opens. @default 5 */
  readonly failures: number;
  /** How long the breaker stays open before the first probe. @default 30000 */
  readonly probeAfterMs: number;
  /** Longest wait between probes; each failed probe doubles the wait up to this. @default 600000 */
  readonly maxProbeAfterMs: number;
}

/** The breaker's defaults. */
export const BREAKER_DEFAULTS: BreakerOptions = { failures: 5, probeAfterMs: 30_000, maxProbeAfterMs: 600_000 };

/** Where the breaker stands (for status, the dashboard and metrics). */
export interface BreakerSnapshot {
  readonly state: 'closed' | 'open' | 'probing';
  /** Failed requests in a row so far. */
  readonly failures: number;
  /** When it opened (open, probing). */
  readonly openedAt?: string;
  /** When the next probe may go out (open). */
  readonly probeAt?: string;
  /** What the last failed attempt said. */
  readonly lastError?: string;
}

/** A change the breaker reports (logged and counted by the client's owner). */
export type BreakerChange = { readonly state: 'open' | 'closed'; readonly snapshot: BreakerSnapshot; readonly reason: string };

/** Per-shop circuit breaker; `probe` sends the cheap request and resolves when the shop answered below 500. */
export class CircuitBreaker {
  readonly #options: BreakerOptions;
  readonly #probe: () => Promise<void>;
  readonly #onChange: (change: BreakerChange) => void;
  readonly #now: () => number;
  #failures = 0;
  #lastError: string | undefined;
  #openedAt: number | undefined;
  #probeAt = 0;
  #waitMs: number;
  #probing: Promise<void> | undefined;
  /** A probe is on the wire (the snapshot says `probing`). */
  #inProbe = false;

  constructor(options: BreakerOptions, probe: () => Promise<void>, onChange: (change: BreakerChange) => void, now: () => number = monotonicNow) {
    this.#options = options;
    this.#probe = probe;
    this.#onChange = onChange;
    this.#now = now;
    this.#waitMs = options.probeAfterMs;
  }

  /** Whether attempts fail fast now (open, or a probe in flight). */
  get open(): boolean {
    return this.#openedAt !== undefined;
  }

  /**
   * Before an attempt: returns when it may go out; throws SHOP_CIRCUIT_OPEN while the breaker is open.
   * When a probe is due this call sends it (others arriving meanwhile wait for the same probe).
   */
  async admit(): Promise<void> {
    if (this.#openedAt === undefined) return;
    if (!this.#probing && this.#now() < this.#probeAt) throw this.#refusal();
    this.#probing ??= this.#runProbe();
    await this.#probing;
    if (this.#openedAt !== undefined) throw this.#refusal();
  }

  /** Right before the request leaves the queue: an attempt that waited while the breaker opened is not sent. */
  check(): void {
    if (this.#openedAt !== undefined) throw this.#refusal();
  }

  /** An attempt was answered below 500 (any 2xx-4xx, 429 included): the shop is there. */
  answered(): void {
    this.#failures = 0;
  }

  /** A request gave up with the shop down (no answer, timeout, 5xx); `what` says how, for the error and the log. */
  failed(what: string): void {
    this.#lastError = what;
    if (this.#options.failures === 0 || this.#openedAt !== undefined) return;
    this.#failures += 1;
    if (this.#failures >= this.#options.failures) this.#open(`${this.#failures} requests in a row gave up with the shop down`);
  }

  snapshot(): BreakerSnapshot {
    const state = this.#openedAt === undefined ? 'closed' : this.#inProbe ? 'probing' : 'open';
    return {
      state,
      failures: this.#failures,
      ...(this.#openedAt !== undefined ? { openedAt: new Date(this.#openedAt).toISOString(), probeAt: new Date(this.#probeAt).toISOString() } : {}),
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
    };
  }

  #open(reason: string): void {
    this.#openedAt ??= this.#now();
    this.#probeAt = this.#now() + this.#waitMs;
    this.#onChange({ state: 'open', snapshot: this.snapshot(), reason });
  }

  async #runProbe(): Promise<void> {
    this.#inProbe = true;
    try {
      await this.#probe();
      this.#inProbe = false;
      this.#failures = 0;
      this.#openedAt = undefined;
      this.#waitMs = this.#options.probeAfterMs;
      this.#onChange({ state: 'closed', snapshot: this.snapshot(), reason: 'the probe was answered' });
    } catch (err) {
      this.#inProbe = false;
      this.#lastError = err instanceof Error ? err.message : String(err);
      this.#waitMs = Math.min(this.#options.maxProbeAfterMs, this.#waitMs * 2);
      this.#open(`the probe failed: ${this.#lastError}`);
    } finally {
      this.#probing = undefined;
    }
  }

  #refusal(): ShopCircuitOpenError {
    const probeAt = new Date(this.#probeAt).toISOString();
    const since = this.#openedAt !== undefined ? new Date(this.#openedAt).toISOString() : probeAt;
    return new ShopCircuitOpenError(
      `the shop's circuit breaker is open since ${since}: nothing is sent to it until a probe at ${probeAt} finds it answering again; last error: ${this.#lastError ?? 'unknown'}. Nothing was sent and no record is lost: the next run after the breaker closes sends them`,
      { details: { probeAt, openedAt: since, lastError: this.#lastError ?? null } },
    );
  }
}
