/**
 * `shopsync_wakeups_total{shop,pipeline,cause}`: how often triggers woke each pipeline. Registered
 * on the runtime's registry by the triggers themselves, so a process without triggers has no series.
 */
import { Counter, type Registry } from 'prom-client';

const NAME = 'shopsync_wakeups_total';

/** The wake-up counter on `registry` (the same one when asked twice: the registry holds one per name). */
export function wakeupCounter(registry: Registry): Counter<'shop' | 'pipeline' | 'cause'> {
  const existing = registry.getSingleMetric(NAME);
  if (existing) return existing as Counter<'shop' | 'pipeline' | 'cause'>;
  return new Counter({
    name: NAME,
    help: 'Wake-ups of a pipeline by its triggers, by cause (notify, reconnect: the catch-up after a listener (re)connected, file, hook, poll); coalesced into runs by the scheduler',
    labelNames: ['shop', 'pipeline', 'cause'] as const,
    registers: [registry],
  });
}
