/**
 * The source's safe watermark: an incremental run asks the ERP database for its oldest open
 * transaction before it reads, and its cursor never moves past that transaction's start, so a row
 * the transaction commits later is still ahead of the cursor. What the database said is kept in the
 * state (lane `source-watermark`) for `status`, the dashboard, `/metrics` and the alert on a
 * transaction that stays open too long.
 */
import { compareTimestamps, isNumberCursor, looksLikeTime, parseTimestamp, writeLike } from '../erp/cursorFormat.js';
import type { CursorPosition, Source, SourceWatermark } from '../erp/types.js';
import type { Logger } from '../log.js';
import type { CursorWrite, StoredCursor } from '../state/index.js';

/** The cursor lane that holds what the source said about its open transactions (not a read lane). */
export const WATERMARK_LANE = 'source-watermark';

/** Pipelines already told that their database hides its transactions (said once per process). */
const told = new Set<string>();

/**
 * Ask the source, just before reading. A source that cannot answer (no privilege, an error) leaves
 * the lookback alone in charge: said once in the log, never a failed run.
 */
export async function readWatermark(source: Source, pipeline: string, logger: Logger): Promise<SourceWatermark | undefined> {
  if (!source.watermark) return undefined;
  let wm: SourceWatermark;
  try {
    wm = await source.watermark();
  } catch (err) {
    wm = { by: 'lookback', checkedAt: new Date().toISOString(), reason: `the database could not say which transactions are open (${err instanceof Error ? err.message : String(err)}); only the lookback covers late commits` };
  }
  if (wm.by === 'lookback' && !told.has(pipeline)) {
    told.add(pipeline);
    logger.warn({ reason: wm.reason }, 'the cursor cannot wait for open ERP transactions; the lookback alone covers rows committed late (shopsync doctor says how to fix)');
  }
  return wm;
}

/**
 * The cap a watermark puts on checkpoints: a position at or after the oldest open transaction's
 * start becomes that start with no key (its ties are read again), **written like the row's own
 * value** (cursorFormat.ts): the read after it compares `column >= cap`, as text on a TEXT column,
 * so an ISO `…T19:59:02` cap on a column of `… 19:59:19` values would skip the rest of that day.
 * Fraction digits never exceed the row's (a DATETIME(3) column compares `.063` below a `.063871`
 * bound). A date or time in a form that cannot be learnt (`01.12.2026 19:59`) gets no cap written
 * in a foreign form: while a transaction is open the cursor holds at `held`, the last value it had
 * (a row's own value; none on a first run: nothing is stored and the next run reads from the
 * start). Numbers (sequences) and text that is no time (ids) are never capped: the watermark is a
 * time. Same object for the same cap, so "did the cursor move" stays an identity check.
 */
export function capOf(wm: SourceWatermark | undefined, held?: CursorPosition): ((p: CursorPosition) => CursorPosition | undefined) | undefined {
  const bound = wm?.bound;
  if (!bound) return undefined;
  const zoned = parseTimestamp(bound.zoned);
  const naive = parseTimestamp(bound.naive);
  const open = wm?.openSince !== undefined;
  const caps = new Map<string, CursorPosition>();
  return (p) => {
    if (p.value === null || isNumberCursor(p.value)) return p;
    const t = parseTimestamp(p.value);
    if (!t) return open && looksLikeTime(p.value) ? held : p;
    const b = t.format.zone ? zoned : naive;
    if (!b) return p;
    const text = writeLike(b, t.format);
    const cap = parseTimestamp(text);
    if (!cap || compareTimestamps(t, cap) < 0) return p;
    let position = caps.get(text);
    if (!position) caps.set(text, (position = { value: text, key: null }));
    return position;
  };
}

/** What the database said, as the state keeps it for status, dashboard, metrics and alerts. */
export function watermarkRow(wm: SourceWatermark): CursorWrite {
  return {
    value: wm.bound?.zoned ?? null,
    key: null,
    boundary: { by: wm.by, checkedAt: wm.checkedAt, ...(wm.openSince !== undefined ? { openSince: wm.openSince } : {}), ...(wm.reason !== undefined ? { reason: wm.reason } : {}) },
  };
}

/** A pipeline's watermark as shown: how it is known, the bound, and the transaction holding it. */
export interface WatermarkView {
  readonly by: SourceWatermark['by'];
  /** The cursor may not move past this (ISO), when the database told. */
  readonly bound: string | null;
  readonly checkedAt: string;
  /** The oldest open transaction began then, when one was open. */
  readonly openSince: string | null;
  /** How long that transaction had been open when last checked. */
  readonly heldForSeconds: number;
  readonly reason: string | null;
}

/** The stored watermark lane as shown; undefined for a pipeline whose source never told one. */
export function watermarkView(lane: StoredCursor | undefined): WatermarkView | undefined {
  if (!lane) return undefined;
  const b = lane.boundary ?? {};
  const text = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : null);
  const by = text('by');
  if (by !== 'transactions' && by !== 'single-writer' && by !== 'lookback') return undefined;
  const checkedAt = text('checkedAt') ?? lane.updatedAt;
  const openSince = text('openSince');
  const held = openSince === null ? 0 : Math.max(0, Math.round((Date.parse(checkedAt) - Date.parse(openSince)) / 1000));
  return { by, bound: typeof lane.value === 'string' ? lane.value : null, checkedAt, openSince, heldForSeconds: held, reason: text('reason') };
}

/** One line for a person: `held back by a transaction open since 12:03:11 UTC, 4 min`, or how late commits are covered. */
export function watermarkText(view: WatermarkView | undefined): string {
  if (!view) return 'no watermark (the lookback covers late commits)';
  if (view.by === 'single-writer') return 'one writer at a time (SQLite): nothing commits behind the cursor';
  if (view.by === 'lookback') return `lookback only: ${view.reason ?? 'the database does not show its open transactions'}`;
  if (view.openSince === null) return 'no open ERP transaction holds the cursor';
  const since = view.openSince.slice(11, 19);
  const held = view.heldForSeconds >= 120 ? `${Math.floor(view.heldForSeconds / 60)} min` : `${view.heldForSeconds} s`;
  return `held back by a transaction open since ${since} UTC, ${held}`;
}
