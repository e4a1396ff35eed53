/** Page routes (GET) and the token sign-in. */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { html } from '../html.js';
import { page } from '../layout.js';
import { chartsPage } from '../pages/charts.js';
import type { PageContext, PageResult } from '../pages/context.js';
import { deadLettersPage } from '../pages/dead-letters.js';
import { conflictsPage } from '../pages/conflicts.js';
import { overviewPage } from '../pages/overview.js';
import { previewPage } from '../pages/preview.js';
import { recordsPage } from '../pages/records.js';
import { reconcilePage } from '../pages/reconcile.js';
import { runDetailPage } from '../pages/run-detail.js';
import { runsPage } from '../pages/runs.js';
import { SHOPS_PATH, shopsPage } from '../pages/shops.js';
import type { RouteEnv } from './env.js';

/** First value of every query parameter. */
export function firstValues(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
      const first = Array.isArray(v) ? v[0] : v;
      if (typeof first === 'string') out[k] = first;
    }
  }
  return out;
}

/** The stand-in origin `safeNext` resolves against (never contacted). */
const NEXT_BASE = 'http://placeholder.invalid';

/**
 * A local path to return to after sign-in, or `/`: never another site. Browsers drop tabs and
 * newlines from a URL and read `\` as `/`, so `/\t/evil.example` would leave the site; such a
 * `next` is refused whole rather than cleaned. What passes is resolved as the browser would and
 * must stay on the stand-in origin; it is answered in that parsed form (percent-encoded, so it
 * also fits a Location header).
 */
export function safeNext(next: string | undefined): string {
  // One leading slash, then no slash or backslash: `//host` and `/\host` name another host.
  if (!next || !/^\/(?![/\\])/.test(next)) return '/';
  // No backslash, whitespace or control character anywhere (C0, DEL, C1).
  if (/[\\\s\u0000-\u001f\u007f-\u009f]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return '/';
  }
  if (url.origin !== NEXT_BASE) return '/';
  const local = `${url.pathname}${url.search}${url.hash}`;
  return local.startsWith('/') && !local.startsWith('//') ? local : '/';
}

