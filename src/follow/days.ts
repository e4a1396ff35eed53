/**
 * Placement days of the follow pass (pure): calendar arithmetic on YYYY-MM-DD, and the cost choice
 * per day. The shop has no change-date filter for orders, so a followed order is read again either
 * with its whole placement day (`date_from=D&date_to=D`, in pages) or alone by id; whichever takes
 * fewer requests wins, pages on a tie (a day read also sees orders of the day nobody follows yet).
 * Consecutive days read in pages are read as one range when that saves requests (`planReads`).
 */
import type { FollowDay } from './types.js';

/** `day` moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Every day from `from` (inclusive) to `to` (exclusive), oldest first. */
export function daysFrom(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d < to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** How a pass reads one day: requests of each way, and the cheaper one. */
export interface DayRead {
  readonly day: string;
  readonly how: 'pages' | 'ids';
  /** Requests the chosen way takes (at least: a day that grew takes more pages). */
  readonly requests: number;
}

/** The cheaper way to read a day's open records: ceil(total / pageSize) pages against one request per open record. */
export function chooseRead(day: FollowDay, pageSize: number): DayRead {
  const pages = Math.max(1, Math.ceil(day.total / pageSize));
  return pages <= day.open.length ? { day: day.day, how: 'pages', requests: pages } : { day: day.day, how: 'ids', requests: day.open.length };
}

/**
 * One read of a pass: a run of consecutive placement days in pages (`date_from=from&date_to=to`;
 * a single day is a run of one), or one day's open records by id. `open` are the keys the read
 * is for; a range read returns every order of its days, so any open key of them it does not
 * return is deleted.
 */
export type PassRead =
  | { readonly how: 'range'; readonly from: string; readonly to: string; readonly days: readonly string[]; readonly requests: number; readonly open: readonly string[] }
  | { readonly how: 'ids'; readonly day: string; readonly requests: number; readonly open: readonly string[] };

/**
 * The pass's reads, oldest first: each day the cheaper way (`chooseRead`); then a run of consecutive
 * calendar days all read in pages becomes one range read when ceil(sum of totals / pageSize) is
 * fewer requests than the days apart (sum of ceil per day: each day rounds its last page up). A run
 * that saves nothing stays days apart (smaller answers, same cost). Days read by id stay as they are.
 */
export function planReads(days: readonly FollowDay[], pageSize: number): PassRead[] {
  const out: PassRead[] = [];
  let run: { day: FollowDay; requests: number }[] = [];
  const close = (): void => {
    if (run.length === 0) return;
    const apart = run.reduce((n, r) => n + r.requests, 0);
    const together = Math.max(1, Math.ceil(run.reduce((n, r) => n + r.day.total, 0) / pageSize));
    if (run.length > 1 && together < apart) {
      out.push({ how: 'range', from: run[0]!.day.day, to: run.at(-1)!.day.day, days: run.map((r) => r.day.day), requests: together, open: run.flatMap((r) => r.day.open) });
    } else {
      for (const r of run) out.push({ how: 'range', from: r.day.day, to: r.day.day, days: [r.day.day], requests: r.requests, open: r.day.open });
    }
    run = [];
  };
  for (const day of [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))) {
    const read = chooseRead(day, pageSize);
    if (read.how === 'ids') {
      close();
      out.push({ how: 'ids', day: day.day, requests: read.requests, open: day.open });
      continue;
    }
    if (run.length > 0 && addDays(run.at(-1)!.day.day, 1) !== day.day) close();
    run.push({ day, requests: read.requests });
  }
  close();
  return out;
}

/** Open orders that only wait for a final status (`follow.settled`), and the days left to read without them. */
export interface SettledSplit {
  /** Days with open orders not settled; `open` holds those only, `total` is the day's as before. */
  readonly days: FollowDay[];
  /** Settled open keys, and the day the oldest of them was placed (the status reads' `date_from`). */
  readonly settled: readonly string[];
  readonly oldestDay?: string;
}

/** Take the settled open orders (`isSettled` by key) out of the day reads: a day whose open orders are all settled is not read. */
export function splitSettled(days: readonly FollowDay[], isSettled: (key: string) => boolean): SettledSplit {
  const left: FollowDay[] = [];
  const settled: string[] = [];
  let oldestDay: string | undefined;
  for (const d of days) {
    const open = d.open.filter((k) => !isSettled(k));
    if (open.length < d.open.length) {
      settled.push(...d.open.filter(isSettled));
      if (oldestDay === undefined || d.day < oldestDay) oldestDay = d.day;
    }
    if (open.length > 0) left.push({ ...d, open });
  }
  return { days: left, settled, ...(oldestDay !== undefined ? { oldestDay } : {}) };
}
