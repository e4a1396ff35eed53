/**
 * Starts the triggers of every pipeline that has `trigger:` and hands their wake-ups to the
 * scheduler (which coalesces them). Each kind lives in a file of its own; a kind whose source
 * cannot have it (NOTIFY on a file drop) is refused at start with the setting to change.
 */
import type { Logger } from '../log.js';
import type { Runtime } from '../ops/runtime.js';
import type { Config, PipelineConfig } from '../config/index.js';
import { SyncError } from '../errors.js';
import type { TriggerConfig } from './schema.js';
import type { TriggerHandle, TriggerStatus, WakeCause } from './types.js';
import { wakeupCounter } from './metrics.js';
import { watchTriggerStates } from './up.js';
import { notifyTrigger } from './notify/index.js';
import { watchTrigger } from './watch.js';
import { hookTrigger } from './hook.js';
import { pollTrigger } from './poll.js';

export { triggerSchema, notifyChannel, type TriggerConfig } from './schema.js';
export type { TriggerHandle, TriggerStatus, Wake, WakeCause } from './types.js';

/** What a trigger kind is started with. */
export interface TriggerStart {
  readonly pipeline: PipelineConfig;
  readonly trigger: TriggerConfig;
  readonly runtime: Runtime;
  readonly wake: (cause: WakeCause, detail?: string) => void;
  readonly logger: Logger;
}

/** One kind of trigger: starts when its key is set in `trigger:`. */
export interface TriggerKind {
  readonly key: keyof TriggerConfig;
  start(ctx: TriggerStart): Promise<TriggerHandle>;
  /** Throw the ConfigError `start` would for a pipeline whose source cannot have this trigger (from the config alone). */
  check?(pipeline: PipelineConfig, config: Config): void;
}

/** Every kind shopsync has; each file adds its own entry. */
const KINDS: readonly TriggerKind[] = [
  notifyTrigger,
  watchTrigger,
  hookTrigger,
  pollTrigger,
];

/** A trigger the daemon would refuse at start, found from the config alone. */
export interface TriggerProblem {
  readonly pipeline: string;
  readonly kind: keyof TriggerConfig;
  readonly code: string;
  readonly message: string;
}

/**
 * Every trigger whose pipeline's source cannot have it (NOTIFY on a non-PostgreSQL source, `watch`
 * on a non-file source, `poll` on a non-SQL source): each kind's own start-time check, so
 * `shopsync config check` and `doctor` say exactly what the daemon would refuse.
 */
export function triggerProblems(config: Config): TriggerProblem[] {
  const out: TriggerProblem[] = [];
  for (const pipeline of config.pipelines) {
    const trigger = pipeline.trigger;
    if (!trigger) continue;
    for (const kind of KINDS) {
      if (trigger[kind.key] === undefined || !kind.check) continue;
      try {
        kind.check(pipeline, config);
      } catch (err) {
        if (!(err instanceof SyncError)) throw err;
        out.push({ pipeline: pipeline.name, kind: kind.key, code: err.code, message: err.message });
      }
    }
  }
  return out;
}

/** The running triggers of a daemon. */
export interface Triggers {
  status(): TriggerStatus[];
  close(): Promise<void>;
}

/** Start every configured trigger; `wake(pipeline, cause)` is the scheduler's (or replica's) coalescing entry. */
export async function startTriggers(runtime: Runtime, wake: (pipeline: string, cause: WakeCause, detail?: string) => void, logger: Logger): Promise<Triggers> {
  const log = logger.child({ component: 'triggers' });
  const handles: TriggerHandle[] = [];
  const wakeups = wakeupCounter(runtime.metrics.registry);
  try {
    for (const pipeline of runtime.loaded.config.pipelines) {
      const trigger = pipeline.trigger;
      if (!trigger) continue;
      for (const kind of KINDS) {
        if (trigger[kind.key] === undefined || kind.key === 'debounce') continue;
        const pipelineLog = log.child({ pipeline: pipeline.name, trigger: kind.key });
        handles.push(await kind.start({ pipeline, trigger, runtime, logger: pipelineLog, wake: (cause, detail) => { wakeups.inc({ shop: pipeline.shop, pipeline: pipeline.name, cause }); wake(pipeline.name, cause, detail); } }));
      }
    }
  } catch (err) {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
    throw err;
  }
  // `shopsync_trigger_up` and each trigger's "since": a trigger that is down must not go unseen.
  const states = watchTriggerStates(handles, runtime.metrics.registry);
  return {
    status: () => states.status(),
    async close() {
      states.stop();
      await Promise.all(handles.map((h) => h.close().catch((err: unknown) => log.warn({ err }, 'closing a trigger failed'))));
    },
  };
}
