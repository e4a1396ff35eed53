/**
 * Change latency: how long an ERP change took to reach the shop, from the record's change
 * timestamp (its cursor value, where the cursor is a timestamp) to the moment the shop answered
 * the write that carried it. Kept per run as a compact histogram (bucket counts) in the run's row,
 * so any process reading the state (another replica's dashboard) can sum the last hour's runs and
 * estimate p50/p95; the same observations feed `shopsync_change_latency_seconds` in /metrics.
 */
import { z } from 'zod';
import { cursorTime } from '../erp/sql/lookback.js';
import type { CursorValue, SourceWatermark } from '../erp/types.js';
import type { StateStore } from '../state/index.js';

/** Upper bounds of the buckets in seconds (the last, implicit one is +Inf): 0.1 s to an hour. */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120, 300, 900, 3600]);

/**
 * When the change of a record happened, as Unix milliseconds, read from its cursor value: a zoned
 * timestamp is its instant; a naive one (no zone) is read as the ERP's local time, `naiveOffsetMs`
 * east of UTC (what its watermark query said), or as UTC when the ERP did not say (SQLite's clock
 * functions write UTC). Numbers (sequences, versions) and bare dates say no moment: undefined.
 */
export function changeTimeOf(value: CursorValue, naiveOffsetMs = 0): number | undefined {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const t = cursorTime(value);
  if (!t || Number.isNaN(t.ms)) return undefined;
  return t.zoned ? t.ms : t.ms - naiveOffsetMs;
}

/**
 * The change time a delivery stores with its record's hash (`sent_hashes.changed_at`): its cursor's
 * timestamp read without zone correction, so every version of one record (same column, same form)
 * compares alike whatever zone a run learnt. Undefined where the cursor says no moment.
 */
export function deliveredStamp(value: CursorValue): number | undefined {
  return changeTimeOf(value, 0);
}

/**
 * Whether a delivery carries a new source version: its change time is later than that of the newest
 * version delivered before (`deliveredChange`, none = new). A row the lookback read again and sent
 * again, a retry of a delivered record, or the older of two rows sharing a key is not: its age is
 * no change latency.
 */
export function isNewVersion(stamp: number, deliveredChange: number | undefined): boolean {
  return deliveredChange === undefined || stamp > deliveredChange;
}

/**
 * The ERP's zone as its watermark told it: the difference between the database's local time
 * without zone and the same instant with zone, rounded to the quarter hour. Undefined when the
 * source told no bound (files, SQLite, a PostgreSQL user without pg_read_all_stats).
 */
export function naiveOffsetOf(wm: SourceWatermark | undefined): number | undefined {
  const bound = wm?.bound;
  if (!bound) return undefined;
  const naive = cursorTime(bound.naive);
  const zoned = cursorTime(bound.zoned);
  if (!naive || !zoned || naive.zoned || !zoned.zoned) return undefined;
  const quarter = 15 * 60_000;
  return Math.round((naive.ms - zoned.ms) / quarter) * quarter;
}

/** The stored form of a histogram (a run's `latency_json`). */
export const latencyJsonSchema = z.object({
  /** Bucket upper bounds in seconds, as they were when the counts were taken. */
  le: z.array(z.number()),
  /** Observations per bucket, one more than `le` (the last: above every bound). */
  c: z.array(z.number().int().min(0)),
  /** Sum of the observed seconds. */
  sum: z.number(),
  /** Largest observed value in seconds. */
  max: z.number(),
  /** Observations below zero (the ERP's clock ahead of ours), counted as 0. */
  skew: z.number().int().min(0).default(0),
});

/** A latency histogram as stored. */
export type LatencyJson = z.infer<typeof latencyJsonSchema>;

/** Bucket counts of change latencies (one run's, or several runs' summed). */
export class LatencyHistogram {
  readonly counts: number[];
  sum = 0;
  max = 0;
  skew = 0;

  constructor(readonly bounds: readonly number[] = LATENCY_BUCKETS) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  /** Observations so far. */
  get count(): number {
    return this.counts.reduce((a, b) => a + b, 0);
  }

  /** Count one latency; a negative one (clock skew) counts as 0 and as skew. Returns the value counted. */
  observe(seconds: number): number {
    let v = seconds;
    if (v < 0) {
      this.skew++;
      v = 0;
    }
    let i = this.bounds.findIndex((b) => v <= b);
    if (i < 0) i = this.bounds.length;
    this.counts[i]!++;
    this.sum += v;
    this.max = Math.max(this.max, v);
    return v;
  }

