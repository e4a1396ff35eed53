/** Overview: every pipeline with its state, last run, counts, cursor, schedule and dead letters. */
import { WATERMARK_LANE, watermarkText, watermarkView } from '../../pipeline/sourceWatermark.js';
import type { RunRecord, StoredCursor } from '../../state/index.js';
import { formatCount, formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge, csrfField } from '../layout.js';
import type { DashboardPipeline } from '../types.js';
import type { RateSnapshot } from '../../shop/rate/index.js';
import { shopLinks, shopOfPipeline } from './shops.js';
import { dateOf, runDurationMs, runErrorLine, type PageContext, type PageResult } from './context.js';
import { previewHref } from './preview.js';
import { replicasPanel } from './replicas.js';
import { lastHourLatency, latencyText } from './latency.js';

/** How the overview describes a pipeline's state. */
export type PipelineState = 'idle' | 'running' | 'failing';

/** A pipeline's state from its runs: running while a run is open; failing when the last run failed or left failed records. */
export function pipelineState(running: RunRecord | undefined, last: RunRecord | undefined): PipelineState {
  if (running) return 'running';
  if (!last) return 'idle';
  if (last.status === 'failed' || last.status === 'crashed' || last.counts.failed > 0) return 'failing';
  return 'idle';
}

function cursorText(cursor: StoredCursor | undefined): SafeHtml {
  if (!cursor) return html`<span class="muted">not set (next run reads from the start)</span>`;
  return html`<code>${cursor.value === null ? 'null' : String(cursor.value)}</code>${cursor.key !== null ? html` <span class="muted small">after key</span> <code>${cursor.key}</code>` : ''}`;
}

function countsLine(run: RunRecord): SafeHtml {
  const c = run.counts;
  const out = c.created + c.updated;
  return html`<span class="counts">
<span title="records read from the source">in <b>${formatCount(c.read)}</b></span>
<span title="created + updated">out <b>${formatCount(out)}</b></span>
<span class="muted">${formatCount(c.created)} created · ${formatCount(c.updated)} updated · ${formatCount(c.unchanged)} unchanged</span>
${c.failed > 0 ? html`<span class="badge b-bad">${formatCount(c.failed)} failed</span>` : ''}
${c.warnings > 0 ? html`<span class="badge b-warn">${formatCount(c.warnings)} ${c.warnings === 1 ? 'warning' : 'warnings'}</span>` : ''}
</span>`;
}

async function card(ctx: PageContext, p: DashboardPipeline): Promise<{ markup: SafeHtml; state: PipelineState; dead: number; name: string }> {
  const { state, now } = ctx;
  const running = (await state.runs.list({ pipeline: p.name, status: 'running', limit: 1 }))[0];
  const last = (await state.runs.list({ pipeline: p.name, status: ['succeeded', 'partial', 'failed', 'aborted', 'crashed'], limit: 1 }))[0];
  const st = pipelineState(running, last);
  const dead = await state.deadLetters.count(p.name);
  const cursor = await state.cursors.get(p.name);
  const held = watermarkView(await state.cursors.get(p.name, WATERMARK_LANE));
  const latency = p.direction === 'push' ? (await lastHourLatency(ctx)).get(p.name) : undefined;
  const shown = running ?? last;
  const errorLine = last && !running ? runErrorLine(last.error) : undefined;
  const markup = html`<section class="panel card ${st}" data-pipeline="${p.name}">
<div class="card-head"><h2>${p.name}</h2>${badge(st)}</div>
<dl class="facts">
<dt>Shop</dt><dd><a href="/?shop=${encodeURIComponent(shopOfPipeline(p))}" data-shop="${shopOfPipeline(p)}">${shopOfPipeline(p)}</a></dd>
<dt>Flow</dt><dd>${p.direction === 'pull' ? html`shop <b>${p.resource ?? '?'}</b> → ERP` : html`ERP → shop <b>${p.resource ?? '?'}</b>`}</dd>
<dt>${running ? 'Current run' : 'Last run'}</dt><dd>${
    shown
      ? html`<a href="/runs/${shown.id}">#${shown.id}</a> ${badge(shown.status)} ${timeCell(dateOf(shown.startedAt), now)} <span class="muted">· ${formatDuration(runDurationMs(shown, now))}${shown.mode !== 'sync' ? ` · ${shown.mode}` : ''}</span>`
      : html`<span class="muted">never run</span>`
  }</dd>
