/** Charts: records per minute and errors over the last 24 hours, per pipeline. */
import type { MinuteCount } from '../../state/index.js';
import { minuteChart, type MinutePoint } from '../chart.js';
import { formatCount } from '../format.js';
import { html } from '../html.js';
import type { PageContext, PageResult } from './context.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ERROR_OUTCOMES = new Set(['failed', 'dead-lettered']);

/** Fold the state's per-outcome minute counts into records and errors per minute. */
export function toMinutePoints(counts: readonly MinuteCount[]): MinutePoint[] {
  const byMinute = new Map<number, { records: number; errors: number }>();
  for (const c of counts) {
    const m = Date.parse(c.minute);
    const p = byMinute.get(m) ?? { records: 0, errors: 0 };
    p.records += c.count;
    if (ERROR_OUTCOMES.has(c.outcome)) p.errors += c.count;
    byMinute.set(m, p);
  }
  return [...byMinute.entries()].sort((a, b) => a[0] - b[0]).map(([minute, p]) => ({ minute, ...p }));
}

/** Render one chart per pipeline. */
export async function chartsPage(ctx: PageContext): Promise<PageResult> {
  const to = Math.ceil(ctx.now.getTime() / 60_000) * 60_000;
  const from = to - DAY_MS;
  const counts = await Promise.all(ctx.pipelines.map((p) => ctx.state.events.countsPerMinute({ since: from, until: to, pipeline: p.name })));
  const charts = ctx.pipelines.map((p, i) => {
    const points = toMinutePoints(counts[i] ?? []);
    const records = points.reduce((n, x) => n + x.records, 0);
    const errors = points.reduce((n, x) => n + x.errors, 0);
    const peak = points.reduce((n, x) => Math.max(n, x.records), 0);
    return html`<section class="panel chart" id="${p.name}" data-pipeline="${p.name}">
<div class="card-head"><h2>${p.name}</h2><span class="muted small">last 24 h · UTC</span></div>
<div class="counts small" style="margin-bottom:.4rem"><span>records <b>${formatCount(records)}</b></span><span>errors <b${errors > 0 ? html` style="color:var(--bad)"` : ''}>${formatCount(errors)}</b></span><span>peak <b>${formatCount(peak)}</b>/min</span></div>
${minuteChart(points, from, to, `${p.name}: records and errors per minute, last 24 hours`)}
<div class="legend"><span><span class="sw" style="background:var(--run)"></span>records per minute</span><span><span class="sw" style="background:var(--bad)"></span>errors per minute</span></div>
</section>`;
  });
  const body = html`<h1>Charts</h1>${charts.length ? html`<div class="charts">${charts}</div>` : html`<div class="panel empty">No pipelines are configured.</div>`}`;
  return { title: 'Charts', nav: 'charts', body };
}
