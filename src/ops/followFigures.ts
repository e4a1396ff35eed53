/**
 * What the dashboard, /metrics and `shopsync status` show of a pipeline's follow (issue 44, orders
 * after checkout): the state's summary (open and done rows, the oldest open order, the last change
 * delivered) and the oldest's age in whole days, read from the state when asked, so every process
 * shows the same figures whichever replica ran the pass.
 */
import type { FollowStore, FollowSummary } from '../follow/types.js';

const DAY_MS = 86_400_000;

/** A pipeline's follow as shown: the summary, and how many days ago the oldest open order was placed. */
export interface FollowFigures extends FollowSummary {
  /** Whole days from the oldest open order's placement day to today (UTC); absent when none is open. */
  readonly oldestAgeDays?: number;
}

/**
 * Whole days from a placement day (`YYYY-MM-DD`, the shop's own calendar day) to `now`'s UTC day.
 * The shop's day has no zone, so this can be off by one around midnight; never below 0.
 */
export function followAgeDays(placedDay: string, now: Date): number {
  const placed = Date.parse(`${placedDay.slice(0, 10)}T00:00:00Z`);
  if (!Number.isFinite(placed)) return 0;
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  return Math.max(0, Math.round((today - placed) / DAY_MS));
}

/** The figures of one pipeline. */
export async function followFiguresOf(state: { readonly followed: FollowStore }, pipeline: string, now: Date = new Date()): Promise<FollowFigures> {
  const summary = await state.followed.summary(pipeline);
  return { ...summary, ...(summary.oldest ? { oldestAgeDays: followAgeDays(summary.oldest.placedDay, now) } : {}) };
}

/** The figures of each of these pipelines (those with `follow:`), by name. */
export async function followFigures(state: { readonly followed: FollowStore }, pipelines: readonly string[], now: Date = new Date()): Promise<Record<string, FollowFigures>> {
  const entries = await Promise.all([...new Set(pipelines)].map(async (p) => [p, await followFiguresOf(state, p, now)] as const));
  return Object.fromEntries(entries);
}