${shown ? html`<dt>Records</dt><dd>${countsLine(shown)}</dd>` : ''}
${errorLine ? html`<dt>Error</dt><dd class="issue error">${errorLine}</dd>` : ''}
${p.direction === 'push' ? html`<dt>Change latency</dt><dd>${latencyText(latency)}</dd>` : ''}
<dt>Cursor</dt><dd>${cursorText(cursor)}</dd>
${held ? html`<dt>Watermark</dt><dd data-watermark="${held.by}"${held.by === 'transactions' && held.heldForSeconds >= 60 ? html` class="issue warning"` : ''}>${watermarkText(held)}</dd>` : ''}
<dt>Next run</dt><dd>${p.schedule ? html`${timeCell(p.nextRun(), now)} <span class="muted small">(<code>${p.schedule}</code>)</span>` : html`<span class="muted">not scheduled</span>`}</dd>
<dt>Dead letters</dt><dd>${dead > 0 ? html`<a href="/dead-letters?pipeline=${encodeURIComponent(p.name)}"><span class="badge b-bad">${formatCount(dead)}</span></a>` : html`<span class="muted">none</span>`}</dd>
</dl>
<div class="actions">
<form method="post" action="/actions/run">${csrfField(ctx.csrfToken)}<input type="hidden" name="pipeline" value="${p.name}"><button type="submit" data-run="${p.name}"${running ? html` disabled` : ''}>${running ? 'Running…' : 'Run now'}</button></form>
<a href="/runs?pipeline=${encodeURIComponent(p.name)}">All runs</a>
<a href="/charts#${encodeURIComponent(p.name)}">Chart</a>
${p.direction === 'push' ? html`<a href="${previewHref(p.name)}" data-preview-link>Preview next records</a>` : ''}
</div>
</section>`;
  return { markup, state: st, dead, name: p.name };
}

/** A shop client's pace: requests per second and in flight, and whether it is still finding them. */
function rateStat(shop: string, rate: RateSnapshot, named: boolean): SafeHtml {
  const how = rate.mode === 'fixed' ? 'fixed rate' : rate.phase === 'slow-start' ? 'adaptive, growing' : 'adaptive';
  const learnt = rate.learntLimitPerSecond !== undefined ? html` · shop refused above ${String(rate.learntLimitPerSecond)}/s` : '';
  return html`<div class="panel stat" data-shop-rate="${shop}"><div class="v">${String(rate.requestsPerSecond)}/s</div><div class="k">${named ? html`shop <b>${shop}</b>` : 'shop'} requests (${how}, ${formatCount(rate.concurrency)} in flight${learnt})</div></div>`;
}

/** Render the overview. */
export async function overviewPage(ctx: PageContext): Promise<PageResult> {
  const shop = ctx.query.shop;
  const pipelines = ctx.pipelines.filter((p) => shop === undefined || shopOfPipeline(p) === shop);
  const cards: Awaited<ReturnType<typeof card>>[] = [];
  for (const p of pipelines) cards.push(await card(ctx, p));
  const running = cards.filter((c) => c.state === 'running').length;
  const replicas = await ctx.replicas?.();
  // A lane whose job was given up counts as failing even when its last run is older than the job's failures.
  const failedJobs = new Set((replicas?.jobs ?? []).filter((j) => j.state === 'failed' && j.pipeline !== undefined && pipelines.some((p) => p.name === j.pipeline)).map((j) => j.pipeline));
  const failing = new Set([...cards.filter((c) => c.state === 'failing').map((c) => c.name), ...failedJobs]).size;
  const dead = cards.reduce((n, c) => n + c.dead, 0);
  const rates = Object.entries(ctx.shopRates?.() ?? {}).filter(([name]) => shop === undefined || name === shop);
  const body = html`<h1>Overview</h1>
${shopLinks(ctx, '/')}
<div class="summary-grid">
<div class="panel stat"><div class="v">${formatCount(pipelines.length)}</div><div class="k">pipelines</div></div>
<div class="panel stat"><div class="v">${formatCount(running)}</div><div class="k">running</div></div>
<div class="panel stat"><div class="v"${failing > 0 ? html` style="color:var(--bad)"` : ''}>${formatCount(failing)}</div><div class="k">failing</div></div>
<div class="panel stat"><div class="v"${dead > 0 ? html` style="color:var(--bad)"` : ''}>${formatCount(dead)}</div><div class="k">dead letters</div></div>
${rates.map(([name, rate]) => rateStat(name, rate, Object.keys(ctx.shopRates?.() ?? {}).length > 1))}
</div>
${replicasPanel(replicas)}
${cards.length ? html`<div class="cards">${cards.map((c) => c.markup)}</div>` : html`<div class="panel empty">No pipelines are configured.</div>`}`;
  return { title: 'Overview', nav: 'overview', body, running: running > 0 };
}
