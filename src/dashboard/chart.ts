/** Inline SVG charts drawn by the dashboard itself (no chart library, no CDN). */
import { html, unsafeRaw, type SafeHtml } from './html.js';

/** One minute of activity. */
export interface MinutePoint {
  /** Start of the minute, ms since the epoch. */
  readonly minute: number;
  readonly records: number;
  readonly errors: number;
}

const W = 720;
const H = 200;
const M = { top: 12, right: 12, bottom: 26, left: 44 };

/** The smallest "nice" number (1, 2, 5 × 10^n) at or above `n`. */
export function niceCeil(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/**
 * A records-per-minute area with error bars over a time window. Minutes without points count as
 * zero, so a quiet night shows as a flat line rather than an interpolated slope.
 */
export function minuteChart(points: readonly MinutePoint[], fromMs: number, toMs: number, title: string): SafeHtml {
  const minutes = Math.max(1, Math.round((toMs - fromMs) / 60_000));
  const first = Math.floor(fromMs / 60_000);
  const records = new Float64Array(minutes);
  const errors = new Float64Array(minutes);
  for (const p of points) {
    const i = Math.floor(p.minute / 60_000) - first;
    if (i >= 0 && i < minutes) {
      records[i] = (records[i] ?? 0) + p.records;
      errors[i] = (errors[i] ?? 0) + p.errors;
    }
  }
  let max = 0;
  for (let i = 0; i < minutes; i++) max = Math.max(max, records[i] ?? 0, errors[i] ?? 0);
  const yMax = niceCeil(max);
  const iw = W - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const x = (i: number): number => M.left + (i / minutes) * iw;
  const y = (v: number): number => M.top + ih - (v / yMax) * ih;
  const f = (n: number): string => n.toFixed(1);

  let area = `M${f(x(0))},${f(y(0))}`;
  for (let i = 0; i < minutes; i++) area += `L${f(x(i))},${f(y(records[i] ?? 0))}L${f(x(i + 1))},${f(y(records[i] ?? 0))}`;
  area += `L${f(x(minutes))},${f(y(0))}Z`;
  let bars = '';
  const bw = Math.max(1.5, iw / minutes);
  const hhmm = (minuteIndex: number): string => new Date((first + minuteIndex) * 60_000).toISOString().slice(11, 16);
  for (let i = 0; i < minutes; i++) {
    const e = errors[i] ?? 0;
    if (e > 0) bars += `<rect class="errbar" x="${f(x(i))}" y="${f(y(e))}" width="${f(bw)}" height="${f(y(0) - y(e))}"><title>${hhmm(i)} UTC: ${e} errors</title></rect>`;
  }
  // Hour-wide transparent bands whose tooltips give the hour's totals (no script needed).
  let bands = '';
  for (let start = 0; start < minutes; start += 60) {
    const end = Math.min(minutes, start + 60);
    let r = 0;
    let e = 0;
    for (let i = start; i < end; i++) {
      r += records[i] ?? 0;
      e += errors[i] ?? 0;
    }
    bands += `<rect class="band" x="${f(x(start))}" y="${f(M.top)}" width="${f(x(end) - x(start))}" height="${f(ih)}"><title>${hhmm(start)}–${hhmm(end)} UTC: ${r.toLocaleString('en-US')} records, ${e.toLocaleString('en-US')} errors</title></rect>`;
  }
  // Built from numbers only, so it is trusted markup; thousands of html`` calls would be slow.
  const errorBars = unsafeRaw(bars);
  const hourBands = unsafeRaw(bands);

  const grid: SafeHtml[] = [];
  for (const v of [0, yMax / 2, yMax]) {
    grid.push(html`<line class="grid" x1="${f(M.left)}" x2="${f(W - M.right)}" y1="${f(y(v))}" y2="${f(y(v))}"/><text class="axis" x="${f(M.left - 6)}" y="${f(y(v) + 4)}" text-anchor="end">${Number.isInteger(v) ? String(v) : v.toFixed(1)}</text>`);
  }
  const stepMin = minutes > 12 * 60 ? 180 : minutes > 3 * 60 ? 60 : 15;
  const firstTick = Math.ceil(first / stepMin) * stepMin;
  for (let m = firstTick; m <= first + minutes; m += stepMin) {
    const label = new Date(m * 60_000).toISOString().slice(11, 16);
    grid.push(html`<line class="grid" x1="${f(x(m - first))}" x2="${f(x(m - first))}" y1="${f(M.top)}" y2="${f(M.top + ih)}" stroke-dasharray="2 3"/><text class="axis" x="${f(x(m - first))}" y="${f(H - 8)}" text-anchor="middle">${label}</text>`);
  }
  return html`<svg viewBox="0 0 ${String(W)} ${String(H)}" role="img" aria-label="${title}"><title>${title}</title>${grid}<path class="records" d="${area}"/>${errorBars}${hourBands}</svg>`;
}
