/**
 * Shops: one table row per shop (fifty shops stay readable) with its health as this process's
 * clients saw it (reachable, token accepted, last answer), its request rate, its last successful
 * run, open dead letters and its failing pipelines; failing shops first. A paused shop says since
 * when, why and how to resume it, a shop whose runs keep failing says how many; a shop whose file
 * did not load has a row of its own with the file, line and message. Also the shop filters of the
 * other pages and the shop-rate tiles of the overview.
 */
import type { RateSnapshot } from '../../shop/rate/index.js';
import { formatCount, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge } from '../layout.js';
import { pipelineViews, shopOfPipeline, type PipelineView } from '../pipeline-views.js';
import { shopStreakView, type ShopStreakView } from '../../pipeline/failing.js';
import type { ShopStreak } from '../../state/index.js';
import type { DashboardBrokenShop, DashboardPipeline, DashboardShopHealth } from '../types.js';
import { dateOf, type PageContext, type PageResult } from './context.js';

export { shopOfPipeline } from '../pipeline-views.js';

/** Where the shops page is served (`/shops` itself is the daemon's JSON health endpoint). */
export const SHOPS_PATH = '/shop-health';

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

/**
 * How a shop client paces itself, in words. While the shop's requests fail (down, token refused)
 * the adaptive controller hears nothing (a refused connection is no answer) and stays where it
 * was, still in slow start: that is "held", never "growing".
 */
export function rateWords(rate: RateSnapshot, health: DashboardShopHealth | undefined): string {
  if (health?.health === 'failing') return `${rate.mode === 'fixed' ? 'fixed rate' : 'adaptive'}, held: not learning while requests fail`;
  if (rate.mode === 'fixed') return 'fixed rate';
  return rate.phase === 'slow-start' ? 'adaptive, growing' : 'adaptive';
}

/** Requests per second actually sent over the last minute, or undefined when the snapshot does not say (a client without the count). */
export function actualRate(rate: RateSnapshot): string | undefined {
  return rate.sent ? `${rate.sent.perSecond.toFixed(1)}/s` : undefined;
}

/** Requests in flight: "0 of 2 in flight" with the actual count, else the allowed one said as such. */
export function inFlightWords(rate: RateSnapshot): string {
  return rate.sent ? `${formatCount(rate.sent.inFlight)} of ${formatCount(rate.concurrency)} in flight` : `${formatCount(rate.concurrency)} allowed in flight`;
}

/** Tooltip of an actual rate: what it was measured over. */
export function sentTitle(rate: RateSnapshot): string {
  return rate.sent ? `${rate.sent.lastMinute} request(s) sent in the last 60 s` : 'this client does not count what it sent';
}

/** One shop's row: what the state and this process know of it. */
export interface ShopRow extends ShopStreakView {
  readonly name: string;
  /** From this process's clients; `unknown` without a tracker or before the first request; `broken` when its file did not load. */
  readonly health: DashboardShopHealth['health'] | 'broken';
  /** Where its file went wrong, when it did not load (then it has no client and its pipelines run nowhere). */
  readonly broken: Omit<DashboardBrokenShop, 'name'> | null;
  readonly reachable: boolean | null;
  readonly tokenAccepted: boolean | null;
  readonly lastAnswerAt: string | null;
  readonly lastError: string | null;
  readonly failingSince: string | null;
  readonly rate?: RateSnapshot & { readonly words: string };
  /** Latest finish of a succeeded or partial run of its pipelines. */
  readonly lastSuccessAt: string | null;
  readonly pipelines: number;
  readonly failingPipelines: readonly string[];
  readonly running: number;
  readonly deadLetters: number;
  /** The shop needs a look: its requests fail, a pipeline of it is failing, it is paused or broken. */
  readonly failing: boolean;
}

