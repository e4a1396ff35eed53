/** Cron expressions and time zones as they appear in the config. */
import { validateDetailed } from 'node-cron';
import { z } from 'zod';

/** Fields of a 6-field expression and how many values each has (a 5-field one lacks the seconds). */
const FIELDS: readonly (readonly [string, number])[] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day of month', 31],
  ['month', 12],
  ['weekday', 7],
];

/**
 * Steps at least as large as their field: node-cron accepts a minute step of 61 as "minute 0", an
 * hourly run where the author meant something else. One problem per such field.
 */
function oversizedSteps(expr: string): string[] {
  const parts = expr.trim().split(/\s+/);
  const fields = parts.length === 5 ? FIELDS.slice(1) : FIELDS;
  return parts.flatMap((part, i) => {
    const [name, count] = fields[i] ?? ['', Infinity];
    return part.split(',').flatMap((item) => {
      const step = /\/(\d+)$/.exec(item);
      return step && Number(step[1]) >= count ? [`${name}: step ${step[1]} in "${item}" is not below ${count}, so it matches only once`] : [];
    });
  });
}

/** A node-cron expression (5 fields, or 6 with seconds first). */
export const cronSchema = z.string().superRefine((expr, ctx) => {
  const v = validateDetailed(expr);
  const errors = v.valid ? oversizedSteps(expr) : v.errors.map((e) => `${e.field}: ${e.message}`);
  if (errors.length > 0) {
    const why = errors.join('; ');
    ctx.addIssue({ code: 'custom', message: `expected a cron expression like "*/5 * * * *" (minute hour day month weekday), got "${expr}"${why ? ` (${why})` : ''}` });
  }
});

/** An IANA time zone name such as Europe/Berlin. */
export const timezoneSchema = z.string().superRefine((tz, ctx) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected an IANA time zone such as Europe/Berlin or UTC, got "${tz}"` });
  }
});
