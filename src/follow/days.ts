/**
 * Placement days of the follow pass (pure): calendar arithmetic on YYYY-MM-DD, and the cost choice
 * per day. The shop has no change-date filter for orders, so a followed order is read again either
 * with its whole placement day (`date_from=D&date_to=D`, in pages) or alone by id; whichever takes
 * fewer requests wins, pages on a tie (a day read also sees orders of the day nobody follows yet).
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
