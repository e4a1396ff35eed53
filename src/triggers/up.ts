/**
 * Whether each trigger is up, for people and alert rules: `shopsync_trigger_up{pipeline,kind}` is 1
 * while a trigger is armed (listening, watching, polling, or a hook that takes requests) and 0 while
 * it is reconnecting. A trigger that is down fails quietly by design (the safety-net schedule still
 * runs, docs/triggers.md), so without this gauge changes would only arrive late and nobody would
 * know why. Also remembers since when each trigger is in its state ("reconnecting since 12:03"):
 * looked at every few seconds and at every read, so that time is at most `SAMPLE_MS` late.
 */
import { Gauge, type Registry } from 'prom-client';
import type { TriggerHandle, TriggerStatus } from './types.js';

const NAME = 'shopsync_trigger_up';
/** How often the triggers' states are looked at between reads (the "since" of a change is at most this late). */
const SAMPLE_MS = 5_000;

/** The triggers' states with their `since`, and the gauge; `stop()` ends both. */
export interface TriggerStates {
  status(): TriggerStatus[];
  stop(): void;
}

/** Follow the handles' states and register `shopsync_trigger_up` on `registry` (replacing an earlier daemon's in the same process). */
export function watchTriggerStates(handles: readonly TriggerHandle[], registry: Registry, now: () => number = Date.now): TriggerStates {
  const seen = new Map<TriggerHandle, { state: TriggerStatus['state']; since: number }>();
  const look = (): TriggerStatus[] =>
    handles.map((h) => {
      const status = h.status();
      let entry = seen.get(h);
      if (!entry || entry.state !== status.state) seen.set(h, (entry = { state: status.state, since: now() }));
      return { ...status, since: new Date(entry.since).toISOString() };
    });
  look();
  const timer = setInterval(look, SAMPLE_MS);
  // Only bookkeeping: the triggers themselves keep the daemon alive.
  timer.unref();
  if (registry.getSingleMetric(NAME)) registry.removeSingleMetric(NAME);
  const gauge = new Gauge({
    name: NAME,
    help: 'Whether a pipeline\'s trigger is up: 1 armed (listening, watching, polling, hook), 0 reconnecting (down and retrying; a safety-net schedule still runs)',
    labelNames: ['pipeline', 'kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of look()) this.set({ pipeline: s.pipeline, kind: s.kind }, s.state === 'reconnecting' ? 0 : 1);
    },
  });
  return {
    status: look,
    stop() {
      clearInterval(timer);
      // A stopped daemon's triggers report nothing rather than their last state.
      if (registry.getSingleMetric(NAME) === gauge) registry.removeSingleMetric(NAME);
    },
  };
}
