/**
 * The dashboard's defences: who may look (loopback only, or a dashboard token) and which
 * requests may act (POST with a per-process CSRF token checked against a SameSite=Strict cookie,
 * plus Origin and Sec-Fetch-Site checks).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError } from '../errors.js';
import { isLoopback } from '../util/net.js';

/** Shortest dashboard token accepted (the config schema's floor). */
export const MIN_TOKEN_LENGTH = 8;

export { isLoopback };

/** Host header names a token-less dashboard answers to (exact names: a DNS-rebinding guard, not an address check). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * The one rule of binding beyond this machine: a non-loopback host needs a dashboard token of at
 * least MIN_TOKEN_LENGTH characters. Returns why a binding is unsafe, or undefined when it is
 * safe; the config schema, the ops server and the dashboard all ask this.
 */
export function bindingProblem(host: string | undefined, token: string | undefined): { key: 'dashboard.host' | 'dashboard.token'; message: string } | undefined {
  if (host === undefined || isLoopback(host)) return undefined;
  if (!token) {
    return {
      key: 'dashboard.host',
      message: `binding ${host} would expose the dashboard beyond this machine without a dashboard token; set dashboard.token (e.g. token: \${DASHBOARD_TOKEN}) or bind 127.0.0.1`,
    };
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    return { key: 'dashboard.token', message: `a dashboard token must be at least ${MIN_TOKEN_LENGTH} characters long (32 random characters are better) when binding beyond 127.0.0.1` };
  }
  return undefined;
}

/** Throw a ConfigError when `bindingProblem` finds one. */
export function assertSafeBinding(host: string | undefined, token: string | undefined): void {
  const problem = bindingProblem(host, token);
  if (problem) throw new ConfigError(problem.message, { key: problem.key });
}

/** Constant-time string comparison (different lengths compare unequal without leaking where). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** Cookies of a request as a map (first value wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) {
      try {
        out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
      } catch {
        out.set(name, part.slice(eq + 1).trim());
      }
    }
  }
  return out;
}

/** Split a Host header into hostname and port. */
export function parseHost(host: string | undefined): { hostname: string; port: string } {
  if (!host) return { hostname: '', port: '' };
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return m ? { hostname: m[1] ?? '', port: m[2] ?? '' } : { hostname: '', port: '' };
}

/** Why a request was refused: an HTTP status and a message for the operator. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

/**
 * A `dashboard.allowedHosts` entry as Host headers are compared: lower case, IPv6 in brackets.
 * Undefined when it is not a bare host name or address (a port, a scheme or a path).
 */
export function normaliseAllowedHost(entry: string): string | undefined {
  const e = entry.trim().toLowerCase();
  if (isIP(e) === 6) return `[${e}]`;
  if (/^\[[0-9a-f:.]+\]$/.test(e) && isIP(e.slice(1, -1)) === 6) return e;
  return /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?)*$/.test(e) ? e : undefined;
}

/** Whether a Host header's name is an IP address (no DNS answer can move it: no rebinding). */
function isAddress(hostname: string): boolean {
  return isIP(hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname) !== 0;
}

/**
 * The Host check of every route of the daemon's server, the guard against DNS rebinding: a page
 * of attacker.example whose name the attacker points at 127.0.0.1 reaches the daemon from the
 * victim's browser as same-origin, but it still sends `Host: attacker.example`.
 *
 * - Names of this machine (`localhost`, `127.x.y.z`, `[::1]`) and the `allowedHosts` always pass.
 * - On a loopback bind nothing else does.
 * - On a public bind (which has a token) any Host passes while `allowedHosts` is empty; once it is
 *   set, only those names and IP addresses (an address cannot be rebound; probes and Prometheus
 *   address a pod by its IP).
 *
 * The port is not compared: it does not tell a rebinding page apart (it uses the daemon's port),
 * and an SSH tunnel forwards another local port.
 */
export function hostRefusal(hostHeader: string | undefined, bind: { host: string; allowedHosts?: readonly string[] }): Refusal | undefined {
  const { hostname } = parseHost(hostHeader);
  if (hostname !== '' && isLoopback(hostname)) return undefined;
  const allowed = (bind.allowedHosts ?? []).map(normaliseAllowedHost);
  if (hostname !== '' && allowed.includes(hostname)) return undefined;
  if (!isLoopback(bind.host) && (allowed.length === 0 || isAddress(hostname))) return undefined;
  return {
    status: 403,
    message: `This daemon does not answer to the Host name ${JSON.stringify(hostname || (hostHeader ?? ''))}: open it as http://127.0.0.1:<port>/ or http://localhost:<port>/, or list the name under dashboard.allowedHosts (for a reverse proxy that keeps the Host header).`,
  };
}

/**
 * The read access rule of the dashboard, also asked by /metrics and by the details of /healthz
 * and /readyz: with a token, the session cookie or `Authorization: Bearer <token>`; without one,
 * a loopback connection that names this machine in its Host header.
 */
