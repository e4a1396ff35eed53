/**
 * How pipeline work is named in the job engine. Every run of a pipeline is a job of one task; the
 * pipeline's lane is a named queue (the engine runs one job of a queue at a time, on any replica)
 * and a job key per lane coalesces requests that arrive while a job is already waiting.
 */
import type { LoadedConfig } from '../config/index.js';

/** The one task identifier: run a pipeline (payload: `RunJobPayload`). */
export const RUN_TASK = 'pipeline-run';

/** The queue of a pipeline's lane: jobs of one queue never run at the same time. */
export function laneQueue(pipeline: string): string {
  return `lane:${pipeline}`;
}

/** The pipeline a lane queue belongs to (undefined for a queue shopsync did not make). */
export function pipelineOfQueue(queue: string | null): string | undefined {
  return queue?.startsWith('lane:') ? queue.slice('lane:'.length) : undefined;
}

/** The flag every run job of a shop carries: a replica whose share of workers that shop has used up skips its jobs (`forbiddenFlags`). */
export function shopFlag(shop: string): string {
  return `shop:${shop}`;
}

/** The job key of a lane's next run: at most one such job waits per lane. */
export function runJobKey(pipeline: string): string {
  return `run:${pipeline}`;
}

/** The job engine's schema: configured, or beside the state's (`<state schema>_jobs`). */
export function jobsSchemaOf(loaded: LoadedConfig): string {
  const state = loaded.state;
  if (state.kind !== 'postgres') throw new Error('the job engine needs a PostgreSQL state');
  return loaded.config.replicas.jobsSchema ?? `${state.schema}_jobs`;
}
