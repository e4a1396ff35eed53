/**
 * Read once, fan out: identical page queries of SQL sources in one process share one database round
 * trip. With many shops, each shop's pipeline reads the same ERP query (same connection, same SQL,
 * same cursor) in the same tick; the first reader asks the database and the others get its rows.
 *
 * What may be shared, and why it is safe: a reader joins a query that is still running, or reuses
 * its rows for up to `windowMs` after it answered, only when that query *started after the reader's
 * run began* (`ReadOptions.since`; without it, when the source was opened). Rows read at any moment
 * after a run began are rows that run could have read itself at that moment, so sharing never hands
 * a run an older view than it would have had on its own: a change committed before a run (a tick, a
 * wake-up) is never hidden from it. A run that began after the query started asks the database again,
 * and so does a reader asking again for an answer it already had. Only identical text and
 * parameters match; failures are not kept (each later reader tries again).
 *
 * The shared rows are frozen; each reader turns them into its own records (`jsonSafeRow` copies
 * every value), so no consumer sees another's changes. `shopsync_erp_queries_total{connection,
 * shared}` counts page reads that went to the database (`shared="false"`) and those served from
 * another reader's query (`shared="true"`).
 */
import type { Executor, Row } from './driver.js';

/** How a connection shares reads: `enabled: false` asks the database for every read. */
export interface ShareSettings {
  readonly enabled: boolean;
  /** How long answered rows stay reusable by runs that began before the query started. */
  readonly windowMs: number;
}

/** One page read: its rows and how long the database took (the same for every reader, so pages grow alike). */
export interface SharedRead {
  readonly rows: readonly Row[];
  readonly queryMs: number;
}

interface Entry {
  /** Tells this answer from a later one under the same key. */
  readonly id: number;
  readonly startedAt: number;
  settledAt?: number;
  readonly promise: Promise<SharedRead>;
}

const entries = new Map<string, Entry>();
/**
 * Answered pages kept per query (identity and SQL, any parameters), newest last, with their row
 * counts. Readers of one tick read in step, a few pages apart; keeping every answer of the window
 * instead held all of a fast read's rows for two seconds (a no-change re-read of 1M products ran
 * out of a 160 MB heap on them), and every single reader's rows outlived their use into the old
 * generation.
 */
const answered = new Map<string, { key: string; rows: number }[]>();
/**
 * Rows a query keeps answered for readers that are behind, beyond its newest page: 20 pages of 500
 * (fifty shops of one tick drift about that far apart: fewer pages cost them database reads),
 * whatever the page size, so the memory held does not grow with the page.
 */
export const KEPT_ROWS = 10_000;
/** …and at most this many pages (empty ones count no rows). */
const KEPT_PAGES_MAX = 64;
/** Epoch milliseconds with the fraction of `performance.now()`: runs say when they began on this clock (`ReadOptions.since`). */
const clock = (): number => performance.timeOrigin + performance.now();
/** The page size readers of one query (per connection identity) have grown to, and when a reader last asked (forgotten after the window: a tick's readers only). */
const sizes = new Map<string, { size: number; at: number }>();
const counts = new Map<string, { own: number; shared: number }>();

function count(connection: string, shared: boolean): void {
  const c = counts.get(connection) ?? { own: 0, shared: 0 };
  if (shared) c.shared++;
  else c.own++;
  counts.set(connection, c);
}

/** Page reads per connection so far in this process: `own` went to the database, `shared` were served from another reader's query. */
export function erpQueryCounts(): ReadonlyMap<string, { readonly own: number; readonly shared: number }> {
  return counts;
}

let entrySerial = 0;

/**
 * What forgets the answer `id` under `key` when its window ends. Made out here, by key and id: a
 * closure made beside the entry would hold the entry, and its rows, until the timer fired, long
 * after the map let go of them.
 */
function forgetter(key: string, id: number): () => void {
  return () => {
    if (entries.get(key)?.id === id) entries.delete(key);
  };
}

/** Keep the answered page `key` of `query` (`rows` rows), and forget the oldest beyond KEPT_ROWS (the newest page is always kept). */
function keep(query: string, key: string, rows: number): void {
  let pages = answered.get(query);
  if (!pages) answered.set(query, (pages = []));
  const at = pages.findIndex((p) => p.key === key);
  if (at >= 0) pages.splice(at, 1);
  pages.push({ key, rows });
  let kept = 0;
  for (const p of pages) kept += p.rows;
  while (pages.length > 1 && (kept - pages[pages.length - 1]!.rows > KEPT_ROWS || pages.length > KEPT_PAGES_MAX)) {
    const old = pages.shift()!;
    kept -= old.rows;
    const entry = entries.get(old.key);
    if (entry?.settledAt !== undefined) entries.delete(old.key);
  }
}

/** Parameters as a stable text (bigint and Date included), part of the share key. */
function paramText(params: readonly unknown[]): string {
  return JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Date ? `D${v.toISOString()}` : v));
}

/**
 * A reader of one source over `driver`: `read(sql, params)` shares identical reads of sources of the
 * same `identity` (the connection as resolved: driver, place, database; never only its name) that
 * started after this reader opened. `label` names the connection in the metric.
 */
export function sharedReader(
  driver: Executor,
  identity: string,
  label: string,
  settings: ShareSettings,
): { read(sql: string, params: readonly unknown[], since?: number): Promise<SharedRead>; agree(query: string, size: number, max: number): number } {
  const openedAt = clock();
  // A reader asking again for what it already got wants a newer answer (a source read twice): never its own again.
  const seen = new WeakSet<Entry>();
  return {
    /**
     * The page size to use for `query`: the largest any reader of it has grown to (at most `max`), so
     * a reader that started a page later, and timed its own first page differently, still asks for
     * the same pages as the others. Without sharing, `size` as it is.
     */
    agree(query, size, max) {
      if (!settings.enabled) return size;
      const key = `${identity}\u0000${query}`;
      const now = clock();
      const known = sizes.get(key);
      const current = known && now - known.at <= Math.max(settings.windowMs, 1000) ? known.size : 0;
      const agreed = Math.min(Math.max(size, current), max);
      sizes.set(key, { size: Math.max(agreed, current), at: now });
      return agreed;
    },
    /** `since`: when the run began (epoch ms, `ReadOptions.since`); reads that started after it may serve it. Default: when this reader was made. */
    async read(sql, params, since) {
      const key = settings.enabled ? `${identity}\u0000${sql}\u0000${paramText(params)}` : undefined;
      const now = clock();
      const found = key === undefined ? undefined : entries.get(key);
      if (found && !seen.has(found) && found.startedAt >= (since ?? openedAt) && (found.settledAt === undefined || now - found.settledAt <= settings.windowMs)) {
        seen.add(found);
        count(label, true);
        return found.promise;
      }
      count(label, false);
      const promise = driver.query(sql, params).then((rows) => {
        for (const row of rows) Object.freeze(row);
        return { rows: Object.freeze(rows), queryMs: clock() - now };
      });
      if (key === undefined) return promise;
      const entry: Entry = { id: ++entrySerial, startedAt: now, promise };
      seen.add(entry);
      entries.set(key, entry);
      const forget = forgetter(key, entry.id);
      promise.then(
        (read) => {
          entry.settledAt = clock();
          keep(`${identity}\u0000${sql}`, key, read.rows.length);
          // Unref'd: nothing waits on the clean-up of a kept answer.
          setTimeout(forget, settings.windowMs).unref();
        },
        forget,
      );
      return promise;
    },
  };
}