  /** Add another histogram's counts (same bounds; a histogram of other bounds is re-bucketed by its bounds' upper ends). */
  add(other: LatencyHistogram | LatencyJson): this {
    const bounds = other instanceof LatencyHistogram ? other.bounds : other.le;
    const counts = other instanceof LatencyHistogram ? other.counts : other.c;
    counts.forEach((n, i) => {
      if (n === 0) return;
      const upper = bounds[i] ?? Number.POSITIVE_INFINITY;
      let j = this.bounds.findIndex((b) => upper <= b);
      if (j < 0) j = this.bounds.length;
      this.counts[j]! += n;
    });
    this.sum += other.sum;
    this.max = Math.max(this.max, other.max);
    this.skew += other.skew ?? 0;
    return this;
  }

  /**
   * The q-quantile (0.5, 0.95) estimated as Prometheus' histogram_quantile does: linear within
   * the bucket that holds it (so it is exact to that bucket's width), never above the largest value
   * observed. Undefined without observations.
   */
  quantile(q: number): number | undefined {
    const total = this.count;
    if (total === 0) return undefined;
    const rank = q * total;
    let below = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const n = this.counts[i]!;
      if (n > 0 && below + n >= rank) {
        const lower = i === 0 ? 0 : this.bounds[i - 1]!;
        const upper = i < this.bounds.length ? this.bounds[i]! : this.max;
        return Math.min(this.max, lower + (upper - lower) * ((rank - below) / n));
      }
      below += n;
    }
    return this.max;
  }

  /** The stored form. */
  toJSON(): LatencyJson {
    return { le: [...this.bounds], c: [...this.counts], sum: Math.round(this.sum * 1000) / 1000, max: Math.round(this.max * 1000) / 1000, skew: this.skew };
  }

  /** Read a stored histogram; undefined for text that is not one (never fails a page). */
  static parse(text: string | null | undefined): LatencyJson | undefined {
    if (text === null || text === undefined || text === '') return undefined;
    try {
      const parsed = latencyJsonSchema.safeParse(JSON.parse(text));
      return parsed.success && parsed.data.c.length === parsed.data.le.length + 1 ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

/** p50 and p95 of the changes one pipeline delivered, summed over runs; what the dashboard shows. */
export interface LatencySummary {
  readonly pipeline: string;
  /** Changes observed. */
  readonly changes: number;
  readonly p50Seconds: number;
  readonly p95Seconds: number;
  readonly maxSeconds: number;
  /** Of those, changes stamped after the shop confirmed them (the ERP's clock ahead). */
  readonly skewed: number;
}

/** Sum stored run histograms per pipeline and estimate their p50/p95. */
export function summarizeLatency(rows: readonly { readonly pipeline: string; readonly latency: LatencyJson }[]): Map<string, LatencySummary> {
  const byPipeline = new Map<string, LatencyHistogram>();
  for (const row of rows) {
    let h = byPipeline.get(row.pipeline);
    if (!h) byPipeline.set(row.pipeline, (h = new LatencyHistogram()));
    h.add(row.latency);
  }
  const out = new Map<string, LatencySummary>();
  for (const [pipeline, h] of byPipeline) {
    if (h.count === 0) continue;
    out.set(pipeline, { pipeline, changes: h.count, p50Seconds: h.quantile(0.5)!, p95Seconds: h.quantile(0.95)!, maxSeconds: h.max, skewed: h.skew });
  }
  return out;
}

/** The window the dashboard's p50/p95 cover: runs started in the last hour. */
export const LATENCY_WINDOW_MS = 3_600_000;

/** p50/p95 per pipeline of the runs started within `windowMs` before `now`, read from the state (every replica's runs). */
export async function recentLatency(state: StateStore, now: number = Date.now(), windowMs: number = LATENCY_WINDOW_MS): Promise<Map<string, LatencySummary>> {
  const rows = await state.runs.latencySince(now - windowMs);
  return summarizeLatency(rows.flatMap((r) => {
    const latency = LatencyHistogram.parse(r.latencyJson);
    return latency ? [{ pipeline: r.pipeline, latency }] : [];
  }));
}
