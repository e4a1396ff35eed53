/** JSON endpoints (for scripts and the live page), the event stream and the static assets. */
import type { FastifyInstance } from 'fastify';
import { CLIENT_JS } from '../assets/client.js';
import { FAVICON_SVG } from '../assets/favicon.js';
import { STYLE_CSS } from '../assets/style.js';
import { pipelineViews } from '../pipeline-views.js';
import { parseStatusFilter, resumeCommand, STATUS_FILTERS } from '../../pipeline/failing.js';
import { shopRows } from '../pages/shops.js';
import { toMinutePoints } from '../pages/charts.js';
import { lookupRecord } from '../pages/records.js';
import { runFilterFromQuery } from '../pages/runs.js';
import { followedOf } from '../pages/followed.js';
import { recentLatency } from '../../pipeline/latency.js';
import { firstValues } from './pages.js';
import type { RouteEnv } from './env.js';

/** Register `/assets/*`, `/api/*`. */
export function registerApi(app: FastifyInstance, env: RouteEnv): void {
  const { deps } = env;
  const asset = (type: string, body: string) => (_: unknown, reply: import('fastify').FastifyReply) => reply.type(type).header('cache-control', 'no-cache').send(body);
  app.get('/assets/dashboard.css', asset('text/css; charset=utf-8', STYLE_CSS));
  app.get('/assets/dashboard.js', asset('text/javascript; charset=utf-8', CLIENT_JS));
  app.get('/assets/favicon.svg', asset('image/svg+xml', FAVICON_SVG));

  app.get('/api/stream', (request, reply) => env.live.serve(request, reply));

  // `?shop=` one shop's pipelines, `?status=failing|running|ok` (src/pipeline/failing.ts); failing first.
  app.get('/api/overview', async (request, reply) => {
    const q = firstValues(request.query);
    const status = parseStatusFilter(q.status);
    if (status === 'invalid') return reply.code(400).send({ error: `No status "${q.status ?? ''}": use ${STATUS_FILTERS.join(', ')} (or none for all).` });
    const shop = q.shop || undefined;
    const { views } = await pipelineViews({ ...deps, now: new Date() }, { ...(shop !== undefined ? { shop } : {}), ...(status !== undefined ? { status } : {}) });
    const latency = await recentLatency(deps.state);
    const now = new Date();
    const followed = new Map(await Promise.all(views.map(async (v) => [v.pipeline.name, await followedOf({ state: deps.state, now }, v.pipeline)] as const)));
    const rates = Object.entries(deps.shopRates?.() ?? {}).filter(([name]) => shop === undefined || name === shop);
    const triggers = deps.triggers?.() ?? [];
    return {
      shopRates: Object.fromEntries(rates),
      brokenShops: (deps.brokenShops ?? []).filter((b) => shop === undefined || b.name === shop),
      pipelines: views.map((v) => ({
        name: v.pipeline.name,
        shop: v.shop,
        resource: v.pipeline.resource,
        direction: v.pipeline.direction,
        schedule: v.pipeline.schedule,
        state: v.state,
        failing: v.failing,
        reasons: v.reasons,
        nextRun: v.pipeline.nextRun()?.toISOString(),
        currentRun: v.running,
        lastRun: v.last,
        lastSuccessAt: v.lastSuccessAt,
        cursor: v.cursors.get('incremental'),
        deadLetters: v.deadLetters,
        conflicts: v.conflicts,
        paused: v.paused ? { since: new Date(v.paused.pausedAt).toISOString(), reason: v.paused.reason, resume: resumeCommand(v.paused.shop) } : null,
        triggers: triggers.filter((t) => t.pipeline === v.pipeline.name),
        // p50/p95 of the last hour's delivered changes (change timestamp → shop answer), from every replica's runs.
        changeLatency: latency.get(v.pipeline.name) ?? null,
        // A pull with follow: (issue 44): open and done orders, the oldest open one and its age, the last change delivered.
        followed: followed.get(v.pipeline.name) ?? null,
      })),
    };
  });
  // One row per shop: health as this process saw it, rate, last successful run, pipelines, failing ones, dead letters.
  app.get('/api/shops', async () => {
    const { views, streaks } = await pipelineViews({ ...deps, now: new Date() });
    return { shops: shopRows(deps, views, streaks) };
  });
  app.get('/api/runs', async (request) => {
    const filter = runFilterFromQuery(firstValues(request.query));
    return { runs: await deps.state.runs.list({ ...filter, limit: (filter.limit ?? 51) - 1 }) };
  });
  app.get<{ Params: { id: string } }>('/api/runs/:id', async (request, reply) => {
    const id = Number(request.params.id);
    const run = Number.isSafeInteger(id) ? await deps.state.runs.get(id) : undefined;
    if (!run) return reply.code(404).send({ error: `There is no run #${request.params.id}.` });
    const q = firstValues(request.query);
    const limit = Math.min(1000, Math.max(1, Number.parseInt(q.limit ?? '200', 10) || 200));
    const offset = Math.max(0, Number.parseInt(q.offset ?? '0', 10) || 0);
    return { run, events: await deps.state.events.list({ runId: id, limit, offset, order: 'asc', excerpt: true }) };
  });
  app.get('/api/dead-letters', async (request) => {
    const { pipeline, shop } = firstValues(request.query);
    return { deadLetters: await deps.state.deadLetters.list({ ...(pipeline ? { pipeline } : {}), ...(shop ? { shop } : {}), limit: 1000, excerpt: true }) };
  });
  app.get('/api/records', async (request, reply) => {
    const q = (firstValues(request.query).q ?? '').trim();
    if (!q) return reply.code(400).send({ error: 'Give an ERP key or shop id as ?q=.' });
    return lookupRecord({ state: deps.state, pipelines: deps.pipelines }, q);
  });
  app.get('/api/charts', async () => {
    const to = Math.ceil(Date.now() / 60_000) * 60_000;
    const from = to - 24 * 60 * 60 * 1000;
    return {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      pipelines: await Promise.all(deps.pipelines.map(async (p) => ({
        name: p.name,
        perMinute: toMinutePoints(await deps.state.events.countsPerMinute({ since: from, until: to, pipeline: p.name })).map((m) => ({ minute: new Date(m.minute).toISOString(), records: m.records, errors: m.errors })),
      }))),
    };
  });
}
