/**
 * Backfill progress: a cli-progress bar with counts, rate and ETA on a terminal, plain log lines
 * otherwise. Progress is the last checkpoint's position inside the range when cursor values
 * are numbers or dates; otherwise only counts and rate are shown (a source does not know its
 * total up front).
 */
import { Presets, SingleBar } from 'cli-progress';
import type { CursorValue } from '../erp/types.js';
import type { Logger } from '../log.js';
import type { SyncEvents } from '../pipeline/index.js';

/** Options of `trackProgress`. */
export interface ProgressOptions {
  readonly pipeline: string;
  readonly events: SyncEvents;
  readonly from: CursorValue;
  readonly to: CursorValue;
  readonly logger: Logger;
  /** Draw a bar here (a TTY); undefined = log lines. */
  readonly terminal?: NodeJS.WritableStream;
  /** Seconds between log lines without a terminal. @default 5 */
  readonly logEverySec?: number;
}

/** Numeric value of a cursor for progress (numbers, or dates as ms). */
function numeric(v: CursorValue): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/**
 * Follow a backfill; call the returned function to stop (it draws the final state). Pass
 * `finished: true` when the run read the whole range: the last record rarely sits at the range's
 * end, and a completed backfill should not end its report at 88 %.
 */
export function trackProgress(o: ProgressOptions): (finished?: boolean) => void {
  const lo = numeric(o.from);
  const hi = numeric(o.to);
  const measurable = lo !== undefined && hi !== undefined && hi > lo;
  const started = Date.now();
  const counts = { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  let fraction = 0;
  const rate = () => (counts.records / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1);
  const payload = () => ({ ...counts, rate: rate(), pipeline: o.pipeline });

  const bar = o.terminal
    ? new SingleBar(
        {
          stream: o.terminal,
          hideCursor: true,
          etaBuffer: 50,
          format: measurable
            ? 'backfill {pipeline} [{bar}] {percentage}% | {records} records | {rate}/s | ETA {eta_formatted} | created {created} updated {updated} unchanged {unchanged} failed {failed}'
            : 'backfill {pipeline} | {records} records | {rate}/s | {duration_formatted} | created {created} updated {updated} unchanged {unchanged} failed {failed}',
        },
        Presets.shades_classic,
      )
    : undefined;
  bar?.start(1000, 0, payload());
  let lastLog = 0;
  const report = (force = false) => {
    if (bar) {
      bar.update(Math.round(fraction * 1000), payload());
      return;
    }
    const now = Date.now();
    if (!force && now - lastLog < (o.logEverySec ?? 5) * 1000) return;
    lastLog = now;
    o.logger.info({ pipeline: o.pipeline, ...counts, ratePerSec: Number(rate()), ...(measurable ? { percent: Math.round(fraction * 1000) / 10 } : {}) }, 'backfill progress');
  };
  const offs = [
    o.events.on('record-settled', (e) => {
      if (e.pipeline !== o.pipeline) return;
      counts.records++;
      if (e.outcome === 'created' || e.outcome === 'updated' || e.outcome === 'unchanged') counts[e.outcome]++;
      else if (e.outcome === 'failed' || e.outcome === 'dead-lettered') counts.failed++;
      report();
    }),
    o.events.on('checkpoint', (e) => {
      if (e.pipeline !== o.pipeline || !measurable) return;
      const v = numeric(e.position.value);
      if (v !== undefined) fraction = Math.min(1, Math.max(fraction, (v - lo) / (hi - lo)));
      report();
    }),
  ];
  return (finished = false) => {
    for (const off of offs) off();
    if (finished && measurable) fraction = 1;
    report(true);
    bar?.stop();
  };
}
