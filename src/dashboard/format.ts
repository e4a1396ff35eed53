/** Formatting of numbers, durations and times for the dashboard's pages. */
import { formatDateTime } from '../util/time.js';
import { html, type SafeHtml } from './html.js';

/** An integer with thousands separators ("12,345"); a dash for missing values. */
export function formatCount(n: number | undefined | null): string {
  if (n === undefined || n === null || Number.isNaN(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/** A duration in the largest sensible units ("850 ms", "12.3 s", "4 min 05 s", "1 h 02 min"). */
export function formatDuration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null || ms < 0 || Number.isNaN(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const totalS = Math.floor(s);
  const min = Math.floor(totalS / 60);
  if (min < 60) return `${min} min ${String(totalS % 60).padStart(2, '0')} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** "in 5 min", "3 h ago", "just now" — relative to `now`. */
export function formatRelative(date: Date, now: Date = new Date()): string {
  const diff = date.getTime() - now.getTime();
  const abs = Math.abs(diff);
  if (abs < 10_000) return 'just now';
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      return diff < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
    }
  }
  return 'just now';
}

/** Absolute time in UTC, to the second ("2026-11-22 02:36:33 UTC"). */
export function formatAbsolute(date: Date): string {
  return `${formatDateTime(date)} UTC`;
}

/**
 * A time shown both ways: absolute (readable, sortable) and relative (at a glance). The client
 * script refreshes the relative part from `datetime` so an open tab stays right.
 */
export function timeCell(date: Date | undefined | null, now: Date = new Date()): SafeHtml {
  if (!date || Number.isNaN(date.getTime())) return html`<span class="muted">–</span>`;
  return html`<time datetime="${date.toISOString()}" title="${formatAbsolute(date)}"><span class="abs">${formatAbsolute(date)}</span> <span class="rel" data-rel>${formatRelative(date, now)}</span></time>`;
}

/** Parse a date from a query-string value (ISO date, ISO date-time or `datetime-local`); undefined when empty or invalid. */
export function parseDateParam(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