/** Register the page routes. */
export function registerPages(app: FastifyInstance, env: RouteEnv): void {
  const context = (request: FastifyRequest): PageContext => ({
    state: env.deps.state,
    pipelines: env.deps.pipelines,
    ...(env.deps.shopRates ? { shopRates: env.deps.shopRates } : {}),
    ...(env.deps.replicas ? { replicas: env.deps.replicas } : {}),
    ...(env.deps.shopHealth ? { shopHealth: env.deps.shopHealth } : {}),
    ...(env.deps.brokenShops ? { brokenShops: env.deps.brokenShops } : {}),
    ...(env.deps.triggers ? { triggers: env.deps.triggers } : {}),
    ...(env.deps.staleAfterMinutes !== undefined ? { staleAfterMinutes: env.deps.staleAfterMinutes } : {}),
    csrfToken: env.security.csrfToken,
    now: new Date(),
    query: firstValues(request.query),
  });
  const send = (request: FastifyRequest, reply: FastifyReply, result: PageResult): FastifyReply => {
    const flash = env.flash.render(firstValues(request.query).flash);
    const body = flash ? html`${flash}${result.body}` : result.body;
    return reply
      .code(result.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(page({ title: result.title, nav: result.nav, body, running: result.running, live: result.live, csrfToken: env.security.csrfToken, signOut: env.security.tokenRequired }));
  };

  app.get('/', async (request, reply) => send(request, reply, await overviewPage(context(request))));
  app.get(SHOPS_PATH, async (request, reply) => send(request, reply, await shopsPage(context(request))));
  app.get('/runs', async (request, reply) => send(request, reply, await runsPage(context(request))));
  app.get<{ Params: { id: string } }>('/runs/:id', async (request, reply) => send(request, reply, await runDetailPage(context(request), Number(request.params.id))));
  app.get('/dead-letters', async (request, reply) => send(request, reply, await deadLettersPage(context(request))));
  app.get('/conflicts', async (request, reply) => send(request, reply, await conflictsPage(context(request))));
  app.get('/records', async (request, reply) => send(request, reply, await recordsPage(context(request))));
  app.get('/charts', async (request, reply) => send(request, reply, await chartsPage(context(request))));
  app.get('/reconcile', async (request, reply) => send(request, reply, await reconcilePage(context(request), env.deps.reports)));
  app.get<{ Params: { pipeline: string; file: string } }>('/reconcile/:pipeline/:file', async (request, reply) => {
    const { pipeline, file } = request.params;
    const csv = file.endsWith('.csv') && env.deps.pipelines.some((p) => p.name === pipeline) ? await env.deps.reports?.csvFile(pipeline, file.slice(0, -4)) : undefined;
    if (!csv) return reply.code(404).type('text/plain; charset=utf-8').send(`no reconcile report ${file} of ${pipeline}`);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${pipeline}-reconcile-${file}"`)
      .send(createReadStream(csv));
  });
  app.get<{ Params: { name: string } }>('/pipelines/:name/preview', async (request, reply) => {
    // A preview reads the ERP and the shop: another site (even another port on this host) must not make the browser start one.
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return env.refuse(request, reply, { status: 403, message: `A preview reads the ERP and the shop; it is not started from another site (Sec-Fetch-Site: ${String(site)}). Open it from the dashboard.` });
    // Closing the tab stops the reading.
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) gone.abort();
    });
    const result = await previewPage({ pipelines: env.deps.pipelines, name: request.params.name, query: firstValues(request.query), signal: gone.signal, ...(env.deps.preview ? { preview: env.deps.preview.bind(env.deps) } : {}) });
    return send(request, reply, result);
  });

  app.get('/login', (request, reply) => {
    const next = safeNext(firstValues(request.query).next);
    if (!env.security.tokenRequired) return reply.redirect(next, 303);
    const failed = firstValues(request.query).failed === '1';
    const body = html`<form class="panel login" method="post" action="/login">
<h1>shopsync dashboard</h1>
<p class="muted">This dashboard is protected by a token: the value of <code>dashboard.token</code> in the daemon's config.</p>
${failed ? html`<div class="flash bad">That token is not right.</div>` : ''}
<input type="hidden" name="_csrf" value="${env.security.csrfToken}"><input type="hidden" name="next" value="${next}">
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button>
</form>`;
    return reply.type('text/html; charset=utf-8').send(page({ title: 'Sign in', body, live: false, csrfToken: env.security.csrfToken }));
  });

  const loginBody = z.object({ token: z.string().max(1000), next: z.string().max(2000).optional(), _csrf: z.string().optional() });
  app.post('/login', (request, reply) => {
    const parsed = loginBody.safeParse(request.body);
    const refusal = env.security.checkAction(request, parsed.success ? parsed.data._csrf : undefined);
    if (refusal) return env.refuse(request, reply, refusal);
    const next = safeNext(parsed.success ? parsed.data.next : undefined);
    const wrong = env.security.signIn(request, parsed.success ? parsed.data.token : undefined);
    if (wrong?.status === 429) return env.refuse(request, reply, wrong);
    if (wrong) {
      env.refusals.note(request, 'wrong-token', 'dashboard sign-in with a wrong token');
      return reply.redirect(`/login?failed=1&next=${encodeURIComponent(next)}`, 303);
    }
    return reply.header('set-cookie', env.security.cookies(request, { login: true })).redirect(next, 303);
  });
  app.post('/logout', (request, reply) => {
    const parsed = z.object({ _csrf: z.string().optional() }).safeParse(request.body);
    const refusal = env.security.checkAction(request, parsed.success ? parsed.data._csrf : undefined);
    if (refusal) return env.refuse(request, reply, refusal);
    return reply.header('set-cookie', env.security.cookies(request, { logout: true })).redirect('/login', 303);
  });
}