/** The rows of every shop (or the failing ones), failing first, from pipeline views read once. */
export function shopRows(ctx: Pick<PageContext, 'pipelines' | 'shopRates' | 'shopHealth' | 'brokenShops'>, views: readonly PipelineView[], streaks: readonly ShopStreak[] = []): ShopRow[] {
  const health = new Map((ctx.shopHealth?.() ?? []).map((h) => [h.name, h]));
  const rates = ctx.shopRates?.() ?? {};
  const streakOf = new Map(streaks.map((s) => [s.shop, s]));
  const names = [...new Set([...shopsOf(ctx.pipelines), ...health.keys()])];
  // A broken shop has no client and its pipelines are not in the config: a row of its own, or it would be missing silently.
  const broken = (ctx.brokenShops ?? []).filter((b) => !names.includes(b.name)).map((b): ShopRow => ({
    name: b.name,
    health: 'broken',
    broken: { file: b.file, line: b.line, message: b.message, pipelines: b.pipelines },
    ...shopStreakView(b.name, streakOf.get(b.name)),
    reachable: null,
    tokenAccepted: null,
    lastAnswerAt: null,
    lastError: null,
    failingSince: null,
    lastSuccessAt: null,
    pipelines: b.pipelines.length,
    failingPipelines: [],
    running: 0,
    deadLetters: 0,
    failing: true,
  }));
  const rows = names.map((name): ShopRow => {
    const mine = views.filter((v) => v.shop === name);
    const h = health.get(name);
    const rate = rates[name];
    const successes = mine.map((v) => v.lastSuccessAt).filter((t): t is string => t !== undefined).sort();
    const failingPipelines = mine.filter((v) => v.failing).map((v) => v.pipeline.name);
    const streak = shopStreakView(name, streakOf.get(name));
    return {
      name,
      health: h?.health ?? 'unknown',
      broken: null,
      ...streak,
      reachable: h?.reachable ?? null,
      tokenAccepted: h?.tokenAccepted ?? null,
      lastAnswerAt: h?.lastSuccessAt ?? null,
      lastError: h?.lastError?.message ?? null,
      failingSince: h?.failingSince ?? null,
      ...(rate ? { rate: { ...rate, words: rateWords(rate, h) } } : {}),
      lastSuccessAt: successes.at(-1) ?? null,
      pipelines: mine.length,
      failingPipelines,
      running: mine.filter((v) => v.running).length,
      deadLetters: mine.reduce((n, v) => n + v.deadLetters, 0),
      failing: h?.health === 'failing' || failingPipelines.length > 0 || streak.paused !== null,
    };
  });
  return [...broken, ...rows.filter((r) => r.failing), ...rows.filter((r) => !r.failing)];
}

const yesNo = (v: boolean | null, yes: string, no: string): SafeHtml => (v === null ? html`<span class="muted">–</span>` : v ? html`<span class="badge b-ok">${yes}</span>` : html`<span class="badge b-bad">${no}</span>`);

/** A shop whose file did not load: where and why, across the columns that would be empty. */
function brokenRow(r: ShopRow & { broken: NonNullable<ShopRow['broken']> }): SafeHtml {
  const b = r.broken;
  return html`<tr data-shop-row="${r.name}" data-health="broken" class="failing">
<td class="nowrap"><b>${r.name}</b></td>
<td>${badge('broken')}<div class="small muted" data-shop-file>${b.file}:${String(b.line)}</div></td>
<td colspan="5"><div class="small issue error" data-shop-error style="white-space:pre-wrap">${b.message}</div><div class="small muted">Its pipelines run nowhere until the file loads; <code>shopsync config check</code> says the same, and the daemon loads the file at its next start.</div></td>
<td class="num" title="${b.pipelines.join(', ')}">${formatCount(b.pipelines.length)} <span class="small muted">not run</span></td>
<td class="num"><span class="muted">–</span></td>
</tr>`;
}

/** The pause (since when, why, how to resume) and a failure streak, under the health badge. */
function streakNotes(r: ShopRow, now: Date): SafeHtml {
  if (r.paused) {
    return html`<div data-shop-paused="${r.paused.since}">${badge('paused')} <span class="small muted">since ${timeCell(dateOf(r.paused.since), now)}</span></div>${r.paused.reason ? html`<div class="small issue error">${r.paused.reason}</div>` : ''}<div class="small">Scheduled runs are skipped; resume: <code>${r.paused.resume}</code></div>`;
  }
  if (r.streak) return html`<div class="small issue warning" data-shop-streak="${String(r.streak.failedRuns)}">${formatCount(r.streak.failedRuns)} run(s) in a row failed${r.streak.since ? html` since ${timeCell(dateOf(r.streak.since), now)}` : ''}</div>`;
  return html``;
}

