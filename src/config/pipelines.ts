/** A pipeline entry of the config: the pipeline definition plus when the daemon runs it. */
import { pipelineSchema } from '../pipeline/schema.js';
import { cronSchema, timezoneSchema } from './schedule.js';

/** One pipeline with its schedule; `schedule` and `timezone` are checked here so a typo fails at load, not at 3 a.m. */
export const pipelineEntrySchema = pipelineSchema.safeExtend({
  /** Cron expression; absent = only on demand (CLI, dashboard). */
  schedule: cronSchema.optional(),
  /** Time zone of `schedule`. @default the top-level `timezone` */
  timezone: timezoneSchema.optional(),
});
