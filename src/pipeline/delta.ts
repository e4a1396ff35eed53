/**
 * Delta filter values of pulls: what to ask the shop for, and how far the stored cursor may go.
 * The shop's dates are wall-clock texts (`Y-m-d H:i:s`) in its own time zone.
 */

/** The filter value for a stored delta value: the day (YYYY-MM-DD) or the timestamp, moved back by the overlap. */
export function deltaFilterValue(stored: string, granularity: 'day' | 'timestamp', overlapDays: number): string {
  const day = stored.slice(0, 10);
  if (granularity === 'day' || overlapDays > 0) {
    if (overlapDays === 0) return day;
    const d = new Date(`${day}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - overlapDays);
    const back = d.toISOString().slice(0, 10);
    return granularity === 'day' ? back : `${back} 00:00:00`;
  }
  return stored;
}

/** Allowance for a shop clock running behind ours. */
const SKEW_MS = 10 * 60_000;
/** Without the shop's time zone, assume the earliest one (UTC−12): the ceiling must never pass the shop's "now". */
const UNKNOWN_ZONE_MS = 12 * 3_600_000;
/** The latest time zone (UTC+14). */
const LATEST_ZONE_MS = 14 * 3_600_000;

/**
 * The highest delta value a run may store: the shop's wall clock at the run's start, less a skew
 * allowance. A record dated later (bad data, a clock running ahead) is delivered, but storing its
 * date would hide every record created before that date arrives.
 */
export function deltaCeiling(startedAt: Date, shopTimeZone?: string): string {
  const at = startedAt.getTime() - SKEW_MS - (shopTimeZone === undefined ? UNKNOWN_ZONE_MS : 0);
  const now = wallClock(new Date(at), shopTimeZone ?? 'UTC');
  // In the hour before the clocks go back, the shop stamps times already passed once (02:00-03:00
  // again): the ceiling must not lie above them, or a cursor stored now hides them. An hour later's
  // wall clock less an hour is that lower time then, and the wall clock itself at any other time.
  const later = shiftWall(wallClock(new Date(at + HOUR_MS), shopTimeZone ?? 'UTC'), -HOUR_MS);
  return later < now ? later : now;
}

const HOUR_MS = 3_600_000;

/** A `Y-m-d H:i:s` wall-clock text moved by `ms`, as plain calendar arithmetic. */
function shiftWall(wall: string, ms: number): string {
  return new Date(Date.parse(`${wall.replace(' ', 'T')}Z`) + ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A delta value after this lies in the future whatever the shop's zone (for the warning only). */
export function deltaFuture(startedAt: Date, shopTimeZone?: string): string {
  return wallClock(new Date(startedAt.getTime() + SKEW_MS + (shopTimeZone === undefined ? LATEST_ZONE_MS : 0)), shopTimeZone ?? 'UTC');
}

/** `Y-m-d H:i:s` of an instant in a time zone. */
function wallClock(at: Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}
