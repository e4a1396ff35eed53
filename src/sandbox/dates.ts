/** The shop's date and time texts: 'YYYY-MM-DD HH:MM:SS' and 'YYYY-MM-DD', always UTC. */

export { formatDateTime } from '../util/time.js';

/** Parse the shop's 'YYYY-MM-DD HH:MM:SS' (or a date) as UTC. */
export function parseDateTime(text: string): Date {
  const iso = text.length === 10 ? `${text}T00:00:00Z` : `${text.replace(' ', 'T')}Z`;
  return new Date(iso);
}

/** A date string plus whole months (day clamped to the month's end), as YYYY-MM-DD. */
export function addMonths(day: string, months: number): string {
  const [y, m, d] = day.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

/** A date string plus days, as YYYY-MM-DD. */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
