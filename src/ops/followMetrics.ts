/**
 * What /metrics shows of following orders after checkout (issue 44): per pipeline with `follow:`,
 * the orders still followed and how many days ago the oldest of them was placed, read from the
 * state when scraped (both gauges share one read per scrape). A pipeline that follows nothing
 * yet shows 0 and 0, so an alert on the series sees it from the start.
 */
import { Gauge, type Registry } from 'prom-client';
import type { FollowFigures } from './followFigures.js';

/** What the gauges read. */
export interface FollowGaugeOptions {
  /** Pipelines with `follow:`. */
  readonly pipelines: readonly string[];
  /** The shop of a pipeline (the `shop` label). */
  readonly shopOf: (pipeline: string) => string;
  /** Their figures (`followFigures`), read when scraped. */
  readonly figures: () => Promise<Readonly<Record<string, FollowFigures>>>;
}

/** Register `shopsync_followed_open` and `shopsync_followed_oldest_days` on the registry. */
export function registerFollowGauges(registry: Registry, options: FollowGaugeOptions): void {
  let read: Promise<Readonly<Record<string, FollowFigures>>> | undefined;
  // Cleared after the scrape's turn, so the next scrape reads the state again.
  const now = (): Promise<Readonly<Record<string, FollowFigures>>> => {
    read ??= options.figures().finally(() => setTimeout(() => (read = undefined), 0));
    return read;
  };
  const gauge = (name: string, help: string, pick: (f: FollowFigures | undefined) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['shop', 'pipeline'] as const,
      registers: [registry],
      async collect() {
        if (options.pipelines.length === 0) return;
        const figures = await now();
        this.reset();
        for (const p of options.pipelines) this.set({ shop: options.shopOf(p), pipeline: p }, pick(figures[p]));
      },
    });
  gauge('shopsync_followed_open', 'Orders a pull with follow: still reads again after checkout (not yet in a final status, nor older than maxAgeDays, nor gone from the shop)', (f) => f?.open ?? 0);
  gauge('shopsync_followed_oldest_days', 'Days since the oldest order still followed was placed (0: none); it stays below follow.maxAgeDays while the follow passes run', (f) => f?.oldestAgeDays ?? 0);
}
