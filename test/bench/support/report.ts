/** Small helpers for benchmark output: sizes from BENCH_QUICK, medians, number formatting, markdown tables. */

/** `BENCH_QUICK=1`: smaller sizes so the whole `npm run bench` takes a few minutes (figures say so). */
export const QUICK = process.env.BENCH_QUICK === '1';

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** 12,345 */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Records per second from records and milliseconds. */
export function perSecond(records: number, ms: number): number {
  return (records / ms) * 1000;
}

/** A markdown table (docs/benchmarks.md copies it as printed). */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

/** Peak resident memory of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}
