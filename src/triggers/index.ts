/**
 * Starts the triggers of every pipeline that has `trigger:` and hands their wake-ups to the
 * scheduler (which coalesces them). Each kind lives in a file of its own; a kind whose source
 * cannot have it (NOTIFY on a file drop) is refused at start with the setting to change.
 */
import type { Logger } from '../log.js';
import type { Runtime } from '../ops/runtime.js';
import type { PipelineConfig } from '../config/index.js';
import type { TriggerConfig } from './schema.js';
import type { TriggerHandle, TriggerStatus, WakeCause } from './types.js';
import { wakeupCounter } from './metrics.js';
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
}

/** Every kind shopsync has; each file adds its own entry. */
const KINDS: readonly TriggerKind[] = [
  notifyTrigger,
  watchTrigger,
  hookTrigger,
  pollTrigger,
];

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
  return {
    status: () => handles.map((h) => h.status()),
    async close() {
      await Promise.all(handles.map((h) => h.close().catch((err: unknown) => log.warn({ err }, 'closing a trigger failed'))));
    },
  };
}
