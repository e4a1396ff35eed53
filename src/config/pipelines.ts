/** A pipeline entry of the config: the pipeline definition plus when the daemon runs it. */
import { z } from 'zod';
import { cronSchema, timezoneSchema } from './schedule.js';

/** One pipeline with its schedule. */
export const pipelineEntrySchema = z.looseObject({
  name: z.string().min(1),
  /** Cron expression; absent = only on demand (CLI, dashboard). */
  schedule: cronSchema.optional(),
  /** Time zone of `schedule`. @default the top-level `timezone` */
  timezone: timezoneSchema.optional(),
});
