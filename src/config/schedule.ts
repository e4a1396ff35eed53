/** Cron expressions and time zones as they appear in the config. */
import { validateDetailed } from 'node-cron';
import { z } from 'zod';

/** A node-cron expression (5 fields, or 6 with seconds first). */
export const cronSchema = z.string().superRefine((expr, ctx) => {
  const v = validateDetailed(expr);
  if (!v.valid) {
    const why = v.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
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
