/** The clock's metric families: steps the watchdog noticed, slots they made the schedule miss, skew against the state and the shops. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ClockStep } from './watchdog.js';

/** What the daemon feeds into the clock's metrics. */
export interface ClockMetrics {
  step(step: ClockStep): void;
  missed(pipeline: string, slots: number): void;
  /** This process's clock less the other's, in seconds (positive: this one ahead). */
  skew(against: 'state' | 'shop', seconds: number, shop?: string): void;
}

/** Register the clock's metrics on a registry. */
export function registerClockMetrics(registry: Registry): ClockMetrics {
  const steps = new Counter({
    name: 'shopsync_clock_steps_total',
    help: 'Steps of the wall clock this process noticed (its monotonic clock disagreed by a second or more); each re-armed the schedule',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  steps.inc({ direction: 'back' }, 0);
  steps.inc({ direction: 'forward' }, 0);
  const stepSeconds = new Counter({
    name: 'shopsync_clock_step_seconds_total',
    help: 'Size of the wall-clock steps this process noticed, in seconds, by direction',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  const missed = new Counter({
    name: 'shopsync_missed_ticks_total',
    help: 'Scheduled slots a step forward of the clock (or a stalled process) passed over; they ran once, coalesced, as the latest of them',
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  const skew = new Gauge({
    name: 'shopsync_clock_skew_seconds',
    help: "This process's clock less the state database's (against=\"state\") or a shop's Date header (against=\"shop\", 1 s resolution: 0 within a second), last measured",
    labelNames: ['against', 'shop'] as const,
    registers: [registry],
  });
  return {
    step(s) {
      steps.inc({ direction: s.direction });
      stepSeconds.inc({ direction: s.direction }, Math.abs(s.stepMs) / 1000);
    },
    missed(pipeline, slots) {
      missed.inc({ pipeline }, slots);
    },
    skew(against, seconds, shop) {
      skew.set(shop === undefined ? { against } : { against, shop }, seconds);
    },
  };
}
