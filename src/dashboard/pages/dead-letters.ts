/** Dead letters: why each record failed and how often; retry or drop one, a selection, or all. */
import type { DeadLetter } from '../../state/index.js';
import { formatCount, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import { dateOf, type PageContext, type PageResult } from './context.js';
import { shopOfPipeline, shopSelect } from './shops.js';
import { jsonBlock, recordLabel } from './record-events.js';

const LIMIT = 500;

/** `lager.csv, line 5` — where the person fixing the record finds it. */
export function originText(d: Pick<DeadLetter, 'origin'>): string {
  const o = d.origin;
  if (!o) return '';
  const place = o.line !== undefined ? `line ${o.line}` : o.element !== undefined ? `record ${o.element}` : '';
  return [o.file, place].filter(Boolean).join(', ');
}

function row(d: DeadLetter, now: Date): SafeHtml {
  const label = recordLabel(d.payload) ?? recordLabel(d.record);
  return html`<tr data-dead-letter-id="${d.id}" data-erp-key="${d.erpKey}">
<td><input type="checkbox" name="id" value="${d.id}" aria-label="select dead letter ${d.id}"></td>
<td class="nowrap">${d.pipeline}${d.resource ? html` <span class="muted small">${d.resource}</span>` : ''}</td>
<td class="mono"><a href="/records?q=${encodeURIComponent(d.erpKey)}">${d.erpKey}</a></td>
<td class="label">${label ?? ''}</td>
<td class="reason"><div class="issue error"><code class="code">${d.code}</code> ${d.reason}</div>${d.origin ? html`<div class="muted small" data-origin>${originText(d)}</div>${d.origin.raw !== undefined ? html`<pre class="small raw">${d.origin.raw}</pre>` : ''}` : ''}</td>
<td class="num">${formatCount(d.attempts)}</td>
<td class="hide-narrow">${timeCell(dateOf(d.firstFailedAt), now)}</td>
<td>${timeCell(dateOf(d.lastFailedAt), now)}${d.runId !== undefined ? html` <a class="small" href="/runs/${d.runId}">run #${d.runId}</a>` : ''}</td>
<td><details id="dl-${d.id}"><summary>Record</summary>${jsonBlock(d.record)}${d.payload !== undefined ? html`<div class="muted small">Payload last tried</div>${jsonBlock(d.payload)}` : ''}</details></td>
<td class="actions"><button type="submit" class="secondary" formaction="/actions/dead-letters/retry" name="only" value="${d.id}">Retry</button><button type="submit" class="danger" formaction="/actions/dead-letters/drop" name="only" value="${d.id}" data-confirm="Drop this dead letter? The record will not be retried.">Drop</button></td>
</tr>`;
}

/** Render the dead-letter list. */
export async function deadLettersPage(ctx: PageContext): Promise<PageResult> {
  const pipeline = ctx.query.pipeline || undefined;
  const shop = ctx.query.shop || undefined;
  const letters = await ctx.state.deadLetters.list({ ...(pipeline ? { pipeline } : {}), ...(shop ? { shop } : {}), limit: LIMIT, excerpt: true });
  let total = 0;
  for (const p of ctx.pipelines) if ((pipeline === undefined || p.name === pipeline) && (shop === undefined || shopOfPipeline(p) === shop)) total += await ctx.state.deadLetters.count(p.name);
  const of = pipeline ?? (shop ? `shop ${shop}` : undefined);
  const scope = of ? `all (${formatCount(total)} of ${of})` : `all (${formatCount(total)})`;
  const body = html`<h1>Dead letters</h1>
<form class="panel filters" method="get" action="/dead-letters">
<label>Pipeline<select name="pipeline"><option value="">all pipelines</option>${ctx.pipelines.map((p) => html`<option value="${p.name}"${pipeline === p.name ? html` selected` : ''}>${p.name}</option>`)}</select></label>
${shopSelect(ctx, shop)}
<button type="submit">Filter</button>
</form>
${
  letters.length === 0
    ? html`<div class="panel empty">No dead letters${pipeline ? html` for ${pipeline}` : ''}. Every failed record has been delivered or dropped.</div>`
    : html`<form method="post" action="/actions/dead-letters/retry" data-selection>
${csrfField(ctx.csrfToken)}${pipeline ? html`<input type="hidden" name="pipeline" value="${pipeline}">` : ''}${shop ? html`<input type="hidden" name="shop" value="${shop}">` : ''}
<div class="actions" style="margin-bottom:.6rem">
<button type="submit" name="scope" value="selected" formaction="/actions/dead-letters/retry" data-needs-selection>Retry selected (<span data-selected-count>0</span>)</button>
<button type="submit" class="danger" name="scope" value="selected" formaction="/actions/dead-letters/drop" data-needs-selection data-confirm="Drop the selected dead letters? Their records will not be retried.">Drop selected</button>
<button type="submit" class="secondary" name="scope" value="all" formaction="/actions/dead-letters/retry">Retry ${scope}</button>
<button type="submit" class="danger" name="scope" value="all" formaction="/actions/dead-letters/drop" data-confirm="Drop ${of ? `all ${formatCount(total)} dead letters of ${of}` : `all ${formatCount(total)} dead letters`}? Their records will not be retried.">Drop ${scope}</button>
</div>
<div class="table-wrap"><table id="dead-letters"><thead><tr><th><input type="checkbox" data-select-all aria-label="select all"></th><th>Pipeline</th><th>ERP key</th><th>Name</th><th>Reason</th><th class="num">Attempts</th><th class="hide-narrow">First failed</th><th>Last failed</th><th>Record</th><th></th></tr></thead>
<tbody>${letters.map((d) => row(d, ctx.now))}</tbody></table></div>
${letters.length < total ? html`<p class="muted small">Showing the ${formatCount(letters.length)} most recent of ${formatCount(total)}.</p>` : ''}
</form>`
}`;
  return { title: 'Dead letters', nav: 'dead-letters', body };
}
