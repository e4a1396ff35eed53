/**
 * The slots of a cron expression: node-cron's own parser and matcher (so `shopsync.yaml` keeps
 * node-cron's syntax, seconds and zones), asked for "the next slot after t" for any t. node-cron's
 * public API only answers "after now" (`getNextRuns`); the scheduler needs arbitrary instants to
 * count the slots a clock step or a stalled process skipped, so it reads the task's matcher. The
 * task is never started: no node-cron timer runs (they arm "slot − now" once and sleep through a
 * backward clock step, which is why the scheduler keeps its own loop).
 */
import { createTask } from 'node-cron';
import { StateError } from '../errors.js';

/** The instants a cron expression matches. */
export interface CronSlots {
  readonly expression: string;
  /** The first slot strictly after `after` (whole seconds). */
  nextAfter(after: Date): Date;
}

interface Matcher {
  getNextMatch(date: Date): Date;
}

/**
 * The zone a schedule runs in, named: the configured one, else the machine's as Intl resolves it
 * (node-cron's default). The scheduler's log and `status --json` both say this, so they never
 * disagree ("local" in one, "UTC" in the other: issue 45).
 */
export function scheduleZone(timezone?: string): string {
  return timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The slots of `expression` in `timezone` (default: the machine's zone). */
export function cronSlots(expression: string, timezone?: string): CronSlots {
  const task = createTask(expression, () => undefined, timezone ? { timezone } : {});
  const matcher = (task as unknown as { timeMatcher?: Partial<Matcher> }).timeMatcher;
  void task.destroy();
  if (typeof matcher?.getNextMatch !== 'function') {
    throw new StateError('CRON_MATCHER_MISSING', 'node-cron no longer exposes its time matcher (task.timeMatcher.getNextMatch); pin node-cron 4.x or port src/scheduler/slots.ts to its new API');
  }
  const m = matcher as Matcher;
  return { expression, nextAfter: (after) => m.getNextMatch(after) };
}

/** Most slots walked to count what a step or a stall skipped; beyond, the count says "at least". */
export const MAX_COUNTED_SLOTS = 1000;

/** The latest slot at or before `now`, from the armed slot `from` (≤ now), and how many slots from `from` on it passes over. */
export function latestDue(slots: CronSlots, from: Date, now: Date): { slot: Date; skipped: number; capped: boolean } {
  let slot = from;
  let skipped = 0;
  for (;;) {
    const n = slots.nextAfter(slot);
    if (n.getTime() > now.getTime()) return { slot, skipped, capped: false };
    if (skipped >= MAX_COUNTED_SLOTS) break;
    slot = n;
    skipped += 1;
  }
  // Too many to walk (an every-second schedule over a two-hour step): find the latest from two minutes before now.
  let tail = slots.nextAfter(new Date(now.getTime() - 120_000));
  if (tail.getTime() > now.getTime()) return { slot, skipped, capped: true };
  for (let n = slots.nextAfter(tail); n.getTime() <= now.getTime(); n = slots.nextAfter(n)) tail = n;
  return { slot: tail, skipped, capped: true };
}

const cached = new Map<string, CronSlots>();

/** Up to `count` slots of the schedule strictly after `after` and at or before `until`, oldest first (what "overdue" counts, src/pipeline/failing.ts). */
export function slotsBetween(expression: string, timezone: string | undefined, after: Date, until: Date, count: number): Date[] {
  const key = `${timezone ?? ''}\u0000${expression}`;
  let slots = cached.get(key);
  if (!slots) {
    slots = cronSlots(expression, timezone);
    cached.set(key, slots);
  }
  const out: Date[] = [];
  let from = after;
  while (out.length < count) {
    const next = slots.nextAfter(from);
    if (next.getTime() > until.getTime() || next.getTime() <= from.getTime()) break;
    out.push(next);
    from = next;
  }
  return out;
}
