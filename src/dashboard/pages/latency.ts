/** The overview card's change latency: p50/p95 of the last hour's delivered changes, summed from the runs in the state. */
import { LATENCY_WINDOW_MS, recentLatency, type LatencySummary } from '../../pipeline/latency.js';
import { formatCount, formatDuration } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import type { PageContext } from './context.js';

/** One read of the state per page, shared by its cards. */
const perPage = new WeakMap<PageContext, Promise<Map<string, LatencySummary>>>();

/** The last hour's latency of every pipeline, read once per page context. */
export function lastHourLatency(ctx: PageContext): Promise<Map<string, LatencySummary>> {
  let read = perPage.get(ctx);
  if (!read) perPage.set(ctx, (read = recentLatency(ctx.state, ctx.now.getTime(), LATENCY_WINDOW_MS)));
  return read;
}

/** `1.2 s p50 · 3.4 s p95` with the number of changes, or a muted note when none were measured. */
export function latencyText(l: LatencySummary | undefined): SafeHtml {
  if (!l) return html`<span class="muted">no change delivered in the last hour</span>`;
  const skew = l.skewed > 0 ? html` <span class="badge b-warn" title="changes stamped after the shop confirmed them: the ERP clock runs ahead, or naive timestamps are read in the wrong zone">${formatCount(l.skewed)} clock skew</span>` : '';
  return html`<span data-latency-p50="${l.p50Seconds.toFixed(3)}" data-latency-p95="${l.p95Seconds.toFixed(3)}"><b>${formatDuration(l.p50Seconds * 1000)}</b> p50 · <b>${formatDuration(l.p95Seconds * 1000)}</b> p95</span> <span class="muted small" title="change timestamp (cursor) to the shop's answer; estimated within the histogram bucket">${formatCount(l.changes)} changes, last hour</span>${skew}`;
}
