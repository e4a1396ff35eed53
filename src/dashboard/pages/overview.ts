/** Overview: every pipeline with its state, last run, counts, cursor, schedule, triggers and dead letters; broken shops first. */
import { countWords } from '../../pipeline/countWords.js';
import { WATERMARK_LANE, watermarkText, watermarkView } from '../../pipeline/sourceWatermark.js';
import type { RunRecord, StoredCursor } from '../../state/index.js';
import { formatCount, formatDuration, timeCell } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { badge, csrfField } from '../layout.js';
import type { RateSnapshot } from '../../shop/rate/index.js';
import { pipelineViews, shopOfPipeline, type PipelineState, type PipelineView } from '../pipeline-views.js';
import { matchesStatus, parseStatusFilter, resumeCommand, STATUS_FILTERS } from '../../pipeline/failing.js';
import { actualRate, inFlightWords, rateWords, sentTitle, shopSelect, shopsOf, SHOPS_PATH } from './shops.js';
import { dateOf, runDurationMs, runErrorLine, type PageContext, type PageResult } from './context.js';
import { previewHref } from './preview.js';
import { replicasPanel } from './replicas.js';
import { lastHourLatency, latencyText } from './latency.js';
import { followedLine, followedOf } from './followed.js';
import type { DashboardTrigger } from '../types.js';

/** How a card names what wakes its pipeline. */
const WOKEN_BY: Record<DashboardTrigger['kind'], string> = { notify: 'NOTIFY', watch: 'a file drop', hook: 'POST /hooks', poll: 'short polling' };

/** `woken by NOTIFY: listening (LISTEN ch) · last wake-up …`, or `reconnecting since …` with what still runs meanwhile. */
function triggerLine(t: DashboardTrigger, scheduled: boolean, now: Date): SafeHtml {
  const down = t.state === 'reconnecting';
  return html`<div data-trigger="${t.kind}" data-trigger-state="${t.state}"${down ? html` class="issue error"` : ''}>woken by ${WOKEN_BY[t.kind]}: ${badge(t.state)}${down && t.since ? html` since ${timeCell(dateOf(t.since), now)}` : ''}${t.detail ? html` <span class="small muted">${t.detail}</span>` : ''}${t.lastWakeAt ? html` <span class="small muted">· last wake-up ${timeCell(dateOf(t.lastWakeAt), now)}</span>` : ''}${down ? html`<div class="small">${scheduled ? 'Its schedule still runs (the safety net) until the trigger is back.' : 'Nothing else wakes it meanwhile: give it a schedule as a safety net (docs/triggers.md).'}</div>` : ''}</div>`;
}

/** Shops beyond this many get one tile linking to the shops page instead of a rate tile each. */
const RATE_TILES_UP_TO = 4;

function cursorText(cursor: StoredCursor | undefined): SafeHtml {
  if (!cursor) return html`<span class="muted">not set (next run reads from the start)</span>`;
  return html`<code>${cursor.value === null ? 'null' : String(cursor.value)}</code>${cursor.key !== null ? html` <span class="muted small">after key</span> <code>${cursor.key}</code>` : ''}`;
}

function countsLine(run: RunRecord): SafeHtml {
  const c = run.counts;
  const out = c.created + c.updated;
  // A dry run's counts are what it would do ("would create 185"); a run's what it did ("185 created").
  const w = countWords(run.mode);
  const said = (n: number, word: string) => (run.mode === 'dry-run' ? `${word} ${formatCount(n)}` : `${formatCount(n)} ${word}`);
  return html`<span class="counts">
<span title="records read from the source">in <b>${formatCount(c.read)}</b></span>
<span title="${w.created} + ${w.updated}">out <b>${formatCount(out)}</b></span>
<span class="muted">${said(c.created, w.created)} · ${said(c.updated, w.updated)} · ${formatCount(c.unchanged)} unchanged</span>
${c.failed > 0 ? html`<span class="badge b-bad">${said(c.failed, w.failed)}</span>` : ''}
${c.warnings > 0 ? html`<span class="badge b-warn">${formatCount(c.warnings)} ${c.warnings === 1 ? 'warning' : 'warnings'}</span>` : ''}
</span>`;
}

