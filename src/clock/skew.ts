/**
 * How far this process's clock is from the state database's and from each shop's. Both are read
 * over a round trip: the other clock's reading lies somewhere inside it, so the estimate is taken
 * at its midpoint and is good to half the round trip. A shop's `Date` header has whole seconds (it
 * truncates), so a shop reading is good to a second at best: within that, "within 1 s" is all
 * there is to say, and 0 is what the gauge shows.
 */
import pg from 'pg';
import { systemClock, describeDuration, type ClockSources } from './watchdog.js';

/** One comparison with another clock. */
export interface SkewReading {
  /** This clock less the other, in ms (positive: this one is ahead). 0 when within `resolutionMs`. */
  readonly skewMs: number;
  /** How exact the reading is (± ms). */
  readonly resolutionMs: number;
}

/** Read the other clock (Unix ms) over a round trip and compare it with this one at the round trip's midpoint. */
export async function measureSkew(readOther: () => Promise<{ readonly atMs: number; readonly resolutionMs?: number }>, clock: ClockSources = systemClock): Promise<SkewReading> {
  const wall = clock.wallMs();
  const mono = clock.monotonicMs();
  const other = await readOther();
  const roundTrip = clock.monotonicMs() - mono;
  const resolutionMs = Math.ceil(roundTrip / 2 + (other.resolutionMs ?? 0));
  const skew = Math.round(wall + roundTrip / 2 - other.atMs);
  return { skewMs: Math.abs(skew) <= resolutionMs ? 0 : skew, resolutionMs };
}

/** Compare with the state database's clock (PostgreSQL `clock_timestamp()`), on a connection of its own. */
export async function stateSkew(url: string, clock: ClockSources = systemClock): Promise<SkewReading> {
  const client = new pg.Client({ connectionString: url, application_name: 'shopsync-clock', connectionTimeoutMillis: 10_000 });
  // Connected before the reading starts: the round trip measured is the query's, not the connect's.
  await client.connect();
  try {
    return await measureSkew(async () => {
      const r = await client.query<{ ms: string }>(`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms`);
      return { atMs: Number(r.rows[0]?.ms) };
    }, clock);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A shop's clock from the `Date` header of any answer to `url` (no token sent: a 401 carries the
 * header too). The header truncates to the second, so the shop's clock lies in [D, D + 1 s): its
 * middle, ± 500 ms.
 */
export function shopSkew(url: string, clock: ClockSources = systemClock): Promise<SkewReading> {
  return measureSkew(async () => {
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    const date = res.headers.get('date');
    const at = date ? Date.parse(date) : NaN;
    if (!Number.isFinite(at)) throw new Error(`${url} answered HTTP ${res.status} without a Date header`);
    return dateHeaderClock(at);
  }, clock);
}

/** The shop's clock as a `Date` header says it (whole seconds): the middle of its second, ± 500 ms. */
export function dateHeaderClock(headerMs: number): { atMs: number; resolutionMs: number } {
  return { atMs: headerMs + 500, resolutionMs: 500 };
}

/**
 * The skew against a shop from an answer's `Date` header read at `nowMs`, `wireMs` after the
 * request left: the shop stamped the header somewhere between the request's arrival and the
 * answer's departure, so the reading is good to half the header's second plus half the wire time.
 * (`doctor` once compared the header with the time after the answer alone and called a shop on
 * the same machine "1 s ahead" when its answer took a while: issue 45.)
 */
export function shopDateSkew(date: string, nowMs: number, wireMs: number): SkewReading | undefined {
  const header = Date.parse(date);
  if (!Number.isFinite(header)) return undefined;
  const shop = dateHeaderClock(header);
  const resolutionMs = Math.ceil(shop.resolutionMs + wireMs / 2);
  const skew = Math.round(nowMs - wireMs / 2 - shop.atMs);
  return { skewMs: Math.abs(skew) <= resolutionMs ? 0 : skew, resolutionMs };
}

/** Below this a skew is noise to a reader (and below a `Date` header's resolution): "within 1 s". */
export const SKEW_NOISE_MS = 1000;

/**
 * "3 s ahead of the shop's", "within 2 s of the shop's": a reading in words (`whose`: "the shop's").
 * A skew within the reading's uncertainty (`resolutionMs`) or below a second is no skew to tell:
 * "within N s", N the uncertainty in whole seconds (at least 1).
 */
export function describeSkew(reading: SkewReading, whose: string): string {
  const skew = Math.abs(reading.skewMs);
  if (skew <= reading.resolutionMs || skew < SKEW_NOISE_MS) {
    const bound = Math.max(SKEW_NOISE_MS, Math.ceil(reading.resolutionMs / 1000) * 1000);
    return `within ${describeDuration(bound)} of ${whose}`;
  }
  return `${describeDuration(skew)} ${reading.skewMs > 0 ? 'ahead of' : 'behind'} ${whose}`;
}
