/**
 * What the sandbox's API paths received, as the shop would count it: requests, those answered 429
 * by the rate-limit fault, and the busiest second (the most requests arriving within any 1000 ms,
 * wherever that second starts), so a test or benchmark can ask the shop itself whether a client
 * (or several clients together) stayed within its limit. Control paths are not counted.
 */

/** The counts of `GET /sandbox/traffic`. */
export interface TrafficView {
  /** API requests that arrived. */
  readonly requests: number;
  /** Of those, answered 429 by `rate_limit_per_second`. */
  readonly rate_limited: number;
  /** Most requests arriving within any 1000 ms (429s included). */
  readonly busiest_second: number;
  /** Most requests let through the rate limit within any 1000 ms. */
  readonly busiest_second_passed: number;
  /** API requests held by the latency fault right now (arrived, not yet handled): a test can wait for a request on the wire instead of the clock. */
  readonly held_now: number;
  /** Of those, writes (every method but GET). */
  readonly held_writes_now: number;
  /** When counting began (start or the last reset), ISO time. */
  readonly since: string;
}

/** The most events within any window of `windowMs`, kept with memory for one window only. */
class SlidingPeak {
  private times: number[] = [];
  private head = 0;
  peak = 0;

  constructor(private readonly windowMs: number) {}

  add(at: number): void {
    this.times.push(at);
    while (at - this.times[this.head]! >= this.windowMs) this.head++;
    this.peak = Math.max(this.peak, this.times.length - this.head);
    // Drop the expired front now and then, so a long-running sandbox keeps one window in memory.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

/** Traffic counts of one sandbox. */
export class TrafficCounter {
  private requests = 0;
  private rateLimited = 0;
  private all = new SlidingPeak(1000);
  private passed = new SlidingPeak(1000);
  private since: number;
  private held = 0;
  private heldWrites = 0;

  constructor(private readonly clock: () => number) {
    this.since = clock();
  }

  /** Count an API request as it arrives; `limited` when the rate-limit fault answers it 429. */
  record(limited: boolean): void {
    const now = this.clock();
    this.requests++;
    this.all.add(now);
    if (limited) this.rateLimited++;
    else this.passed.add(now);
  }

  /** Count a request as held by the latency fault until the returned function is called. */
  hold(method: string): () => void {
    const write = method !== 'GET';
    this.held++;
    if (write) this.heldWrites++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      if (write) this.heldWrites--;
    };
  }

  /** The counts so far. */
  view(): TrafficView {
    return { requests: this.requests, rate_limited: this.rateLimited, busiest_second: this.all.peak, busiest_second_passed: this.passed.peak, held_now: this.held, held_writes_now: this.heldWrites, since: new Date(this.since).toISOString() };
  }

  /** Start counting afresh. */
  reset(): TrafficView {
    this.requests = 0;
    this.rateLimited = 0;
    this.all = new SlidingPeak(1000);
    this.passed = new SlidingPeak(1000);
    this.since = this.clock();
    return this.view();
  }
}
