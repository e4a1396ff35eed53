/** "Did you mean …?": the one rule for how near a typo must be to its correction. */
import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `name` when it is near enough to be a plausible typo (edit distance,
 * ignoring case, at most max(2, a third of the name)); undefined otherwise or without candidates.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  if (list.length === 0) return undefined;
  const best = closest(name, list);
  return distance(name.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.ceil(name.length / 3)) ? best : undefined;
}
