/**
 * The slots a cron schedule fires at, after a given moment: what "overdue" (src/pipeline/failing.ts)
 * counts. node-cron 4 answers "the next slots after now" only (`getNextRuns`); the slots after an
 * arbitrary moment come from the matcher behind it (`timeMatcher.getNextMatch`), which is not in
 * its typings. When a later node-cron no longer has it, the slots are found with its public
 * `match()`, second by second (minute by minute for a five-field expression), bounded.
 */
import { createTask } from 'node-cron';

interface Matcher {
  next(after: Date): Date | null;
}

const matchers = new Map<string, Matcher>();
/** The fallback's bound: a week of minutes, or a day and a half of seconds. */
const SCAN_STEPS = 10_080;

function matcherOf(expression: string, timezone: string | undefined): Matcher {
  const key = `${timezone ?? ''}\u0000${expression}`;
  const known = matchers.get(key);
  if (known) return known;
  const task = createTask(expression, () => undefined, timezone ? { timezone } : {});
  const inner = (task as unknown as { timeMatcher?: { getNextMatch?: (d: Date) => Date } }).timeMatcher;
  let matcher: Matcher;
  if (inner && typeof inner.getNextMatch === 'function') {
    const getNextMatch = inner.getNextMatch.bind(inner);
    matcher = { next: (after) => getNextMatch(after) };
  } else {
    const stepMs = expression.trim().split(/\s+/).length >= 6 ? 1000 : 60_000;
    matcher = {
      next(after) {
        let t = Math.floor(after.getTime() / stepMs) * stepMs + stepMs;
        for (let i = 0; i < SCAN_STEPS; i++, t += stepMs) if (task.match(new Date(t))) return new Date(t);
        return null;
      },
    };
  }
  // With the matcher in hand the task (never started) leaves node-cron's registry; the fallback keeps it for match().
  if (inner && typeof inner.getNextMatch === 'function') void task.destroy();
  matchers.set(key, matcher);
  return matcher;
}

/** Up to `count` slots of the schedule strictly after `after` and at or before `until`, oldest first. */
export function slotsBetween(expression: string, timezone: string | undefined, after: Date, until: Date, count: number): Date[] {
  const matcher = matcherOf(expression, timezone);
  const out: Date[] = [];
  let from = after;
  while (out.length < count) {
    const next = matcher.next(from);
    if (!next || next.getTime() > until.getTime() || next.getTime() <= from.getTime()) break;
    out.push(next);
    from = next;
  }
  return out;
}
