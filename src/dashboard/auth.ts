/**
 * Who is signed in to the daemon's server: the dashboard token, the sessions handed out at
 * `/login` and the back-off on wrong tokens. One per server, shared by the ops routes (/metrics,
 * /shops, the details of the probes) and the dashboard, so a session or a back-off holds on all.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isLoopback } from '../util/net.js';
import { cookieSuffix, LOOPBACK_HOSTS, parseCookies, parseHost, safeEqual, throttled, type Refusal } from './request.js';
import { DEFAULT_SESSION_MS, GuessThrottle, SessionStore } from './sessions.js';

/** The server's sign-in state. */
export interface DashboardAuth {
  /** Undefined: no token, the dashboard is for this machine only. */
  readonly token: string | undefined;
  readonly sessions: SessionStore;
  readonly guesses: GuessThrottle;
}

const shared = new WeakMap<FastifyInstance, DashboardAuth>();

/**
 * The sign-in state of the server `app` is (created by the first caller: the ops server, or the
 * dashboard mounted on an app of its own).
 */
export function dashboardAuth(app: FastifyInstance, options: { token?: string; sessionLifetimeMs?: number }): DashboardAuth {
  const known = shared.get(app);
  if (known) return known;
  const auth: DashboardAuth = {
    token: options.token && options.token.length > 0 ? options.token : undefined,
    sessions: new SessionStore(options.sessionLifetimeMs ?? DEFAULT_SESSION_MS),
    guesses: new GuessThrottle(),
  };
  shared.set(app, auth);
  return auth;
}

/** The session cookie's name (per port: cookies ignore ports). */
export function sessionCookieName(request: FastifyRequest): string {
  return `shopsync_session_${cookieSuffix(request)}`;
}

/**
 * Whether the browser reached the daemon over TLS: the socket is TLS, or the proxy in front says
 * `X-Forwarded-Proto: https` / `Forwarded: proto=https`. The header needs no trusted-proxy list
 * here: it only ever adds `Secure`, which restricts where the browser sends the cookie; a client
 * that forges it over plain HTTP only loses its own sign-in.
 */
export function isHttps(request: FastifyRequest): boolean {
  if ((request.raw.socket as { encrypted?: boolean }).encrypted === true) return true;
  const forwardedProto = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwardedProto) ? forwardedProto[0] : forwardedProto)?.split(',')[0]?.trim().toLowerCase();
  if (first === 'https') return true;
  const forwarded = request.headers.forwarded;
  return typeof forwarded === 'string' && /^[^,]*\bproto="?https"?/i.test(forwarded);
}

/**
 * The read access rule of the dashboard, also asked by /metrics and by the details of /healthz
 * and /readyz: with a token, a live session cookie or `Authorization: Bearer <token>` (a wrong
 * bearer token counts against the client's back-off like a wrong sign-in); without one, a
 * loopback connection that names this machine in its Host header.
 */
export function createAccessCheck(auth: DashboardAuth): (request: FastifyRequest) => Refusal | undefined {
  const token = auth.token;
  return (request) => {
    if (token) {
      const cookie = parseCookies(request.headers.cookie).get(sessionCookieName(request));
      if (cookie !== undefined && auth.sessions.valid(cookie)) return undefined;
      const header = request.headers.authorization;
      if (header && /^Bearer\s+/i.test(header)) {
        const wait = auth.guesses.waitMs(request.ip);
        if (wait > 0) return throttled(wait);
        if (safeEqual(header.replace(/^Bearer\s+/i, ''), token)) {
          auth.guesses.succeeded(request.ip);
          return undefined;
        }
        auth.guesses.failed(request.ip);
        return { status: 401, reason: 'wrong-token', message: 'This dashboard needs its token.' };
      }
      return { status: 401, reason: 'no-token', message: 'This dashboard needs its token.' };
    }
    // Without a token the dashboard is only for this machine: a request that reached a
    // non-loopback socket, or names a foreign host (DNS rebinding), is refused.
    // A real socket always has a local address; only injected test requests lack one.
    const socket = request.raw.socket;
    if (!isLoopback(socket.localAddress ?? socket.remoteAddress)) {
      return { status: 403, reason: 'not-loopback', message: 'The dashboard is served beyond 127.0.0.1 without a token; set dashboard.token in the config.' };
    }
    if (!LOOPBACK_HOSTS.has(parseHost(request.headers.host).hostname)) {
      return { status: 403, reason: 'foreign-host', message: 'Unexpected Host header; open the dashboard as http://127.0.0.1:<port>/ or http://localhost:<port>/.' };
    }
    return undefined;
  };
}
