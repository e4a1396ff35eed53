/**
 * The record page's stock section (issue 43): per stock push and article, the ERP's figure, the
 * shop orders the ERP has not booked yet (with their numbers) and what was actually sent per stock
 * field (`state.stockSent`). A person asking "why does the shop show 7 when the ERP says 10?" finds
 * the answer here: 3 units in order 4711, not booked by the ERP yet.
 */
import { reservedFigure } from '../../reservations/index.js';
import type { ReservationLine, StockSent } from '../../reservations/types.js';
import { getResource, isResourceName } from '../../shop/registry/index.js';
import type { RecordEvent } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';
import { formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { shopOfPipeline } from '../pipeline-views.js';
import type { DashboardPipeline } from '../types.js';
import { dateOf, type PageContext } from './context.js';

/** The default of `reservations.alertAfter` (24 h), when a pipeline names none. */
const DEFAULT_ALERT_AFTER_MS = 24 * 3_600_000;

/** What one stock push knows about the record. */
export interface StockView {
  readonly pipeline: DashboardPipeline;
  readonly shop: string;
  readonly articles: readonly string[];
  readonly sent: readonly StockSent[];
  readonly unbooked: readonly ReservationLine[];
}

/** The article numbers a record may carry: the keys searched, and the article field of its payloads. */
export function articlesOf(keys: readonly string[], events: readonly RecordEvent[]): string[] {
  const out = new Set(keys);
  for (const e of events) {
    if (!e.resource || !isResourceName(e.resource)) continue;
    const field = getResource(e.resource).stock?.article;
    const value = field && isRecord(e.payload) ? e.payload[field] : undefined;
    if (typeof value === 'string' && value !== '') out.add(value);
  }
  return [...out];
}

/** Read, per push pipeline of a resource with stock, what was sent and what is unbooked for these keys. */
export async function stockViews(ctx: Pick<PageContext, 'state' | 'pipelines'>, keys: readonly string[], events: readonly RecordEvent[]): Promise<StockView[]> {
  const articles = articlesOf(keys, events);
  const views: StockView[] = [];
  for (const p of ctx.pipelines) {
    if (p.direction !== 'push' || !p.resource || !isResourceName(p.resource) || !getResource(p.resource).stock) continue;
    const shop = shopOfPipeline(p);
    const sentByKey = await ctx.state.stockSent.get(p.name, keys);
    const sent = [...sentByKey.values()].flat();
    const unbooked = p.reservations ? await ctx.state.reservations.unbooked(shop, articles) : [];
    if (sent.length > 0 || unbooked.length > 0) views.push({ pipeline: p, shop, articles, sent, unbooked });
  }
  return views;
}

/** How long a line has been unbooked: since shopsync first read it from the shop (its own clock; the shop's order time has no zone). */
export function unbookedForMs(line: ReservationLine, now: Date): number {
  return Math.max(0, now.getTime() - Date.parse(line.seenAt));
}

function sentTable(rows: readonly StockSent[], now: Date): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No stock figure was sent for this record yet.</p>`;
  return html`<div class="table-wrap"><table class="stock-sent"><thead><tr><th>Field</th><th>ERP figure</th><th>Unbooked, subtracted</th><th>Sent</th><th>When</th></tr></thead><tbody>${rows.map(
    (r) => html`<tr data-field="${r.field}"><td><code>${r.field}</code></td><td class="mono" data-erp>${r.erp}</td><td class="mono" data-reserved>${r.reserved}</td><td class="mono" data-sent>${r.sent}</td><td>${timeCell(dateOf(r.at), now)}</td></tr>`,
  )}</tbody></table></div>`;
}

function unbookedTable(lines: readonly ReservationLine[], now: Date, alertAfterMs: number): SafeHtml {
  if (lines.length === 0) return html`<p class="muted">No shop order of this article waits for the ERP to book it.</p>`;
  return html`<div class="table-wrap"><table class="unbooked"><thead><tr><th>Order</th><th>Line</th><th>Article</th><th>SKU</th><th>Warehouse</th><th>Quantity</th><th>Placed (shop time)</th><th>Read by shopsync</th><th>Reached the ERP</th><th>Unbooked for</th></tr></thead><tbody>${lines.map((l) => {
    const age = unbookedForMs(l, now);
    const stuck = age > alertAfterMs;
    return html`<tr data-order="${l.ordersId}"${stuck ? html` class="bad"` : ''}><td class="mono">${l.ordersId}</td><td class="mono">${l.pos}</td><td class="mono">${l.article}</td><td class="mono">${l.sku ?? '–'}</td><td class="mono">${l.warehouse ?? '–'}</td><td class="mono" data-quantity>${l.quantity}</td><td class="mono">${l.placedAt}</td><td>${timeCell(dateOf(l.seenAt), now)}</td><td>${l.deliveredAt ? timeCell(dateOf(l.deliveredAt), now) : html`<span class="muted">not yet</span>`}</td><td>${formatDuration(age)}${stuck ? html` <span class="badge bad">stuck: more than ${formatDuration(alertAfterMs)}</span>` : ''}</td></tr>`;
  })}</tbody></table></div>`;
}

/** The figure the shop may show now for the article total: the ERP's last figure less what is unbooked now. */
function summary(view: StockView): SafeHtml {
  const total = view.sent.find((r) => !r.field.includes('['));
  const units = view.unbooked.reduce((n, l) => n + l.quantity, 0);
  const orders = [...new Set(view.unbooked.map((l) => l.ordersId))];
  if (!view.pipeline.reservations) return html`<p>This pipeline subtracts no reservations (no <code>reservations:</code>): the ERP's figure is sent as it is.</p>`;
  if (!total) return html`<p><strong data-units>${units}</strong> unit(s) in ${orders.length} shop order(s) wait for the ERP to book them.</p>`;
  const erp = Number(total.erp);
  const now = Number.isFinite(erp) ? reservedFigure(erp, units) : undefined;
  return html`<p>ERP figure <strong data-erp-figure>${total.erp}</strong> at the last push, less <strong data-units>${units}</strong> unit(s) unbooked now in ${orders.length} order(s)${orders.length ? html` (${orders.map((o, i) => html`${i ? ', ' : ''}<code>${o}</code>`)})` : ''}: the shop may show <strong data-may-show>${now ?? '–'}</strong>. Last sent: <strong>${total.sent}</strong>.</p>`;
}

/** The stock section of the record page; nothing when no stock push knows the record. */
export function stockSection(views: readonly StockView[], now: Date): SafeHtml {
  if (views.length === 0) return html``;
  return html`<h2>Stock</h2>${views.map(
    (v) => html`<section class="panel stock" data-pipeline="${v.pipeline.name}">
<h3>${v.pipeline.name} <span class="muted small">shop ${v.shop}</span></h3>
${summary(v)}
<h4>Shop orders the ERP has not booked</h4>
${unbookedTable(v.unbooked, now, v.pipeline.reservations?.alertAfterMs ?? DEFAULT_ALERT_AFTER_MS)}
<h4>What was sent</h4>
${sentTable(v.sent, now)}
</section>`,
  )}`;
}
