/** A pipeline entry of the config: the pipeline definition plus when the daemon runs it. */
import { z } from 'zod';
import { pipelineSchema } from '../pipeline/schema.js';
import { cronSchema, timezoneSchema } from './schedule.js';

/** One pipeline with its schedule; `schedule` and `timezone` are checked here so a typo fails at load, not at 3 a.m. */
export const pipelineEntrySchema = pipelineSchema.safeExtend({
  /** Cron expression; absent = only on demand (CLI, dashboard). */
  schedule: cronSchema.optional(),
  /** Time zone of `schedule`. @default the top-level `timezone` */
  timezone: timezoneSchema.optional(),
  /** The template this pipeline was expanded from (set by the loader, templates.ts); absent for a pipeline written out. */
  template: z.string().optional(),
  /**
   * Values of `${shop.…}` in the pipeline's mapping file (`$shop` in its expressions): the shop's
   * `vars:`, then these. The loader adds `name` (the shop's name). @default the shop's vars
   */
  vars: z.record(z.string(), z.unknown()).default({}),
});
