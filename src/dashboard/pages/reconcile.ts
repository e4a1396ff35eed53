/** Reconcile: each push pipeline's latest reconciliation (drift of each kind), one report in full, its CSV. */
import type { ReconcileReport } from '../../reconcile/report.js';
import { formatCount, formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import type { DashboardPipeline, ReconcileReports } from '../types.js';
import { dateOf, type PageContext, type PageResult } from './context.js';

/** The CSV download of a report. */
export function csvHref(pipeline: string, id: string): string {
  return `/reconcile/${encodeURIComponent(pipeline)}/${encodeURIComponent(id)}.csv`;
}

function reportHref(pipeline: string, id: string): string {
  return `/reconcile?pipeline=${encodeURIComponent(pipeline)}&report=${encodeURIComponent(id)}`;
}

function value(v: unknown): string {
  return v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v);
}

function summaryRow(p: DashboardPipeline, r: ReconcileReport | undefined, ctx: PageContext): SafeHtml {
  const schedule = p.reconcileSchedule ? html`<code>${p.reconcileSchedule}</code>` : html`<span class="muted small">on demand</span>`;
  if (!r) return html`<tr data-pipeline="${p.name}"><td>${p.name}</td><td>${schedule}</td><td colspan="7" class="muted">not reconciled yet: <code>shopsync reconcile ${p.name}</code></td></tr>`;
  const c = r.counts;
  return html`<tr data-pipeline="${p.name}" data-drift="${r.drift}">
<td><a href="${reportHref(p.name, r.id)}">${p.name}</a></td><td>${schedule}</td>
<td>${timeCell(dateOf(r.finishedAt), ctx.now)}</td>
<td class="num">${r.drift === 0 ? badge('in sync') : html`<strong>${formatCount(r.drift)}</strong>`}</td>
<td class="num">${formatCount(c.onlyInErp)}</td><td class="num">${formatCount(c.onlyInShop)}</td><td class="num">${formatCount(c.different)}</td>
<td class="num">${formatCount(c.erp)} / ${formatCount(c.shop)}</td>
<td>${r.repair ? html`<a href="/runs/${r.repair.runId}">repair #${r.repair.runId}</a> ${badge(r.repair.status)}` : html`<span class="muted small">report only</span>`}</td>
</tr>`;
}

function detail(r: ReconcileReport): SafeHtml {
  const c = r.counts;
  const more = (shown: number, total: number) => (total > shown ? html`<p class="muted small">The first ${formatCount(shown)} of ${formatCount(total)}; the CSV has them all.</p>` : '');
  const fields = Object.entries(r.fields).sort((a, b) => b[1] - a[1]);
  return html`<section class="panel" id="report" data-report-id="${r.id}">
<h2>${r.pipeline}: report of ${r.finishedAt.slice(0, 19).replace('T', ' ')} UTC</h2>
<p>${r.resource} in shop <strong>${r.shop}</strong>, paired by ${r.matchBy === 'shopKey' ? html`shop key <code>${r.shopKey}</code>` : 'stored reference'}; took ${formatDuration(r.durationMs)}. <a href="${csvHref(r.pipeline, r.id)}" download>Download the CSV</a> (every entry).</p>
<dl class="facts">
<dt>ERP records</dt><dd>${formatCount(c.erp)}</dd><dt>Shop records</dt><dd>${formatCount(c.shop)}</dd><dt>Paired</dt><dd>${formatCount(c.matched)}</dd>
<dt>Drift</dt><dd data-drift>${formatCount(r.drift)}</dd>
<dt>Deactivated, gone from the ERP</dt><dd>${formatCount(c.retired)}</dd><dt>Refused by the mapping</dt><dd>${formatCount(c.refused)}</dd>
</dl>
${r.repair ? html`<p data-repair>Repair run <a href="/runs/${r.repair.runId}">#${r.repair.runId}</a> ${badge(r.repair.status)}: pushed ${formatCount(r.repair.pushed)} (created ${formatCount(r.repair.created)}, updated ${formatCount(r.repair.updated)}, failed ${formatCount(r.repair.failed)}), deactivated ${formatCount(r.repair.deactivated)}, deleted ${formatCount(r.repair.deleted)}.${r.repair.shopOnly ? html` <span class="issue warning">${r.repair.shopOnly}</span>` : ''}</p>` : html`<p class="muted small">Report only. <code>shopsync reconcile ${r.pipeline} --repair</code> pushes the drifted records through the pipeline.</p>`}
<h3>Different (${formatCount(c.different)})</h3>
${fields.length ? html`<p class="small">Fields: ${fields.map(([f, n]) => html`<code>${f}</code> ${formatCount(n)} `)}</p>` : ''}
${r.different.length ? html`<div class="table-wrap"><table id="different"><thead><tr><th>ERP key</th><th>Shop id</th><th>Field</th><th>Shop</th><th>ERP (would send)</th></tr></thead><tbody>${r.different.flatMap((d) => d.fields.map((f, i) => html`<tr><td class="mono">${i === 0 ? html`<a href="/records?q=${encodeURIComponent(d.erpKey)}">${d.erpKey}</a>` : ''}</td><td class="mono">${i === 0 ? String(d.shopId) : ''}</td><td><code>${f.field}</code></td><td class="mono">${value(f.shop)}</td><td class="mono">${value(f.erp)}</td></tr>`))}</tbody></table></div>${more(r.different.length, c.different)}` : html`<p class="muted">None.</p>`}
${r.conflicts ? html`<h3>Conflicts (${formatCount(c.conflicts ?? 0)})</h3>
<p class="muted small">Guarded fields (<code>owner: guard</code>) the shop's people changed: not drift, never repaired. Decide on the <a href="/conflicts?pipeline=${encodeURIComponent(r.pipeline)}">conflicts page</a>.</p>
${r.conflicts.length ? html`<div class="table-wrap"><table id="reconcile-conflicts"><thead><tr><th>ERP key</th><th>Shop id</th><th>Field</th><th>Shop</th><th>Last sent</th><th>ERP</th></tr></thead><tbody>${r.conflicts.map((k) => html`<tr><td class="mono"><a href="/records?q=${encodeURIComponent(k.erpKey)}">${k.erpKey}</a></td><td class="mono">${String(k.shopId)}</td><td><code>${k.field}</code></td><td class="mono">${value(k.shop)}</td><td class="mono">${'sent' in k ? value(k.sent) : '(unknown)'}</td><td class="mono">${value(k.erp)}</td></tr>`)}</tbody></table></div>${more(r.conflicts.length, c.conflicts ?? 0)}` : html`<p class="muted">None.</p>`}` : ''}
<h3>Only in the ERP (${formatCount(c.onlyInErp)})</h3>
${r.onlyInErp.length ? html`<ul id="only-in-erp" class="mono">${r.onlyInErp.map((e) => html`<li>${e.erpKey}${e.shopKey && e.shopKey !== e.erpKey ? html` <span class="muted">(${e.shopKey})</span>` : ''}</li>`)}</ul>${more(r.onlyInErp.length, c.onlyInErp)}` : html`<p class="muted">None.</p>`}
<h3>Only in the shop (${formatCount(c.onlyInShop)})</h3>
${r.onlyInShop.length ? html`<ul id="only-in-shop" class="mono">${r.onlyInShop.map((e) => html`<li>${e.shopKey || '(no key)'} <span class="muted">shop id ${String(e.shopId)}</span></li>`)}</ul>${more(r.onlyInShop.length, c.onlyInShop)}` : html`<p class="muted">None.</p>`}
${r.refused.length ? html`<h3>Refused by the mapping (${formatCount(c.refused)})</h3><ul class="small">${r.refused.map((e) => html`<li><code>${e.erpKey}</code> <code class="code">${e.code}</code> ${e.message}</li>`)}</ul>` : ''}
</section>`;
}

/** Render the reconcile page. */
export async function reconcilePage(ctx: PageContext, reports: ReconcileReports | undefined): Promise<PageResult> {
  const pushes = ctx.pipelines.filter((p) => p.direction === 'push');
  if (!reports) return { title: 'Reconcile', nav: 'reconcile', body: html`<h1>Reconcile</h1><div class="panel empty">This dashboard has no reconciliation reports.</div>`, live: false };
  const latest = await Promise.all(pushes.map(async (p) => [p, await reports.latest(p.name)] as const));
  const name = ctx.query.pipeline;
  const chosen = name ? (ctx.query.report ? await reports.read(name, ctx.query.report) : await reports.latest(name)) : latest.find(([, r]) => r !== undefined)?.[1];
  const history = chosen ? await reports.ids(chosen.pipeline) : [];
  const body = html`<h1>Reconcile</h1>
<p class="muted">Each reconciliation reads the whole ERP side (mapped as the pipeline maps it) and the whole shop export: records only in the ERP, only in the shop, and mapped fields that differ.</p>
<div class="table-wrap"><table id="reconcile"><thead><tr><th>Pipeline</th><th>Schedule</th><th>Last</th><th class="num">Drift</th><th class="num">Only ERP</th><th class="num">Only shop</th><th class="num">Different</th><th class="num">ERP / shop</th><th>Repair</th></tr></thead>
<tbody>${latest.map(([p, r]) => summaryRow(p, r, ctx))}</tbody></table></div>
${name && !chosen ? html`<div class="panel empty">No such report of ${name}.</div>` : ''}
${chosen ? detail(chosen) : ''}
${history.length > 1 && chosen ? html`<p class="small">Earlier reports of ${chosen.pipeline}: ${history.filter((id) => id !== chosen.id).map((id) => html`<a href="${reportHref(chosen.pipeline, id)}">${id.slice(0, 16).replace('T', ' ')}</a> `)}</p>` : ''}`;
  return { title: 'Reconcile', nav: 'reconcile', body };
}