export function createAccessCheck(options: { token?: string }): (request: FastifyRequest) => Refusal | undefined {
  const token = options.token && options.token.length > 0 ? options.token : undefined;
  const sessionValue = token ? sessionDigest(token) : undefined;
  const hasSession = (request: FastifyRequest): boolean => {
    if (!token || !sessionValue) return true;
    const auth = request.headers.authorization;
    if (auth && /^Bearer\s+/i.test(auth) && safeEqual(auth.replace(/^Bearer\s+/i, ''), token)) return true;
    const cookie = parseCookies(request.headers.cookie).get(sessionCookieName(request));
    return cookie !== undefined && safeEqual(cookie, sessionValue);
  };
  return (request) => {
    if (token) return hasSession(request) ? undefined : { status: 401, message: 'This dashboard needs its token.' };
    // Without a token the dashboard is only for this machine: a request that reached a
    // non-loopback socket, or names a foreign host (DNS rebinding), is refused.
    // A real socket always has a local address; only injected test requests lack one.
    const socket = request.raw.socket;
    if (!isLoopback(socket.localAddress ?? socket.remoteAddress)) {
      return { status: 403, message: 'The dashboard is served beyond 127.0.0.1 without a token; set dashboard.token in the config.' };
    }
    if (!LOOPBACK_HOSTS.has(parseHost(request.headers.host).hostname)) {
      return { status: 403, message: 'Unexpected Host header; open the dashboard as http://127.0.0.1:<port>/ or http://localhost:<port>/.' };
    }
    return undefined;
  };
}

/** The session cookie holds a digest of the token, never the token itself. */
function sessionDigest(token: string): string {
  return createHash('sha256').update(`shopsync-dashboard-session:${token}`).digest('base64url');
}

/** Cookies ignore ports, so two shopsync daemons on one host would overwrite each other's cookies. */
function cookieSuffix(request: FastifyRequest): string {
  return parseHost(request.headers.host).port || 'default';
}

function sessionCookieName(request: FastifyRequest): string {
  return `shopsync_session_${cookieSuffix(request)}`;
}

/** Per-process security state and checks. */
export interface DashboardSecurity {
  /** The CSRF token embedded in every form and sent by the client script as `x-csrf-token`. */
  readonly csrfToken: string;
  /** Whether a token is needed to look at the dashboard. */
  readonly tokenRequired: boolean;
  /** Whether the request may read the dashboard; a refusal otherwise. */
  checkAccess(request: FastifyRequest): Refusal | undefined;
  /** Whether the request may perform an action (POST); a refusal otherwise. */
  checkAction(request: FastifyRequest, formToken: string | undefined): Refusal | undefined;
  /** Whether a submitted token is the dashboard token. */
  tokenMatches(candidate: string): boolean;
  /** Set-Cookie values to send with a page: the CSRF cookie, and the session cookie after a login. */
  cookies(request: FastifyRequest, options?: { login?: boolean; logout?: boolean }): string[];
}

/** Create the dashboard's security state for this process. */
export function createSecurity(options: { token?: string }): DashboardSecurity {
  const csrfToken = randomBytes(32).toString('base64url');
  const token = options.token && options.token.length > 0 ? options.token : undefined;
  const sessionValue = token ? sessionDigest(token) : undefined;
  const csrfCookie = (r: FastifyRequest): string => `shopsync_csrf_${cookieSuffix(r)}`;
  const checkAccess = createAccessCheck({ token });

  return {
    csrfToken,
    tokenRequired: token !== undefined,
    checkAccess,
    checkAction(request, formToken) {
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin') return { status: 403, message: `Cross-site request refused (Sec-Fetch-Site: ${String(site)}).` };
      const origin = request.headers.origin;
      if (origin !== undefined) {
        let originHost: string;
        try {
          originHost = new URL(origin).host.toLowerCase();
        } catch {
          return { status: 403, message: 'Cross-site request refused (unreadable Origin).' };
        }
        if (originHost !== (request.headers.host ?? '').toLowerCase()) return { status: 403, message: 'Cross-site request refused (Origin does not match).' };
      }
      const cookie = parseCookies(request.headers.cookie).get(csrfCookie(request));
      const sent = formToken ?? (typeof request.headers['x-csrf-token'] === 'string' ? request.headers['x-csrf-token'] : undefined);
      if (!cookie || !sent || !safeEqual(cookie, csrfToken) || !safeEqual(sent, csrfToken)) {
        return { status: 403, message: 'The form is out of date (the daemon may have restarted). Reload the page and try again.' };
      }
      return undefined;
    },
    tokenMatches(candidate) {
      return token !== undefined && safeEqual(candidate, token);
    },
    cookies(request, opts = {}) {
      const out: string[] = [];
      const current = parseCookies(request.headers.cookie).get(csrfCookie(request));
      if (current !== csrfToken) out.push(`${csrfCookie(request)}=${csrfToken}; Path=/; HttpOnly; SameSite=Strict`);
      if (opts.login && sessionValue) out.push(`${sessionCookieName(request)}=${sessionValue}; Path=/; HttpOnly; SameSite=Strict`);
      if (opts.logout) out.push(`${sessionCookieName(request)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
      return out;
    },
  };
}

/** Send a refusal as a small page or JSON, depending on what the client wants. */
export function sendRefusal(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, page: (message: string) => string): FastifyReply {
  const wantsJson = request.url.startsWith('/api/') || (request.headers.accept ?? '').includes('application/json');
  if (wantsJson) return reply.code(refusal.status).type('application/json').send({ error: refusal.message });
  return reply.code(refusal.status).type('text/html; charset=utf-8').send(page(refusal.message));
}
