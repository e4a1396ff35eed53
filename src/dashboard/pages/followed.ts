/**
 * What the dashboard shows of a pull pipeline's `follow:` (issue 44, orders after checkout): how
 * many orders it still reads again, the oldest of them (number, placement day, age), how many are
 * done and when the last change reached the ERP. One line on the overview's card; a section
 * "Orders followed" on the pipeline's runs page (`/runs?pipeline=…`). Every value is escaped: the
 * order number and day come from the shop.
 */
import { followFiguresOf, type FollowFigures } from '../../ops/followFigures.js';
import { formatCount, formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import type { DashboardPipeline } from '../types.js';
import { dateOf, type PageContext } from './context.js';

/** The figures of a pipeline that follows; undefined for one without `follow:`. */
export async function followedOf(ctx: Pick<PageContext, 'state' | 'now'>, p: DashboardPipeline): Promise<FollowFigures | undefined> {
  return p.follow ? followFiguresOf(ctx.state, p.name, ctx.now) : undefined;
}

function days(n: number): string {
  return n === 1 ? '1 day' : `${formatCount(n)} days`;
}

function orderLink(key: string): SafeHtml {
  return html`<a href="/records?q=${encodeURIComponent(key)}" data-followed-oldest="${key}">#${key}</a>`;
}

/** `Following 3 orders, oldest #4711 placed 2026-11-28 (4 days), last change …` for the overview's card. */
export function followedLine(f: FollowFigures, now: Date): SafeHtml {
  const open = html`Following <b data-followed-open>${formatCount(f.open)}</b> ${f.open === 1 ? 'order' : 'orders'}`;
  const oldest = f.oldest ? html`, oldest ${orderLink(f.oldest.key)} placed ${f.oldest.placedDay} (${days(f.oldestAgeDays ?? 0)})` : '';
  const last = f.lastChangeAt ? html`, last change ${timeCell(dateOf(f.lastChangeAt), now)}` : html`, <span class="muted">no change delivered yet</span>`;
  return html`${open}${oldest}${last} <span class="muted small">· ${formatCount(f.done)} done</span>`;
}

/** The section "Orders followed" of a pipeline's page. */
export function followedSection(p: DashboardPipeline, f: FollowFigures, now: Date): SafeHtml {
  const follow = p.follow!;
  const near = f.oldestAgeDays !== undefined && f.oldestAgeDays >= follow.maxAgeDays;
  const settings = html`<p class="muted small" data-follow-settings>Read again every ${formatDuration(follow.everyMs) === '0 ms' ? 'run' : formatDuration(follow.everyMs)} until a final status (${follow.until.join(', ')}) or ${days(follow.maxAgeDays)} after placement. Cost: per placement day with open orders, one request per page of 250 orders (or one per open order, when fewer): <code>docs/benchmarks.md</code>.</p>`;
  const body =
    f.open === 0 && f.done === 0
      ? html`<p class="muted" data-followed-none>No order followed yet: each order this pipeline delivers is followed from its delivery on (the first follow pass also adopts the orders of the last ${days(follow.maxAgeDays)} already delivered).</p>`
      : html`<dl class="facts">
<dt>Open</dt><dd><b data-followed-open>${formatCount(f.open)}</b> ${f.open === 1 ? 'order is' : 'orders are'} read again until done</dd>
<dt>Oldest open</dt><dd>${f.oldest ? html`${orderLink(f.oldest.key)} placed <span class="mono" data-followed-placed>${f.oldest.placedDay}</span>, <span data-followed-age>${days(f.oldestAgeDays ?? 0)}</span> ago${near ? html` <span class="badge b-warn">at maxAgeDays: done at the next pass</span>` : ''}` : html`<span class="muted">none open</span>`}</dd>
<dt>Done</dt><dd><span data-followed-done>${formatCount(f.done)}</span> <span class="muted small">(final status, older than maxAgeDays, or gone from the shop)</span></dd>
<dt>Last change delivered</dt><dd data-followed-last>${f.lastChangeAt ? timeCell(dateOf(f.lastChangeAt), now) : html`<span class="muted">none yet</span>`}</dd>
</dl>`;
  return html`<section class="panel followed" data-pipeline="${p.name}"><h2>Orders followed</h2>${body}${settings}</section>`;
}