async function card(ctx: PageContext, v: PipelineView): Promise<{ markup: SafeHtml; state: PipelineState; dead: number; name: string }> {
  const { now } = ctx;
  const { pipeline: p, running, last, state: st, deadLetters: dead } = v;
  const cursor = v.cursors.get('incremental');
  const held = watermarkView(v.cursors.get(WATERMARK_LANE));
  const latency = p.direction === 'push' ? (await lastHourLatency(ctx)).get(p.name) : undefined;
  const followed = await followedOf(ctx, p);
  const shown = running ?? last;
  const errorLine = last && !running ? runErrorLine(last.error) : undefined;
  const triggers = (ctx.triggers?.() ?? []).filter((t) => t.pipeline === p.name);
  const markup = html`<section class="panel card ${st}" data-pipeline="${p.name}">
<div class="card-head"><h2>${p.name}</h2>${badge(st)}</div>
<dl class="facts">
<dt>Shop</dt><dd><a href="/?shop=${encodeURIComponent(shopOfPipeline(p))}" data-shop="${shopOfPipeline(p)}">${shopOfPipeline(p)}</a></dd>
<dt>Flow</dt><dd>${p.direction === 'pull' ? html`shop <b>${p.resource ?? '?'}</b> → ERP` : html`ERP → shop <b>${p.resource ?? '?'}</b>`}</dd>
<dt>${running ? 'Current run' : 'Last run'}</dt><dd>${
    shown
      ? html`<a href="/runs/${shown.id}">#${shown.id}</a> ${badge(shown.status)} ${timeCell(dateOf(shown.startedAt), now)} <span class="muted">· ${formatDuration(runDurationMs(shown, now))}${shown.mode !== 'sync' ? ` · ${shown.mode}` : ''}</span>`
      : html`<span class="muted">never run</span>`
  }</dd>
${shown ? html`<dt>Records</dt><dd>${countsLine(shown)}</dd>` : ''}
${errorLine ? html`<dt>Error</dt><dd class="issue error">${errorLine}</dd>` : ''}
${v.failing ? html`<dt>Failing</dt><dd class="issue error" data-failing="${v.reasons.map((r) => r.code).join(' ')}">${v.reasons.map((r, i) => html`${i ? html`<br>` : ''}${r.text}`)}</dd>` : ''}
${p.direction === 'push' ? html`<dt>Change latency</dt><dd>${latencyText(latency)}</dd>` : ''}
${followed ? html`<dt>Followed</dt><dd data-followed>${followedLine(followed, now)}</dd>` : ''}
<dt>Cursor</dt><dd>${cursorText(cursor)}</dd>
${held ? html`<dt>Watermark</dt><dd data-watermark="${held.by}"${held.by === 'transactions' && held.heldForSeconds >= 60 ? html` class="issue warning"` : ''}>${watermarkText(held)}</dd>` : ''}
<dt>Next run</dt><dd>${v.paused ? html`<span class="issue error" data-paused>skipped: shop ${v.paused.shop} is paused; resume: <code>${resumeCommand(v.paused.shop)}</code></span>` : p.schedule ? html`${timeCell(p.nextRun(), now)} <span class="muted small">(<code>${p.schedule}</code>)</span>` : html`<span class="muted">not scheduled</span>`}</dd>
${triggers.length ? html`<dt>Triggers</dt><dd>${triggers.map((t) => triggerLine(t, p.schedule !== undefined, now))}</dd>` : ''}
<dt>Dead letters</dt><dd>${dead > 0 ? html`<a href="/dead-letters?pipeline=${encodeURIComponent(p.name)}"><span class="badge b-bad">${formatCount(dead)}</span></a>` : html`<span class="muted">none</span>`}</dd>
${v.conflicts > 0 ? html`<dt>Conflicts</dt><dd data-conflicts="${v.conflicts}"><a href="/conflicts?pipeline=${encodeURIComponent(p.name)}"><span class="badge b-warn">${formatCount(v.conflicts)} open</span></a> <span class="muted small">guarded fields edited in the shop</span></dd>` : ''}
</dl>
<div class="actions">
<form method="post" action="/actions/run">${csrfField(ctx.csrfToken)}<input type="hidden" name="pipeline" value="${p.name}"><button type="submit" data-run="${p.name}"${running ? html` disabled` : ''}>${running ? 'Running…' : 'Run now'}</button></form>
<a href="/runs?pipeline=${encodeURIComponent(p.name)}">All runs</a>
<a href="/charts#${encodeURIComponent(p.name)}">Chart</a>
${p.direction === 'push' ? html`<a href="${previewHref(p.name)}" data-preview-link>Preview next records</a>` : ''}
</div>
</section>`;
  return { markup, state: st, dead, name: p.name };
}

/**
 * A shop client's pace: the requests per second actually sent over the last minute beside the rate
 * it allows (the hard cap until the shop first said 429: an idle daemon showed "146.7/s" as if it
 * were traffic), the requests in flight, and whether it is still finding its limits.
 */
function rateStat(ctx: PageContext, shop: string, rate: RateSnapshot, named: boolean): SafeHtml {
  const how = rateWords(rate, ctx.shopHealth?.().find((h) => h.name === shop));
  const learnt = rate.learntLimitPerSecond !== undefined ? html` · shop refused above ${String(rate.learntLimitPerSecond)}/s` : '';
  const actual = actualRate(rate);
  const allowed = `${String(rate.requestsPerSecond)}/s allowed`;
  return html`<div class="panel stat" data-shop-rate="${shop}"><div class="v" title="${sentTitle(rate)}">${actual ? `${actual} actual` : allowed}</div><div class="k">${named ? html`shop <b>${shop}</b>` : 'shop'} requests${actual ? ` of ${allowed}` : ''} (${how}${learnt}), ${inFlightWords(rate)}</div></div>`;
}

/** The filter form: shop and status (`/?shop=at&status=failing`). */
function filters(ctx: PageContext, failing: number): SafeHtml {
  const status = ctx.query.status ?? '';
  const labels: Record<string, string> = { '': 'all', failing: `failing (${formatCount(failing)})`, running: 'running', ok: 'not failing' };
  return html`<form class="panel filters" method="get" action="/" data-overview-filter>
