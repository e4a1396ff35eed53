/**
 * The sandbox's HTTP layer (fastify): one catch-all route that dispatches to the OAuth token
 * endpoint, the control endpoints and the registry-derived API routes, in that order.
 * API requests pass: faults -> bearer token (401) -> route (501) -> scope (403) -> handler in a
 * transaction.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Logger } from '../log.js';
import { hasScope, type TokenRegistry } from './auth.js';
import { handleControl, unknownControl, type ControlDeps } from './control.js';
import type { FaultInjector } from './faults.js';
import { SandboxHttpError, type ResourceHandler, type SandboxReply, type SandboxRequest } from './handler.js';
import { errorBody } from './kit.js';
import { matchRoute, type Route } from './routes.js';
import type { InternalContext } from './context.js';
import { sleep } from '../util/time.js';

/** What the server dispatches to. */
export interface ServerDeps extends ControlDeps {
  readonly ctx: InternalContext;
  readonly routes: readonly Route[];
  readonly handlers: Readonly<Record<string, ResourceHandler | undefined>>;
  readonly tokens: TokenRegistry;
  readonly faults: FaultInjector;
  readonly logger: Logger;
  /** Told of every API write the shop stored (see `SandboxOptions.onWrite`). */
  readonly onWrite?: (write: SandboxWrite) => void;
}

/** A write the sandbox stored: when its transaction committed, what it wrote, and the request's body. */
export interface SandboxWrite {
  /** Unix ms when the write was stored (its transaction committed, before the answer left). */
  readonly at: number;
  readonly resource: string;
  /** The registry operation: create, update, delete… */
  readonly operation: string;
  readonly status: number;
  readonly body: unknown;
}

const BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Create the fastify instance (not yet listening). */
export async function createServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });
  await app.register(formbody);
  // Tolerate empty JSON bodies (DELETE with Content-Type but no body) and answer bad JSON in the shop's envelope.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const raw = typeof text === 'string' ? text : text.toString('utf8');
    if (raw.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(raw) as unknown);
    } catch {
      done(new SandboxHttpError(400, 'INVALID_PAYLOAD', 'The body is not valid JSON'), undefined);
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof SandboxHttpError) return reply.status(err.status).send(errorBody(err.code, err.message, err.details));
    const status = typeof (err as { statusCode?: unknown }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    if (status >= 500) deps.logger.error({ err }, 'sandbox request failed');
    return reply.status(status).send(errorBody(status === 413 ? 'PAYLOAD_TOO_LARGE' : status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_PAYLOAD', err instanceof Error ? err.message : String(err)));
  });
  app.all('/*', (request, reply) => dispatch(deps, request, reply));
  app.all('/', (request, reply) => dispatch(deps, request, reply));
  return app;
}

function send(reply: FastifyReply, answer: SandboxReply): FastifyReply {
  reply.status(answer.status);
  for (const [k, v] of Object.entries(answer.headers ?? {})) reply.header(k, v);
  if (Buffer.isBuffer(answer.body)) return reply.send(answer.body);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
}

function firstValues(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof query !== 'object' || query === null) return out;
  for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined && first !== null) out[k] = String(first);
  }
  return out;
}

function destroy(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket.destroy();
}

