/** JSON endpoints (for scripts and the live page), the event stream and the static assets. */
import type { FastifyInstance } from 'fastify';
import { CLIENT_JS } from '../assets/client.js';
import { FAVICON_SVG } from '../assets/favicon.js';
import { STYLE_CSS } from '../assets/style.js';
import { pipelineState } from '../pages/overview.js';
import { toMinutePoints } from '../pages/charts.js';
import { lookupRecord } from '../pages/records.js';
import { runFilterFromQuery } from '../pages/runs.js';
import { DEFAULT_SHOP } from '../../state/index.js';
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

  app.get('/api/overview', async () => {
    const latency = await recentLatency(deps.state);
    return {
      shopRates: deps.shopRates?.() ?? {},
      pipelines: await Promise.all(deps.pipelines.map(async (p) => {
        const running = (await deps.state.runs.list({ pipeline: p.name, status: 'running', limit: 1 }))[0];
        const last = (await deps.state.runs.list({ pipeline: p.name, status: ['succeeded', 'partial', 'failed', 'aborted', 'crashed'], limit: 1 }))[0];
        return {
          name: p.name,
          shop: p.shop ?? DEFAULT_SHOP,
          resource: p.resource,
          direction: p.direction,
          schedule: p.schedule,
          state: pipelineState(running, last),
          nextRun: p.nextRun()?.toISOString(),
          currentRun: running,
          lastRun: last,
          cursor: await deps.state.cursors.get(p.name),
          deadLetters: await deps.state.deadLetters.count(p.name),
          // p50/p95 of the last hour's delivered changes (change timestamp → shop answer), from every replica's runs.
          changeLatency: latency.get(p.name) ?? null,
        };
      })),
    };
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
    return { run, events: await deps.state.events.list({ runId: id, limit, offset, order: 'asc' }) };
  });
  app.get('/api/dead-letters', async (request) => {
    const { pipeline, shop } = firstValues(request.query);
    return { deadLetters: await deps.state.deadLetters.list({ ...(pipeline ? { pipeline } : {}), ...(shop ? { shop } : {}), limit: 1000 }) };
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
