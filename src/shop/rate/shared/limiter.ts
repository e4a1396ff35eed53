/**
 * One shop's request budget shared by every shopsync process on the same state, on a
 * rate-limiter-flexible store limiter (PostgreSQL here; Redis and the others keep the same
 * contract), keyed by the shop's name.
 *
 * - Every HTTP attempt takes one point before it goes out; a refusal waits the store's
 *   `msBeforeNext` and asks again. The attempts of one process ask one after another, so a
 *   process waiting for a slot asks the store once per slot, not once per waiting request.
 * - A 429 seen by any process writes a pause into the same key: its points are set to
 *   PAUSE_MARK until the Retry-After has passed, so every consume of every process is refused
 *   until then. The refusal's points tell a pause from a full slot, and a process meeting a pause
 *   another one wrote is told once (`onPause`), so its own controller slows down as if it had
 *   seen the 429 itself.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
// The class alone, not the package's index: that loads every store it has (Redis, Mongo, DynamoDB…), ~15 ms of each start.
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import PQueue from 'p-queue';
import { silentLogger, type Logger } from '../../../log.js';
import { monotonicNow, sleep } from '../../../util/time.js';
import { TransportError } from '../../errors.js';
import { storeMs, type SharedBudget } from './budget.js';

/** Points a paused key holds: far above any slot's points, so a refusal carrying them is a pause. */
export const PAUSE_MARK = 1_000_000;
/** Store failures in a row an attempt rides out before it fails. */
const STORE_ATTEMPTS = 4;
/** Pauses whose ends lie this close together are the same pause (each refusal re-reads the end). */
const SAME_PAUSE_MS = 100;

/** What a request that waited for the shared budget learnt. */
export interface SharedAcquireResult {
  /** Time from asking to holding the point (waiting behind this process's other requests included). */
  readonly waitedMs: number;
  /** Times the store refused (the budget was used up, or the shop paused): 0 when the point was free. */
  readonly refusals: number;
}

/** Options of one `acquire`. */
export interface SharedAcquireOptions {
  /** Stops the wait (rejects with the signal's reason); a point already taken is spent. */
  readonly signal?: AbortSignal;
  /** Another process's 429 paused the shop for `ms` more: called once per pause, when first met. */
  readonly onPause?: (ms: number) => void;
}

/** The shared budget of one shop, as the request queue uses it. */
export interface SharedRateLimiter {
  /** The key in the store: the shop's name. */
  readonly shop: string;
  readonly budget: SharedBudget;
  /** Take one request's point of the shop's budget, waiting as long as every process together has used it up. */
  acquire(options?: SharedAcquireOptions): Promise<SharedAcquireResult>;
  /** The shop answered 429: pause it for every process for `ms` (never shortening a longer pause). Never rejects. */
  pause(ms: number): Promise<void>;
}

/** The store operations used: consume, get and set of rate-limiter-flexible's limiters. */
export type BudgetStore = Pick<RateLimiterAbstract, 'consume' | 'get' | 'set'>;

/** A shop's shared budget on a rate-limiter-flexible store whose points and duration are `budget`'s slot. */
export class StoreRateLimiter implements SharedRateLimiter {
  readonly shop: string;
  readonly budget: SharedBudget;
  readonly #store: BudgetStore;
  readonly #logger: Logger;
  /** This process's requests ask the store one at a time. */
  readonly #line = new PQueue({ concurrency: 1 });
  /** End of the last pause this process wrote (its own 429: not news to it). */
  #ownPauseUntil = 0;
  /** End of the last pause reported to `onPause`. */
  #reportedUntil = 0;

  constructor(store: BudgetStore, shop: string, budget: SharedBudget, logger: Logger = silentLogger) {
    this.#store = store;
    this.shop = shop;
    this.budget = budget;
    this.#logger = logger;
  }

  async acquire(options: SharedAcquireOptions = {}): Promise<SharedAcquireResult> {
    const started = monotonicNow();
    const refusals = await this.#line.add(() => this.#take(options), options.signal ? { signal: options.signal } : {});
    return { waitedMs: monotonicNow() - started, refusals };
  }

  async pause(ms: number): Promise<void> {
    if (!(ms > 0)) return;
    const pauseMs = storeMs(ms);
    this.#ownPauseUntil = Math.max(this.#ownPauseUntil, monotonicNow() + pauseMs);
    try {
      const current = await this.#store.get(this.shop);
      if (current && current.consumedPoints >= PAUSE_MARK && current.msBeforeNext >= pauseMs) return;
      await this.#store.set(this.shop, PAUSE_MARK, pauseMs / 1000);
      this.#logger.debug({ shop: this.shop, pauseMs }, 'paused the shop for every replica');
    } catch (err) {
      // This process pauses all the same; the others meet the shop's 429 themselves.
      this.#logger.warn({ shop: this.shop, err: errorText(err) }, 'could not share a 429 pause with the other replicas');
    }
  }

  /** Consume one point; resolves with the refusals met on the way. */
  async #take(options: SharedAcquireOptions): Promise<number> {
    const { signal, onPause } = options;
    let failures = 0;
    let refusals = 0;
    for (;;) {
      signal?.throwIfAborted();
      let refusal: RateLimiterRes;
      try {
        await this.#store.consume(this.shop, 1);
        return refusals;
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) {
          failures += 1;
          if (failures >= STORE_ATTEMPTS) throw unavailable(this.shop, err);
          this.#logger.warn({ shop: this.shop, err: errorText(err), attempt: failures }, 'shared rate limit store failed; trying again');
          await sleep(200 * 2 ** (failures - 1), signal);
          continue;
        }
        refusal = err;
      }
      failures = 0;
      refusals += 1;
      const paused = refusal.consumedPoints >= PAUSE_MARK;
      // A full slot never needs more than one slot's wait: a store that stamps expiries with a skewed
      // clock (rate-limiter-flexible's own, on monotonicNow()) would otherwise hold this process for the skew.
      const waitMs = Math.max(1, paused ? refusal.msBeforeNext : Math.min(refusal.msBeforeNext, this.budget.slotMs));
      if (paused) this.#metPause(waitMs, onPause);
      await sleep(waitMs, signal);
    }
  }

  #metPause(ms: number, onPause: ((ms: number) => void) | undefined): void {
    const until = monotonicNow() + ms;
    if (until <= this.#ownPauseUntil + SAME_PAUSE_MS || until <= this.#reportedUntil + SAME_PAUSE_MS) return;
    this.#reportedUntil = until;
    this.#logger.info({ shop: this.shop, pauseMs: ms }, 'another replica met the shop\'s rate limit; pausing');
    onPause?.(ms);
  }
}

function unavailable(shop: string, err: unknown): TransportError {
  return new TransportError('RATE_LIMITER_UNAVAILABLE', `the shared rate limit of shop "${shop}" could not be read from the state database (${errorText(err)}); check that the state's PostgreSQL is reachable, or set \`rateLimit.shared: false\` in the shop's config to let each replica keep a limit of its own`, { details: { shop } });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
