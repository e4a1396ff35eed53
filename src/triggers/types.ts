/**
 * Triggers wake a pipeline when its source changed, instead of waiting for the next tick. A
 * trigger never carries data: it only says "run soon"; the run reads from its cursor as always, so
 * a lost or doubled wake-up costs latency at worst, never a record.
 */
import type { Logger } from '../log.js';

/** What woke a pipeline (logged, counted in `shopsync_wakeups_total{cause}`). */
export type WakeCause = 'notify' | 'file' | 'hook' | 'poll' | 'reconnect';

/** Ask for a run of the trigger's pipeline; cheap and safe to call a thousand times a second. */
export type Wake = (cause: WakeCause, detail?: string) => void;

/** What one trigger reports (status, dashboard). */
export interface TriggerStatus {
  readonly pipeline: string;
  readonly kind: 'notify' | 'watch' | 'hook' | 'poll';
  /** `listening`/`watching`/`polling`: armed; `reconnecting`: down, retrying (the safety-net schedule still runs). */
  readonly state: 'listening' | 'watching' | 'polling' | 'armed' | 'reconnecting';
  readonly detail?: string;
  readonly lastWakeAt?: string;
  /** Since when it is in `state`, as the daemon saw it (src/triggers/up.ts). */
  readonly since?: string;
}

/** A started trigger. */
export interface TriggerHandle {
  status(): TriggerStatus;
  close(): Promise<void>;
}

/** What a trigger is started with. */
export interface TriggerContext {
  readonly pipeline: string;
  readonly wake: Wake;
  readonly logger: Logger;
}
