/**
 * The operator dashboard, served by the daemon on its own port beside /healthz and /metrics.
 *
 * Server-rendered HTML (every value escaped by the `html` template), one small script for live
 * updates, inline SVG charts, and no external assets, so it works offline. Reading needs a loopback
 * connection or the dashboard token; acting needs a POST carrying the per-process CSRF token.
 */
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { silentLogger } from '../log.js';
import { FlashStore } from './flash.js';
import { messagePage } from './layout.js';
import { createLiveHub } from './live.js';
import { registerActions } from './routes/actions.js';
import { registerConflictActions } from './routes/conflicts.js';
import { registerApi } from './routes/api.js';
import type { RouteEnv } from './routes/env.js';
import { registerPages } from './routes/pages.js';
import { refusalLogOf } from '../ops/refusals.js';
import { assertSafeBinding, createSecurity, dashboardAuth, sendRefusal, type Refusal } from './security.js';
import { noticeOf, type DashboardDeps, type DashboardNotice } from './types.js';

export type { DashboardDeps, DashboardPipeline, DashboardNotice } from './types.js';
export { html, escapeHtml, unsafeRaw, SafeHtml } from './html.js';
export { assertSafeBinding, isLoopback } from './security.js';
export { dashboardActions, type ActionPipeline, type DashboardActionsOptions } from './pipeline-actions.js';

/** Content Security Policy: only the dashboard's own script and styles; no frames, no foreign form targets. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Paths anyone who can reach the port may load (the sign-in page and its assets). */
function isPublic(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return path.startsWith('/assets/') || path === '/login';
}

/**
 * Mount the dashboard on the daemon's fastify app (call before `listen`): pages at `/`, `/runs`,
 * `/runs/:id`, `/dead-letters`, `/records`, `/charts`; JSON and server-sent events under `/api/`;
 * actions under `/actions/`. Throws a ConfigError when `host` is not loopback and no token is set.
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const logger = (deps.logger ?? silentLogger).child({ component: 'dashboard' });
  assertSafeBinding(deps.host ?? '127.0.0.1', deps.token);
  const security = createSecurity(dashboardAuth(app, { ...(deps.token ? { token: deps.token } : {}), ...(deps.sessionLifetimeMs ? { sessionLifetimeMs: deps.sessionLifetimeMs } : {}) }));
  const refusals = refusalLogOf(app, logger);
  const live = createLiveHub({
    logger,
    fingerprint: async () => {
      const latest = (await deps.state.runs.list({ limit: 1 }))[0];
      const running = (await deps.state.runs.list({ status: 'running', limit: 20 })).map((r) => `${r.id}:${r.counts.read}:${r.counts.failed}`);
      const letters = (await deps.state.deadLetters.list({ limit: 1, excerpt: true }))[0];
      let letterCount = 0;
      for (const p of deps.pipelines) letterCount += await deps.state.deadLetters.count(p.name);
      return `${latest?.id ?? 0}/${latest?.status ?? ''}/${running.join(',')}/${letters?.id ?? 0}:${letters?.attempts ?? 0}:${letterCount}`;
    },
    subscribe: (listener: (n: DashboardNotice) => void) =>
      deps.events.onAny((event) => {
        const notice = noticeOf(event);
        if (notice) listener(notice);
      }),
  });
  const refuse = (request: FastifyRequest, reply: FastifyReply, refusal: Refusal): FastifyReply => {
    refusals.note(request, refusal.reason ?? `http-${refusal.status}`, `dashboard request refused: ${refusal.message}`, { status: refusal.status });
    return sendRefusal(request, reply, refusal, (message) => messagePage('Not allowed', message, security.csrfToken));
  };
  const env: RouteEnv = { deps, security, flash: new FlashStore(), live, logger, refusals, refuse };

  await app.register(async (child) => {
    await child.register(formbody, { bodyLimit: 1_048_576 });
    child.addHook('onRequest', async (request, reply) => {
      if (isPublic(request.url)) return;
      const refusal = security.checkAccess(request);
      if (!refusal) return;
      if (refusal.status === 401 && request.method === 'GET' && !request.url.startsWith('/api/')) {
        return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
      }
      return refuse(request, reply, refusal);
    });
    child.addHook('onSend', async (request, reply, payload) => {
      reply.header('content-security-policy', CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'same-origin');
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html')) {
        reply.header('cache-control', 'no-store');
        const existing = reply.getHeader('set-cookie');
        const cookies = security.cookies(request);
        if (cookies.length) reply.header('set-cookie', [...(Array.isArray(existing) ? existing : existing ? [String(existing)] : []), ...cookies]);
      } else if (type.startsWith('application/json')) {
        reply.header('cache-control', 'no-store');
      }
      return payload;
    });
    // Streams would otherwise hold the server open on shutdown.
    child.addHook('preClose', async () => live.close());
    registerApi(child, env);
    registerPages(child, env);
    registerActions(child, env);
    registerConflictActions(child, env);
  });
  logger.debug({ tokenRequired: security.tokenRequired }, 'dashboard mounted');
}
