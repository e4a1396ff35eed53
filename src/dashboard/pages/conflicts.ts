/**
 * Conflicts (issue 46): guarded fields (`owner: guard`) the shop's people changed, left as the shop
 * has them until someone decides: take the ERP's value (the next sync sends it once) or keep the
 * shop's. A list per pipeline, and the same rows on a record's page.
 */
import type { FieldConflict } from '../../state/index.js';
import { formatCount, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge, csrfField } from '../layout.js';
import { dateOf, type PageContext, type PageResult } from './context.js';

const LIMIT = 500;

/** A value as a cell shows it (text as it is, anything else as JSON). */
function value(v: unknown): string {
  return v === undefined ? '(unknown)' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** Where a decision came back to: the conflicts page (of a pipeline) or a record's page. */
export type ConflictsBack = 'conflicts' | 'record';

function state(c: FieldConflict): SafeHtml {
  if (c.status === 'open') return c.resolution === 'erp' ? html`${badge('running')} <span class="small">taking the ERP value: the next sync sends it</span>` : badge('failing');
  return html`${badge('ok')} <span class="small">${c.resolution === 'erp' ? 'ERP value taken' : c.resolution === 'shop' ? 'shop value kept' : 'the two sides agree'}</span>`;
}

/** The two buttons of an open conflict; CSRF-checked POSTs like every dashboard action. */
function actions(c: FieldConflict, csrfToken: string, back: ConflictsBack): SafeHtml {
  if (c.status !== 'open') return html``;
  return html`<form method="post" action="/actions/conflicts/resolve" class="actions">${csrfField(csrfToken)}
<input type="hidden" name="pipeline" value="${c.pipeline}"><input type="hidden" name="erpKey" value="${c.erpKey}"><input type="hidden" name="field" value="${c.field}"><input type="hidden" name="back" value="${back}">
${c.resolution === 'erp' ? '' : html`<button type="submit" class="secondary" name="take" value="erp" data-confirm="Send the ERP value of ${c.field} over the shop's (the next sync)?">Take ERP</button>`}
<button type="submit" class="secondary" name="take" value="shop">Keep shop</button>
</form>`;
}

/** The rows of a conflicts table. */
export function conflictRows(conflicts: readonly FieldConflict[], ctx: Pick<PageContext, 'csrfToken' | 'now'>, back: ConflictsBack): SafeHtml {
  return html`${conflicts.map(
    (c) => html`<tr data-conflict="${c.pipeline}/${c.erpKey}/${c.field}" data-status="${c.status}">
<td class="nowrap">${c.pipeline}</td>
<td class="mono"><a href="/records?q=${encodeURIComponent(c.erpKey)}">${c.erpKey}</a>${c.shopId !== undefined ? html` <span class="muted small">shop ${String(c.shopId)}</span>` : ''}</td>
<td><code>${c.field}</code></td>
<td class="mono" data-value="shop">${value(c.shopValue)}</td>
<td class="mono" data-value="sent">${'sentValue' in c && c.sentValue !== undefined ? value(c.sentValue) : html`<span class="muted">(unknown)</span>`}</td>
<td class="mono" data-value="erp">${value(c.erpValue)}</td>
<td>${state(c)}</td>
<td class="hide-narrow">${timeCell(dateOf(c.firstSeenAt), ctx.now)}</td>
<td>${timeCell(dateOf(c.lastSeenAt), ctx.now)}${c.runId !== undefined ? html` <a class="small" href="/runs/${c.runId}">run #${c.runId}</a>` : ''}</td>
<td>${actions(c, ctx.csrfToken, back)}</td>
</tr>`,
  )}`;
}

/** A conflicts table. */
export function conflictsTable(conflicts: readonly FieldConflict[], ctx: Pick<PageContext, 'csrfToken' | 'now'>, back: ConflictsBack): SafeHtml {
  return html`<div class="table-wrap"><table id="conflicts"><thead><tr><th>Pipeline</th><th>ERP key</th><th>Field</th><th>Shop has</th><th>Last sent</th><th>ERP sends</th><th>State</th><th class="hide-narrow">First seen</th><th>Last seen</th><th></th></tr></thead>
<tbody>${conflictRows(conflicts, ctx, back)}</tbody></table></div>`;
}

/** Render the conflicts list (open ones; `all=1` adds the resolved). */
export async function conflictsPage(ctx: PageContext): Promise<PageResult> {
  const pipeline = ctx.query.pipeline || undefined;
  const all = ctx.query.all === '1';
  const conflicts = await ctx.state.conflicts.list({ ...(pipeline ? { pipeline } : {}), ...(all ? {} : { status: 'open' as const }), limit: LIMIT });
  const counts = await ctx.state.conflicts.openCounts();
  const open = pipeline ? (counts.get(pipeline) ?? 0) : [...counts.values()].reduce((a, b) => a + b, 0);
  const body = html`<h1>Conflicts</h1>
<p class="muted">Guarded fields (<code>owner: guard</code> in the mapping) that the shop's people changed since shopsync last sent them. The shop's value is kept and the rest of each record goes on syncing; decide here or with <code>shopsync conflicts resolve</code>. <strong>Take ERP</strong>: the next sync sends the ERP's value once. <strong>Keep shop</strong>: the shop's value stays, and counts as sent until the shop or the ERP changes it.</p>
<form class="panel filters" method="get" action="/conflicts">
<label>Pipeline<select name="pipeline"><option value="">all pipelines</option>${ctx.pipelines.filter((p) => p.direction === 'push').map((p) => html`<option value="${p.name}"${pipeline === p.name ? html` selected` : ''}>${p.name} (${formatCount(counts.get(p.name) ?? 0)} open)</option>`)}</select></label>
<label><input type="checkbox" name="all" value="1"${all ? html` checked` : ''}> resolved too</label>
<button type="submit">Filter</button>
</form>
<p data-open-conflicts="${open}">${formatCount(open)} open${pipeline ? html` in ${pipeline}` : ''}.</p>
${conflicts.length === 0 ? html`<div class="panel empty">No ${all ? '' : 'open '}conflicts${pipeline ? html` for ${pipeline}` : ''}.</div>` : conflictsTable(conflicts, ctx, 'conflicts')}
${conflicts.length >= LIMIT ? html`<p class="muted small">Showing the first ${formatCount(LIMIT)}; <code>shopsync conflicts list --json</code> has them all.</p>` : ''}`;
  return { title: 'Conflicts', nav: 'conflicts', body };
}

/** A record's conflicts for its page (every pipeline, open ones first); empty when it has none. */
export async function recordConflicts(ctx: PageContext, erpKeys: readonly string[]): Promise<SafeHtml> {
  const found = (await Promise.all(erpKeys.map((erpKey) => ctx.state.conflicts.list({ erpKey, limit: 50 })))).flat();
  if (found.length === 0) return html``;
  const open = found.filter((c) => c.status === 'open').length;
  return html`<h2>Conflicts${open > 0 ? html` (${formatCount(open)} open)` : ''}</h2>${conflictsTable(found, ctx, 'record')}`;
}
