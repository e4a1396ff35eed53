/**
 * The words a run's counts are said in, one table for the CLI's text and the dashboard: what a run
 * did, or in a dry run what it would do. A dry run said "created 185" and meant "would create"
 * (issue 45). JSON keeps its keys (`counts.created` …) whatever the mode: only the words change.
 */
import type { RunCounts } from '../state/index.js';

/** The counts said in words (read, unreadable and warnings say the same in both modes: the dry run really read them). */
export type CountWords = Readonly<Record<'read' | 'created' | 'updated' | 'unchanged' | 'failed' | 'deadLettered' | 'deactivated' | 'deleted', string>>;

const DONE: CountWords = { read: 'read', created: 'created', updated: 'updated', unchanged: 'unchanged', failed: 'failed', deadLettered: 'dead-lettered', deactivated: 'deactivated', deleted: 'deleted' };
const WOULD: CountWords = { read: 'read', created: 'would create', updated: 'would update', unchanged: 'unchanged', failed: 'would fail', deadLettered: 'would dead-letter', deactivated: 'would deactivate', deleted: 'would delete' };

/** The words of a run of `mode` (`dry-run`: "would create"; anything else: "created"). */
export function countWords(mode: string): CountWords {
  return mode === 'dry-run' ? WOULD : DONE;
}

/** `read 10, would create 3, …`: the counts of the CLI's summary line, in their order. */
export function countsInWords(mode: string, c: Pick<RunCounts, 'read' | 'created' | 'updated' | 'unchanged' | 'failed' | 'deadLettered'>): string[] {
  const w = countWords(mode);
  return [`${w.read} ${c.read}`, `${w.created} ${c.created}`, `${w.updated} ${c.updated}`, `${w.unchanged} ${c.unchanged}`, `${w.failed} ${c.failed}`, `${w.deadLettered} ${c.deadLettered}`];
}