${shopSelect(ctx, ctx.query.shop)}
<label>Status<select name="status" data-status-filter>${['', ...STATUS_FILTERS].map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${labels[s] ?? s}</option>`)}</select></label>
<button type="submit">Filter</button> <a href="/">Reset</a>${failing > 0 && status !== 'failing' ? html` <a href="/?${ctx.query.shop ? `shop=${encodeURIComponent(ctx.query.shop)}&` : ''}status=failing" data-only-failing>Only the ${formatCount(failing)} failing</a>` : ''}
</form>`;
}

/** Render the overview (`?shop=` one shop, `?status=failing|running|ok`); failing pipelines come first. */
export async function overviewPage(ctx: PageContext): Promise<PageResult> {
  const shop = ctx.query.shop;
  const status = parseStatusFilter(ctx.query.status);
  if (status === 'invalid') return { title: 'Overview', nav: 'overview', status: 400, live: false, body: html`<h1>Overview</h1><p class="flash bad">No status "${ctx.query.status ?? ''}": use ${STATUS_FILTERS.join(', ')} (or none for all).</p><p><a href="/">All pipelines</a></p>` };
  // The tiles count the shop's pipelines; the cards show those the status keeps.
  const { views, replicas } = await pipelineViews(ctx, shop !== undefined ? { shop } : {});
  const shown = views.filter((v) => matchesStatus(status, { failing: v.failing, running: v.running !== undefined }));
  const cards: Awaited<ReturnType<typeof card>>[] = [];
  for (const v of shown) cards.push(await card(ctx, v));
  const running = views.filter((v) => v.running).length;
  const failing = views.filter((v) => v.failing).length;
  const dead = views.reduce((n, v) => n + v.deadLetters, 0);
  const allRates = ctx.shopRates?.() ?? {};
  const rates = Object.entries(allRates).filter(([name]) => shop === undefined || name === shop);
  const shops = shopsOf(ctx.pipelines);
  const failingShops = new Set(views.filter((v) => v.failing).map((v) => v.shop));
  for (const h of ctx.shopHealth?.() ?? []) if (h.health === 'failing' && (shop === undefined || h.name === shop)) failingShops.add(h.name);
  // A broken shop's pipelines are not in the config: without this line they would just be missing.
  const broken = (ctx.brokenShops ?? []).filter((b) => shop === undefined || b.name === shop);
  for (const b of broken) failingShops.add(b.name);
  const body = html`<h1>Overview</h1>
${broken.map((b) => html`<p class="flash bad" data-broken-shop="${b.name}">Shop <b>${b.name}</b> is broken (${b.file}:${String(b.line)}): ${b.pipelines.length ? `${b.pipelines.join(', ')} run nowhere` : 'it does not run'} until its file loads. <a href="${SHOPS_PATH}">See Shops</a> or run <code>shopsync config check</code>.</p>`)}
${shops.length > 1 || failing > 0 ? filters(ctx, failing) : ''}
<div class="summary-grid">
<div class="panel stat"><div class="v">${formatCount(views.length)}</div><div class="k">pipelines</div></div>
<div class="panel stat"><div class="v">${formatCount(running)}</div><div class="k">running</div></div>
<div class="panel stat"><a href="/?${shop ? `shop=${encodeURIComponent(shop)}&` : ''}status=failing"><div class="v"${failing > 0 ? html` style="color:var(--bad)"` : ''} data-failing-count="${failing}">${formatCount(failing)}</div><div class="k">failing</div></a></div>
<div class="panel stat"><div class="v"${dead > 0 ? html` style="color:var(--bad)"` : ''}>${formatCount(dead)}</div><div class="k">dead letters</div></div>
${rates.length > RATE_TILES_UP_TO ? html`<div class="panel stat"><a href="${SHOPS_PATH}"><div class="v"${failingShops.size > 0 ? html` style="color:var(--bad)"` : ''}>${formatCount(failingShops.size)} / ${formatCount(shops.length)}</div><div class="k">shops failing: see Shops</div></a></div>` : rates.map(([name, rate]) => rateStat(ctx, name, rate, Object.keys(allRates).length > 1))}
</div>
${replicasPanel(replicas)}
${cards.length ? html`<div class="cards">${cards.map((c) => c.markup)}</div>` : html`<div class="panel empty">${views.length ? 'No pipeline matches this filter.' : 'No pipelines are configured.'}</div>`}`;
  return { title: 'Overview', nav: 'overview', body, running: running > 0 };
}
