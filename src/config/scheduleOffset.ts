/**
 * A shop's `scheduleOffsetSeconds` applied to a template's cron expression: fifty shops on one
 * five-minute schedule start spread over the minutes instead of in the same second. The offset
 * becomes the seconds field (node-cron's sixth field) and, from a minute on, moves the minute field.
 */

/** Why an offset cannot be applied to an expression (the loader names the shop file's line). */
export class ScheduleOffsetError extends Error {}

/** `expr` shifted by `seconds` (0–3599); throws ScheduleOffsetError when the minute field cannot move without crossing the hour. */
export function offsetSchedule(expr: string, seconds: number): string {
  if (seconds === 0) return expr;
  const parts = expr.trim().split(/\s+/);
  const withSeconds = parts.length === 6;
  if (parts.length !== 5 && !withSeconds) return expr; // The cron check names a malformed expression.
  const [second, minute, ...rest] = withSeconds ? parts : ['0', ...parts];
  const sec = shiftNumbers(second!, seconds % 60, 60);
  if (sec === undefined) throw new ScheduleOffsetError(`cannot add ${seconds % 60} s to the seconds field "${second}" of "${expr}" within the minute; write this shop's schedule under templates: in its file`);
  const minutes = Math.floor(seconds / 60);
  const min = minutes === 0 ? minute! : shiftMinute(minute!, minutes);
  if (min === undefined) {
    throw new ScheduleOffsetError(`cannot move the minute field "${minute}" of "${expr}" by ${minutes} min without crossing the hour; use an offset under 60 s, a minute field like */5 or 0,30, or write this shop's schedule under templates: in its file`);
  }
  return [sec, min, ...rest].join(' ');
}

/** `*` stays (every minute), `*\/n` starts later (`2-59/5`), numbers and lists move when none passes 59. */
function shiftMinute(field: string, minutes: number): string | undefined {
  if (field === '*') return field;
  const step = /^\*\/(\d+)$/.exec(field);
  if (step) {
    const n = Number(step[1]);
    return `${minutes % n}-59/${n}`;
  }
  return shiftNumbers(field, minutes, 60);
}

/** Each number of a plain list (`0,30`) moved by `by`; undefined when one would pass `size - 1` or the field is not a list of numbers. */
function shiftNumbers(field: string, by: number, size: number): string | undefined {
  if (!/^\d+(,\d+)*$/.test(field)) return undefined;
  const moved = field.split(',').map((n) => Number(n) + by);
  return moved.every((n) => n < size) ? moved.join(',') : undefined;
}
