/** "Did you mean …?": the one rule for how near a typo must be to its correction. */
import { closest, distance } from 'fastest-levenshtein';

/** The largest edit distance at which `name` still reads as a typo of a candidate: max(2, a third of the name). */
function allowedDistance(name: string): number {
  return Math.max(2, Math.ceil(name.length / 3));
}

/**
 * The candidate nearest to `name` when it is near enough to be a plausible typo (edit distance,
 * ignoring case, at most max(2, a third of the name)); undefined otherwise or without candidates.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  if (list.length === 0) return undefined;
  const best = closest(name, list);
  return distance(name.toLowerCase(), best.toLowerCase()) <= allowedDistance(name) ? best : undefined;
}

/** Options of `nearMatches`. */
export interface NearMatchOptions {
  /** At most this many matches. @default 5 */
  readonly limit?: number;
  /** The spelling of a candidate compared with the name (a table's name without its schema). @default the candidate */
  readonly spelling?: (candidate: string) => string;
}

/**
 * Every candidate near enough to `name` to be a plausible typo, by the same rule as `didYouMean`,
 * nearest first (candidates at the same distance keep their order), at most `limit`.
 */
export function nearMatches(name: string, candidates: Iterable<string>, options: NearMatchOptions = {}): string[] {
  const { limit = 5, spelling = (c: string) => c } = options;
  const wanted = name.toLowerCase();
  const allowed = allowedDistance(name);
  return [...candidates]
    .map((c) => ({ c, d: distance(wanted, spelling(c).toLowerCase()) }))
    .filter((x) => x.d <= allowed)
    .sort((a, b) => a.d - b.d)
    .slice(0, limit)
    .map((x) => x.c);
}

/**
 * The candidates nearest to `name` (all of them when several are equally near), by the same rule
 * as `didYouMean`; empty when none is near enough. For suggestions where a tie is real: `list` is
 * both `dlq list` and `jobs list`.
 */
export function nearestMatches<T>(name: string, candidates: Iterable<T>, spelling: (candidate: T) => string): T[] {
  const wanted = name.toLowerCase();
  const allowed = allowedDistance(name);
  const scored = [...candidates].map((c) => ({ c, d: distance(wanted, spelling(c).toLowerCase()) })).filter((x) => x.d <= allowed);
  const best = Math.min(...scored.map((x) => x.d));
  return scored.filter((x) => x.d === best).map((x) => x.c);
}
