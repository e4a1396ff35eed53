/**
 * The daemon's skew readings for /metrics and its log: the state database's clock every minute
 * (PostgreSQL only: a SQLite state is a file on this machine's clock), and each shop's clock from
 * the `Date` header of the answers its client gets anyway (at most one reading a minute per shop;
 * no request of its own, so nothing is taken from the shop's budget or its fault schedule).
 * A skew beyond a minute is logged once, until it is back below.
 */
import { performance } from 'node:perf_hooks';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { ClockMetrics } from './metrics.js';
import { describeSkew, shopDateSkew, stateSkew, type SkewReading } from './skew.js';

/** Skew beyond this is logged as a warning. */
const WARN_SKEW_MS = 60_000;
/** How often each clock is read. */
const EVERY_MS = 60_000;

/** Options of `startSkewProbe`. */
export interface SkewProbeOptions {
  /** The PostgreSQL state's URL (absent: SQLite, no state reading). */
  readonly stateUrl?: string;
  readonly metrics: ClockMetrics;
  readonly logger: Logger;
}

/** The running probe. */
export interface SkewProbe {
  /** A shop answered with this `Date` header, `wireMs` after the request left (read at most once a minute per shop). */
  shopAnswered(shop: string, date: string, wireMs: number): void;
  /** This clock stepped: read every other clock again now (the next shop answer, the state at once). */
  clockStepped(): void;
  close(): void;
}

/** The skew against a shop from an answer's `Date` header (kept here for the probe's readers; it lives in ./skew.ts, which `doctor` reads too). */
export { shopDateSkew } from './skew.js';

/** Start reading the state's clock; feed shop answers to `shopAnswered`. */
export function startSkewProbe(options: SkewProbeOptions): SkewProbe {
  const log = options.logger.child({ component: 'clock' });
  const warned = new Set<string>();
  const lastShopRead = new Map<string, number>();
  const record = (key: string, whose: string, reading: SkewReading) => {
    if (Math.abs(reading.skewMs) > WARN_SKEW_MS) {
      if (!warned.has(key)) log.warn({ against: key, skewMs: reading.skewMs }, `this machine's clock is ${describeSkew(reading, whose)}; sync the clocks (NTP)`);
      warned.add(key);
    } else warned.delete(key);
  };
  const readState = async () => {
    if (!options.stateUrl) return;
    try {
      const reading = await stateSkew(options.stateUrl);
      options.metrics.skew('state', reading.skewMs / 1000);
      record('state', "the state database's", reading);
    } catch (err) {
      log.debug({ err: errorLine(err) }, "could not read the state database's clock");
    }
  };
  void readState();
  // Housekeeping: the daemon's server and schedule keep the process alive, not this.
  const timer = setInterval(() => void readState(), EVERY_MS);
  timer.unref();
  return {
    shopAnswered(shop, date, wireMs) {
      const now = performance.now();
      const last = lastShopRead.get(shop);
      if (last !== undefined && now - last < EVERY_MS) return;
      const reading = shopDateSkew(date, Date.now(), wireMs);
      if (!reading) return;
      lastShopRead.set(shop, now);
      options.metrics.skew('shop', reading.skewMs / 1000, shop);
      record(`shop ${shop}`, `shop ${shop}'s`, reading);
    },
    clockStepped() {
      lastShopRead.clear();
      void readState();
    },
    close() {
      clearInterval(timer);
    },
  };
}
