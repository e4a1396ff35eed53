/** The `shopsync_jobs` gauge: jobs of the whole deployment by state, read from the engine at scrape time. */
import { Gauge, type Registry } from 'prom-client';
import type { JobState } from './store.js';

/** The gauge's states: `failing` = given up after maxAttempts (the engine's "permanently failed"). */
const LABELS: Readonly<Record<JobState, string>> = { queued: 'queued', running: 'running', retrying: 'retrying', failed: 'failing' };

/** Register `shopsync_jobs{state}` on `registry`. */
export function registerJobMetrics(registry: Registry, counts: () => Promise<Record<JobState, number>>): void {
  new Gauge({
    name: 'shopsync_jobs',
    help: 'Pipeline run jobs of all replicas by state: queued, running, retrying (failed, waiting for its retry), failing (failed maxAttempts times; alert on > 0)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const n = await counts();
      for (const [state, label] of Object.entries(LABELS) as [JobState, string][]) this.set({ state: label }, n[state]);
    },
  });
}