/** The actual rate beside the allowed one, the pacing in words and the requests in flight. */
function rateCell(rate: NonNullable<ShopRow['rate']>): SafeHtml {
  const actual = actualRate(rate);
  const learnt = rate.learntLimitPerSecond !== undefined ? ` · refused above ${rate.learntLimitPerSecond}/s` : '';
  return html`${actual ? html`<b title="${sentTitle(rate)}">${actual}</b> actual of ` : ''}<b>${String(rate.requestsPerSecond)}/s</b> allowed <span class="small muted">(${rate.words}${learnt}), ${inFlightWords(rate)}</span>`;
}

function row(r: ShopRow, now: Date): SafeHtml {
  if (r.broken) return brokenRow({ ...r, broken: r.broken });
  const shopHref = (extra: string) => `/?shop=${encodeURIComponent(r.name)}${extra}`;
  return html`<tr data-shop-row="${r.name}" data-health="${r.health}"${r.failing ? html` class="failing"` : ''}>
<td class="nowrap"><a href="${shopHref('')}"><b>${r.name}</b></a></td>
<td>${streakNotes(r, now)}${badge(r.health)}${r.failingSince ? html`<div class="small muted">since ${timeCell(dateOf(r.failingSince), now)}</div>` : ''}${r.lastError ? html`<div class="small issue error" data-shop-error>${r.lastError}</div>` : ''}</td>
<td>${yesNo(r.reachable, 'yes', 'no')}</td>
<td>${yesNo(r.tokenAccepted, 'accepted', 'refused')}</td>
<td class="nowrap" data-shop-rate="${r.name}">${r.rate ? rateCell(r.rate) : html`<span class="muted">–</span>`}</td>
<td>${timeCell(dateOf(r.lastSuccessAt ?? undefined), now)}${r.lastAnswerAt ? html`<div class="small muted">last good answer ${timeCell(dateOf(r.lastAnswerAt), now)}</div>` : ''}</td>
<td class="num">${formatCount(r.pipelines)}${r.running ? html` <span class="small muted">(${r.running} running)</span>` : ''}</td>
<td class="num">${r.failingPipelines.length ? html`<a href="${shopHref('&status=failing')}" title="${r.failingPipelines.join(', ')}"><span class="badge b-bad">${formatCount(r.failingPipelines.length)}</span></a>` : html`<span class="muted">0</span>`}</td>
<td class="num">${r.deadLetters ? html`<a href="/dead-letters?shop=${encodeURIComponent(r.name)}"><span class="badge b-bad">${formatCount(r.deadLetters)}</span></a>` : html`<span class="muted">0</span>`}</td>
</tr>`;
}

/** Render the shops page (`?status=failing`: only the shops that need a look). */
export async function shopsPage(ctx: PageContext): Promise<PageResult> {
  const { views, streaks } = await pipelineViews(ctx);
  const all = shopRows(ctx, views, streaks);
  const onlyFailing = ctx.query.status === 'failing';
  const rows = onlyFailing ? all.filter((r) => r.failing) : all;
  const failing = all.filter((r) => r.failing).length;
  const tracked = ctx.shopHealth !== undefined;
  const body = html`<h1>Shops</h1>
<p class="muted small">${formatCount(all.length)} ${all.length === 1 ? 'shop' : 'shops'}, <b${failing ? html` style="color:var(--bad)"` : ''} data-failing-shops="${failing}">${formatCount(failing)} failing</b> (requests failing, a pipeline failing, paused or broken).${tracked ? '' : ' Health is known only to a daemon that talks to the shops; here the runs tell what they can.'} ${onlyFailing ? html`<a href="${SHOPS_PATH}">Show all shops</a>` : html`<a href="${SHOPS_PATH}?status=failing">Only the failing shops</a>`}</p>
${rows.length
  ? html`<div class="table-wrap"><table class="shops">
<thead><tr><th>Shop</th><th>Health</th><th>Reachable</th><th>Token</th><th>Rate</th><th>Last successful run</th><th class="num">Pipelines</th><th class="num">Failing</th><th class="num">Dead letters</th></tr></thead>
<tbody>${rows.map((r) => row(r, ctx.now))}</tbody></table></div>`
  : html`<div class="panel empty">${onlyFailing ? 'No shop is failing.' : 'No shops are configured.'}</div>`}`;
  return { title: 'Shops', nav: 'shops', body };
}
