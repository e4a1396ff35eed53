/** Record lookup: by ERP key or shop id, the record's references, dead letters and history across runs. */
import type { DeadLetter, RecordEvent, Reference } from '../../state/index.js';
import { html } from '../html.js';
import { type PageContext, type PageResult } from './context.js';
import { shopsOf } from './shops.js';
import { eventExtras, eventHeaders, eventRows } from './record-events.js';
import { stockSection, stockViews } from './stock.js';
import { recordConflicts } from './conflicts.js';

const LIMIT = 200;

/** Everything the state knows about a key that may be an ERP key or a shop id. */
export async function lookupRecord(ctx: Pick<PageContext, 'state' | 'pipelines'>, q: string): Promise<{ references: Reference[]; events: RecordEvent[]; deadLetters: DeadLetter[] }> {
  const { state } = ctx;
  const shops = shopsOf(ctx.pipelines);
  const resources = [...new Set(ctx.pipelines.map((p) => p.resource).filter((r): r is string => r !== undefined))];
  const references: Reference[] = [];
  const seen = new Set<string>();
  const addRef = (r: Reference | undefined): void => {
    if (!r) return;
    const k = `${r.shop}\u0000${r.resource}\u0000${r.erpKey}`;
    if (!seen.has(k)) {
      seen.add(k);
      references.push(r);
    }
  };
  for (const shop of shops) {
    const refs = state.forShop(shop).refs;
    for (const resource of resources) {
      addRef(await refs.get(resource, q));
      for (const r of await refs.byShopId(resource, q)) addRef(r);
    }
  }
  const byId = new Map<number, RecordEvent>();
  // Per resource, so SQLite can use the (resource, erp_key) and (resource, shop_id) indexes.
  for (const resource of resources) {
    for (const e of await state.events.list({ resource, erpKey: q, limit: LIMIT, order: 'desc', excerpt: true })) byId.set(e.id, e);
    for (const e of await state.events.list({ resource, shopId: q, limit: LIMIT, order: 'desc', excerpt: true })) byId.set(e.id, e);
  }
  // A shop id search also finds the events recorded under the ERP key it maps to (failures before the record existed in the shop).
  for (const r of references) if (r.erpKey !== q) for (const e of await state.events.list({ resource: r.resource, erpKey: r.erpKey, limit: LIMIT, order: 'desc', excerpt: true })) byId.set(e.id, e);
  const events = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, LIMIT);
  const keys = new Set([q, ...references.map((r) => r.erpKey)]);
  const deadLetters: DeadLetter[] = [];
  for (const p of ctx.pipelines) for (const k of keys) {
    const d = await state.deadLetters.getByKey(p.name, k);
    if (d) deadLetters.push(d);
  }
  return { references, events, deadLetters };
}

/** Render the lookup form and, when a key was given, what is known about it. */
export async function recordsPage(ctx: PageContext): Promise<PageResult> {
  const q = (ctx.query.q ?? '').trim();
  const form = html`<h1>Record lookup</h1>
<form class="panel filters" method="get" action="/records" role="search">
<label>ERP key or shop id<input type="search" name="q" value="${q}" placeholder="e.g. SKU-1001 or 4711"${q ? '' : html` autofocus`}></label>
<button type="submit">Look up</button>
</form>`;
  if (!q) return { title: 'Records', nav: 'records', body: html`${form}<p class="muted">Type an ERP key (product number, order number…) or a shop id to see what every run did with that record.</p>`, live: false };
  const found = await lookupRecord(ctx, q);
  const extras = await eventExtras(ctx.state, found.events);
  const keys = [...new Set([q, ...found.references.map((r) => r.erpKey)])];
  const stock = await stockViews(ctx, keys, found.events);
  const conflicts = await recordConflicts(ctx, keys);
  const body = html`${form}
<h2>References</h2>
${
  found.references.length
    ? html`<div class="table-wrap"><table id="references"><thead><tr><th>Shop</th><th>Resource</th><th>ERP key</th><th>Shop id</th></tr></thead><tbody>${found.references.map(
        (r) => html`<tr><td>${r.shop}</td><td>${r.resource}</td><td class="mono">${r.erpKey}</td><td class="mono">${String(r.shopId)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No shop record is linked to <code>${q}</code>.</p>`
}
${
  found.deadLetters.length
    ? html`<h2>Dead letters</h2><ul>${found.deadLetters.map(
        (d) => html`<li><a href="/dead-letters?pipeline=${encodeURIComponent(d.pipeline)}">${d.pipeline}</a>: <code>${d.code}</code> ${d.reason} <span class="muted">(${String(d.attempts)} attempts)</span></li>`,
      )}</ul>`
    : ''
}
${conflicts}
${stockSection(stock, ctx.now)}
<h2>History</h2>
${
  found.events.length
    ? html`<div class="table-wrap"><table id="history"><thead>${eventHeaders(true)}</thead><tbody>${eventRows(found.events, { now: ctx.now, extras }, true)}</tbody></table></div>`
    : html`<div class="panel empty">No run has touched <code>${q}</code>.</div>`
}`;
  return { title: `Record ${q}`, nav: 'records', body };
}
