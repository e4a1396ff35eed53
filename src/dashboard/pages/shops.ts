/** The shops a dashboard narrows its pages to: the shops of the configured pipelines. */
import { DEFAULT_SHOP } from '../../state/index.js';
import { html, type SafeHtml } from '../html.js';
import type { DashboardPipeline } from '../types.js';
import type { PageContext } from './context.js';

/** The shop of a pipeline (`default` when it names none). */
export const shopOfPipeline = (p: DashboardPipeline): string => p.shop ?? DEFAULT_SHOP;

/** The distinct shops of the pipelines, in config order. */
export function shopsOf(pipelines: readonly DashboardPipeline[]): string[] {
  return [...new Set(pipelines.map(shopOfPipeline))];
}

/** A shop choice for a filter form; nothing when the deployment serves one shop. */
export function shopSelect(ctx: PageContext, current: string | undefined): SafeHtml {
  const shops = shopsOf(ctx.pipelines);
  if (shops.length < 2) return html``;
  return html`<label>Shop<select name="shop" data-shop-filter><option value="">all shops</option>${shops.map((s) => html`<option value="${s}"${current === s ? html` selected` : ''}>${s}</option>`)}</select></label>`;
}

/** Links that narrow a page to one shop; nothing when the deployment serves one shop. */
export function shopLinks(ctx: PageContext, path: string): SafeHtml {
  const shops = shopsOf(ctx.pipelines);
  if (shops.length < 2) return html``;
  const current = ctx.query.shop;
  const link = (shop: string | undefined, label: string) => html`<a href="${path}${shop ? `?shop=${encodeURIComponent(shop)}` : ''}"${current === shop ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="shop-filter" data-shop-filter>Shop: ${link(undefined, 'all')}${shops.map((s) => html` · ${link(s, s)}`)}</nav>`;
}
