/** Run detail: the run's summary and every record it touched, with issues, payloads and changes. */
import { countWords } from '../../pipeline/countWords.js';
import type { EventOutcome, RunRecord } from '../../state/index.js';
import { formatCount, formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import { dateOf, runDurationMs, runErrorLine, type PageContext, type PageResult } from './context.js';
import { eventExtras, eventHeaders, eventRows } from './record-events.js';

const PAGE_SIZE = 200;

const SHOW: Readonly<Record<string, { label: string; outcomes?: readonly EventOutcome[] }>> = {
  all: { label: 'all records' },
  problems: { label: 'failed', outcomes: ['failed', 'dead-lettered'] },
  changed: { label: 'created or updated', outcomes: ['created', 'updated', 'would-create', 'would-update', 'delivered'] },
  unchanged: { label: 'unchanged or skipped', outcomes: ['unchanged', 'skipped'] },
  gone: { label: 'deactivated or deleted', outcomes: ['deactivated', 'deleted'] },
};

function stat(label: string, value: number, tone?: string): SafeHtml {
  return html`<div class="panel stat"><div class="v"${tone && value > 0 ? html` style="color:var(--${tone})"` : ''}>${formatCount(value)}</div><div class="k">${label}</div></div>`;
}

function summary(run: RunRecord, now: Date): SafeHtml {
  const c = run.counts;
  // A dry run's counts are what it would have done: "would create", not "created".
  const w = countWords(run.mode);
  const err = runErrorLine(run.error);
  return html`<dl class="facts">
<dt>Pipeline</dt><dd><a href="/runs?pipeline=${encodeURIComponent(run.pipeline)}">${run.pipeline}</a> <span class="muted">· ${run.mode}${run.lane !== run.pipeline ? ` · ${run.lane}` : ''}</span></dd>
<dt>Outcome</dt><dd>${badge(run.status)}</dd>
<dt>Started</dt><dd>${timeCell(dateOf(run.startedAt), now)}</dd>
<dt>${run.finishedAt ? 'Finished' : 'Running for'}</dt><dd>${run.finishedAt ? html`${timeCell(dateOf(run.finishedAt), now)} <span class="muted">· took ${formatDuration(runDurationMs(run, now))}</span>` : formatDuration(runDurationMs(run, now))}</dd>
${run.range ? html`<dt>Range</dt><dd><code>${JSON.stringify(run.range)}</code></dd>` : ''}
${err ? html`<dt>Error</dt><dd class="issue error">${err}</dd>` : ''}
</dl>
<div class="summary-grid">
${stat(w.read, c.read)}${stat(w.created, c.created)}${stat(w.updated, c.updated)}${stat(w.unchanged, c.unchanged)}${stat(w.failed, c.failed, 'bad')}${stat(w.deadLettered, c.deadLettered, 'bad')}${c.unreadable ? stat('unreadable', c.unreadable, 'bad') : ''}${c.conflicts ? stat('conflicts', c.conflicts, 'warn') : ''}${stat('warnings', c.warnings, 'warn')}${stat('requests', c.requests)}
</div>`;
}

/** Render one run; a 404 page when it does not exist. */
export async function runDetailPage(ctx: PageContext, id: number): Promise<PageResult> {
  const run = Number.isSafeInteger(id) ? await ctx.state.runs.get(id) : undefined;
  if (!run) return { title: 'Run not found', nav: 'runs', status: 404, body: html`<h1>Run not found</h1><p>There is no run #${String(id)}. <a href="/runs">All runs</a></p>` };
  const show = ctx.query.show && ctx.query.show in SHOW ? ctx.query.show : 'all';
  const offset = Math.max(0, Number.parseInt(ctx.query.offset ?? '0', 10) || 0);
  const outcomes = SHOW[show]?.outcomes;
  const events = await ctx.state.events.list({ runId: run.id, ...(outcomes ? { outcome: outcomes } : {}), limit: PAGE_SIZE + 1, offset, order: 'asc', excerpt: true });
  const more = events.length > PAGE_SIZE;
  const extras = await eventExtras(ctx.state, events.slice(0, PAGE_SIZE));
  const link = (s: string, o = 0): string => `/runs/${run.id}?show=${s}${o > 0 ? `&offset=${o}` : ''}`;
  const body = html`<h1>Run #${run.id} <span class="muted small">${run.pipeline} · shop <span data-shop="${run.shop}">${run.shop}</span></span></h1>
${summary(run, ctx.now)}
<h2>Records</h2>
<div class="actions" style="margin-bottom:.6rem">${Object.entries(SHOW).map(([k, v]) =>
    k === show ? html`<b>${v.label}</b>` : html`<a href="${link(k)}">${v.label}</a>`,
  )}</div>
${
  events.length
    ? html`<div class="table-wrap"><table id="events"><thead>${eventHeaders(false)}</thead><tbody>${eventRows(events.slice(0, PAGE_SIZE), { now: ctx.now, extras }, false)}</tbody></table></div>`
    : html`<div class="panel empty">${run.status === 'running' ? 'No records settled yet.' : 'No records in this view.'}</div>`
}
${run.counts.unchanged > 0 && (show === 'all' || show === 'unchanged') ? html`<p class="muted small" id="unlisted">Unchanged records without warnings are counted above (${formatCount(run.counts.unchanged)} unchanged in all), not listed: they were compared by hash and nothing was sent for them.</p>` : ''}
<div class="pager">${offset > 0 ? html`<a href="${link(show, Math.max(0, offset - PAGE_SIZE))}">← Previous</a>` : ''}${more ? html`<a href="${link(show, offset + PAGE_SIZE)}">Next →</a>` : ''}</div>`;
  return { title: `Run #${run.id}`, nav: 'runs', body, running: run.status === 'running' };
}
