/** Runs: a filterable list (pipeline, outcome, time) with the per-run counters. */
import type { RunFilter, RunRecord, RunStatus } from '../../state/index.js';
import { formatCount, formatDuration, parseDateParam, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import { shopSelect } from './shops.js';
import { dateOf, runDurationMs, type PageContext, type PageResult } from './context.js';
import { followedOf, followedSection } from './followed.js';

const PAGE_SIZE = 50;

/** Outcome filter choices: run statuses plus "had failed records" and "had warnings". */
const OUTCOMES: readonly { value: string; label: string }[] = [
  { value: '', label: 'any outcome' },
  { value: 'succeeded', label: 'succeeded' },
  { value: 'partial', label: 'partial' },
  { value: 'failed', label: 'failed' },
  { value: 'running', label: 'running' },
  { value: 'aborted', label: 'aborted' },
  { value: 'crashed', label: 'crashed' },
  { value: 'with-failures', label: 'with failed records' },
  { value: 'with-warnings', label: 'with warnings' },
];
const STATUSES = new Set<string>(['succeeded', 'partial', 'failed', 'running', 'aborted', 'crashed']);

/** Translate the page's query into a state filter. */
export function runFilterFromQuery(query: Readonly<Record<string, string | undefined>>): RunFilter {
  const outcome = query.outcome ?? '';
  const offset = Math.max(0, Number.parseInt(query.offset ?? '0', 10) || 0);
  const since = parseDateParam(query.from);
  const until = parseDateParam(query.to);
  return {
    ...(query.pipeline ? { pipeline: query.pipeline } : {}),
    ...(query.shop ? { shop: query.shop } : {}),
    ...(STATUSES.has(outcome) ? { status: outcome as RunStatus } : {}),
    ...(outcome === 'with-failures' ? { outcome: 'failed' as const } : {}),
    ...(outcome === 'with-warnings' ? { outcome: 'warnings' as const } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    limit: PAGE_SIZE + 1,
    offset,
  };
}

function num(n: number, tone?: 'bad' | 'warn'): SafeHtml {
  const cls = n === 0 ? 'num zero' : 'num';
  return tone && n > 0 ? html`<td class="${cls}"><span class="badge b-${tone}">${formatCount(n)}</span></td>` : html`<td class="${cls}">${formatCount(n)}</td>`;
}

/** A table of runs (also used by the record page). */
export function runRows(runs: readonly RunRecord[], now: Date): SafeHtml {
  return html`${runs.map(
    (r) => html`<tr data-run-id="${r.id}">
<td><a href="/runs/${r.id}">#${r.id}</a></td>
<td class="nowrap">${r.pipeline}${r.mode !== 'sync' ? html` <span class="muted small">${r.mode}</span>` : ''}</td>
<td class="nowrap" data-shop="${r.shop}">${r.shop}</td>
<td>${badge(r.status)}</td>
<td>${timeCell(dateOf(r.startedAt), now)}</td>
<td class="num">${formatDuration(runDurationMs(r, now))}</td>
${num(r.counts.read)}${num(r.counts.created)}${num(r.counts.updated)}${num(r.counts.unchanged)}${num(r.counts.failed, 'bad')}${num(r.counts.warnings, 'warn')}
</tr>`,
  )}`;
}

/** Column headers matching `runRows`. */
export const RUN_HEADERS = html`<tr><th>Run</th><th>Pipeline</th><th>Shop</th><th>Outcome</th><th>Started</th><th class="num">Duration</th><th class="num">Read</th><th class="num">Created</th><th class="num">Updated</th><th class="num">Unchanged</th><th class="num">Failed</th><th class="num">Warnings</th></tr>`;

function pageLink(query: Readonly<Record<string, string | undefined>>, offset: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v && k !== 'offset') params.set(k, v);
  if (offset > 0) params.set('offset', String(offset));
  const s = params.toString();
  return s ? `/runs?${s}` : '/runs';
}

/** Quick time ranges that keep the other filters. */
function presets(ctx: PageContext): SafeHtml {
  const ranges: [string, number][] = [['hour', 3_600_000], ['24 h', 86_400_000], ['7 days', 7 * 86_400_000]];
  return html`${ranges.map(([label, ms], i) => {
    const from = new Date(ctx.now.getTime() - ms).toISOString().slice(0, 16);
    const { offset: _offset, to: _to, ...rest } = ctx.query;
    return html`${i > 0 ? ' · ' : ''}<a href="${pageLink({ ...rest, from }, 0)}">${label}</a>`;
  })}`;
}

/** Render the runs list. */
export async function runsPage(ctx: PageContext): Promise<PageResult> {
  const { query } = ctx;
  const filter = runFilterFromQuery(query);
  const rows = await ctx.state.runs.list(filter);
  const more = rows.length > PAGE_SIZE;
  const runs = rows.slice(0, PAGE_SIZE);
  const offset = filter.offset ?? 0;
  const since = await ctx.state.retention.historySince();
  // The page of one pipeline: a pull that follows its orders says how many and the oldest.
  const pipeline = ctx.pipelines.find((p) => p.name === query.pipeline);
  const followed = pipeline ? await followedOf(ctx, pipeline) : undefined;
  const body = html`<h1>Runs</h1>
${pipeline && followed ? followedSection(pipeline, followed, ctx.now) : ''}
<p class="muted small" data-history-since>${since ? html`Record history goes back to ${since.replace('T', ' ').slice(0, 16)} UTC; older events are pruned by state.retention.` : 'No record history kept yet.'}</p>
<form class="panel filters" method="get" action="/runs">
<label>Pipeline<select name="pipeline"><option value="">all pipelines</option>${ctx.pipelines.map((p) => html`<option value="${p.name}"${query.pipeline === p.name ? html` selected` : ''}>${p.name}</option>`)}</select></label>
${shopSelect(ctx, query.shop)}
<label>Outcome<select name="outcome">${OUTCOMES.map((o) => html`<option value="${o.value}"${(query.outcome ?? '') === o.value ? html` selected` : ''}>${o.label}</option>`)}</select></label>
<label>From (UTC)<input type="datetime-local" name="from" value="${query.from ?? ''}"></label>
<label>To (UTC)<input type="datetime-local" name="to" value="${query.to ?? ''}"></label>
<button type="submit">Filter</button> <a href="/runs">Reset</a>
<span class="small muted">Started in the last ${presets(ctx)}</span>
</form>
${
  runs.length
    ? html`<div class="table-wrap"><table id="runs"><thead>${RUN_HEADERS}</thead><tbody>${runRows(runs, ctx.now)}</tbody></table></div>`
    : html`<div class="panel empty">No runs match these filters.</div>`
}
<div class="pager">${offset > 0 ? html`<a href="${pageLink(query, Math.max(0, offset - PAGE_SIZE))}">← Newer</a>` : ''}${more ? html`<a href="${pageLink(query, offset + PAGE_SIZE)}">Older →</a>` : ''}</div>`;
  return { title: 'Runs', nav: 'runs', body, running: runs.some((r) => r.status === 'running') };
}
