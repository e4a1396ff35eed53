/** Plain-text rendering of command output (JSON output goes through `JSON.stringify`). */
import type { RunSummary } from '../pipeline/index.js';
import { countsInWords } from '../pipeline/countWords.js';
import { formatDateTime } from '../util/time.js';
import { EXIT, type ExitCode } from './exit.js';

/** The exit code a finished run stands for. */
export function exitCodeOfRun(summary: { readonly status: string; readonly error?: { readonly code: string } | undefined }): ExitCode {
  if (summary.status === 'succeeded') return EXIT.ok;
  if (summary.error?.code === 'RUN_ABANDONED') return EXIT.abandoned;
  if (summary.status === 'aborted') return EXIT.interrupted;
  return EXIT.failed;
}

/** The settings a hint names for one pipeline's shop, as the config writes them (`shop.token`, `shops.at.token`, with file:line and variable when known). */
export interface HintSettings {
  readonly credentials: string;
  readonly url: string;
}

/** `products sync succeeded in 1.2 s: read 10, created 3, …`; a dry run's `… would create 3, would update 1, …`. `settings`: the pipeline's shop settings a hint names (default: the single `shop:` block's). */
export function summaryLine(s: RunSummary, settings?: HintSettings): string {
  const c = s.counts;
  const parts = countsInWords(s.mode, c);
  // Said apart, so a file read only in part never looks like a clean import.
  if (c.unreadable) parts.push(`unreadable ${c.unreadable} (see dlq list)`);
  // Guarded fields left as the shop has them wait for a person: said apart, like dead letters.
  if (c.conflicts) parts.push(`${s.mode === 'dry-run' ? 'would hold' : 'held'} ${c.conflicts} guarded field(s) (see shopsync conflicts list)`);
  if (c.warnings) parts.push(`warnings ${c.warnings}`);
  const run = s.runId ? ` (run ${s.runId})` : '';
  const hint = s.error ? hintFor(s.error.code, settings) : undefined;
  const err = s.error ? `\n  error: [${s.error.code}] ${s.error.message}${hint ? `\n  hint: ${hint}` : ''}` : '';
  return `${s.pipeline} ${s.mode} ${s.status}${run} in ${(s.durationMs / 1000).toFixed(1)} s: ${parts.join(', ')}${err}`;
}

/** How to fix the failures a new user meets first (bad token, wrong URL, missing scope), by stable code. */
export function hintFor(code: string, settings: HintSettings = { credentials: 'shop.token (or shop.oauth)', url: 'shop.baseUrl' }): string | undefined {
  const { credentials, url } = settings;
  switch (code) {
    case 'UNAUTHORIZED':
      return `the shop refused the credentials: check ${credentials} in the config and the environment variable or file it reads`;
    case 'INSUFFICIENT_SCOPE':
      return "the shop's token lacks a scope this pipeline needs (named in the error details): grant it in the shop, or use a token that has it";
    case 'NETWORK_ERROR':
      return `the shop did not answer: check ${url} (the API root, e.g. https://shop.example.com/api) and that the shop is reachable from here`;
    case 'METHOD_NOT_FOUND':
      return `the shop does not know this route: check that ${url} is the API root, the part before /export/json/… and /import/json/…`;
    case 'RUN_ABANDONED':
      return 'run the same command again: it continues from the last checkpoint. Please report this with the log (LOG_LEVEL=debug): a wait inside shopsync or a connector held nothing that kept the process alive';
    case 'SHOP_UNAVAILABLE':
      return 'the shop answered 5xx after every retry: try again later, or raise shop.retry.retries';
    case 'SHOP_CIRCUIT_OPEN':
      return "the shop's circuit breaker is open (the shop kept failing): nothing was sent and nothing is lost; the breaker probes the shop at the time named and closes when it answers (docs/operations.md, Circuit breaker)";
    default:
      return undefined;
  }
}

/** Render rows as an aligned text table. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A compact local date-time, or '-' */
export function when(t: string | Date | null | undefined): string {
  if (!t) return '-';
  const d = typeof t === 'string' ? new Date(t) : t;
  return Number.isNaN(d.getTime()) ? String(t) : `${formatDateTime(d)}Z`;
}