async function dispatch(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const path = request.url.split('?')[0];
  const lower = path.toLowerCase();
  if (lower === '/oauth/token') return send(reply, oauthToken(deps, request));

  if (lower.startsWith('/sandbox/') || lower === '/sandbox') {
    const auth = deps.tokens.check(request.headers.authorization);
    if (!auth.ok) return send(reply, unauthorized(auth.reason));
    const answer = handleControl(deps, request.method, path, request.body);
    return send(reply, answer ?? unknownControl(path));
  }

  const fault = deps.faults.decide();
  deps.traffic.record(fault.kind === 'rate-limited');
  if (fault.kind === 'rate-limited') {
    return send(reply, { status: 429, headers: { 'Retry-After': String(fault.retryAfterSeconds) }, body: errorBody('RATE_LIMITED', `Too many requests; retry after ${fault.retryAfterSeconds} s`, { retry_after: fault.retryAfterSeconds }) });
  }
  if (fault.delayMs > 0) {
    const release = deps.traffic.hold(request.method);
    try {
      await sleep(fault.delayMs);
    } finally {
      release();
    }
  }
  if (fault.kind === 'error') return send(reply, { status: fault.status, body: errorBody('INJECTED_FAULT', `Injected fault: status ${fault.status} (the request did not take effect)`) });
  if (fault.kind === 'reset') return destroy(request, reply);

  const auth = deps.tokens.check(request.headers.authorization);
  if (!auth.ok) return send(reply, unauthorized(auth.reason));

  const match = matchRoute(deps.routes, request.method, path);
  if (match.kind !== 'found') return send(reply, { status: 501, body: errorBody('Method not found', `Method not found: ${request.method} ${path}`) });
  const { route, params } = match;
  if (!hasScope(auth.scopes, route.op.scope)) {
    return send(reply, { status: 403, body: errorBody('INSUFFICIENT_SCOPE', `This endpoint needs the scope ${route.op.scope}`, { required: route.op.scope }) });
  }
  const handler = deps.handlers[route.resource.name];
  const fn = route.operation in (route.resource.ops.extra ?? {}) ? handler?.extra?.[route.operation] : (handler?.[route.operation as keyof ResourceHandler] as ResourceHandler['export']);
  if (!fn) return send(reply, { status: 501, body: errorBody('Method not found', `Method not found: ${route.resource.name} ${route.operation} is not implemented`) });

  const req: SandboxRequest = {
    method: request.method,
    resource: route.resource,
    operation: route.operation,
    params,
    query: firstValues(request.query),
    body: request.body,
    scopes: auth.scopes,
  };
  let answer: SandboxReply;
  try {
    answer = deps.ctx.db.transaction(() => fn(deps.ctx, req))();
  } catch (err) {
    if (!(err instanceof SandboxHttpError)) throw err;
    answer = { status: err.status, headers: err.headers, body: errorBody(err.code, err.message, err.details) };
  }
  if (deps.onWrite && request.method !== 'GET' && answer.status < 300) deps.onWrite({ at: Date.now(), resource: route.resource.name, operation: route.operation, status: answer.status, body: request.body });
  if (fault.resetAfter) return destroy(request, reply);
  return send(reply, answer);
}

function unauthorized(reason: 'missing' | 'invalid' | 'expired'): SandboxReply {
  const message =
    reason === 'missing'
      ? 'Missing bearer token: send the header Authorization: Bearer <ACCESS_TOKEN>'
      : reason === 'expired'
        ? 'The access token has expired; request a new one at /oauth/token'
        : 'Invalid bearer token';
  return { status: 401, headers: { 'WWW-Authenticate': 'Bearer' }, body: errorBody('UNAUTHORIZED', message, { reason }) };
}

function oauthToken(deps: ServerDeps, request: FastifyRequest): SandboxReply {
  if (request.method !== 'POST') return { status: 405, headers: { Allow: 'POST' }, body: { error: 'invalid_request', error_description: 'Use POST' } };
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  let clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
  let clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (basic && clientId === undefined) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      clientId = decodeURIComponent(decoded.slice(0, colon));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    }
  }
  if (body.grant_type !== 'client_credentials') {
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Only grant_type=client_credentials is supported' } };
  }
  if (!clientId || !clientSecret) return { status: 400, body: { error: 'invalid_request', error_description: 'client_id and client_secret are required' } };
  const requested = typeof body.scope === 'string' ? body.scope.split(/[\s,]+/).filter((s) => s.length > 0) : undefined;
  const issued = deps.tokens.issue(clientId, clientSecret, requested);
  if (issued === 'invalid_client') return { status: 401, body: { error: 'invalid_client', error_description: 'Unknown client or wrong secret' } };
  if (issued === 'invalid_scope') return { status: 400, body: { error: 'invalid_scope', error_description: 'The client does not hold every requested scope' } };
  return {
    status: 200,
    headers: { 'Cache-Control': 'no-store' },
    body: { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn, scope: issued.scopes.join(' ') },
  };
}
