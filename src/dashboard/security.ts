/**
 * The dashboard's defences: who may look (loopback only, or a dashboard token) and which
 * requests may act (POST with a per-process CSRF token checked against a SameSite=Strict cookie,
 * plus Origin and Sec-Fetch-Site checks).
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError } from '../errors.js';
import { isLoopback } from '../util/net.js';
import { createAccessCheck, isHttps, sessionCookieName, type DashboardAuth } from './auth.js';
import { cookieSuffix, parseCookies, parseHost, safeEqual, throttled, type Refusal } from './request.js';

export { cookieSuffix, LOOPBACK_HOSTS, parseCookies, parseHost, safeEqual, throttled, type Refusal } from './request.js';

export { createAccessCheck, dashboardAuth, type DashboardAuth } from './auth.js';

/**
 * Shortest dashboard token accepted, on any bind (the config schema's floor, and the ops server's
 * and the dashboard's at start): 32 characters of `openssl rand -hex 32` are out of reach of
 * guessing even without the sign-in back-off. A shorter token is refused at start, not warned
 * about: a warning in a log nobody reads would leave the dashboard guessable.
 */
export const MIN_TOKEN_LENGTH = 32;

export { isLoopback };

/** Why a dashboard token is refused (too short), or undefined. */
export function tokenProblem(token: string | undefined): string | undefined {
  if (token === undefined || token.length >= MIN_TOKEN_LENGTH) return undefined;
  return `dashboard.token is ${token.length} characters long; it must be at least ${MIN_TOKEN_LENGTH} (a shorter one can be guessed). Generate one with \`openssl rand -hex 32\` and set it, e.g. token: \${DASHBOARD_TOKEN}`;
}

/**
 * The one rule of binding: a token, if any, has at least MIN_TOKEN_LENGTH characters, and a
 * non-loopback host needs one. Returns why a binding is unsafe, or undefined when it is
 * safe; the config schema, the ops server and the dashboard all ask this.
 */
export function bindingProblem(host: string | undefined, token: string | undefined): { key: 'dashboard.host' | 'dashboard.token'; message: string } | undefined {
  const short = tokenProblem(token);
  if (short) return { key: 'dashboard.token', message: short };
  if (host === undefined || isLoopback(host)) return undefined;
  if (!token) {
    return {
      key: 'dashboard.host',
      message: `binding ${host} would expose the dashboard beyond this machine without a dashboard token; set dashboard.token (e.g. token: \${DASHBOARD_TOKEN}) or bind 127.0.0.1`,
    };
  }
  return undefined;
}

/** Throw a ConfigError when `bindingProblem` finds one. */
export function assertSafeBinding(host: string | undefined, token: string | undefined): void {
  const problem = bindingProblem(host, token);
  if (problem) throw new ConfigError(problem.message, { key: problem.key });
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
  /**
   * A sign-in with `candidate`: undefined when it is the token (the client's wrong guesses are
   * forgotten), else a refusal: 401 `wrong-token`, or 429 `throttled` while the client must wait
   * (then the token is not even compared).
   */
  signIn(request: FastifyRequest, candidate: string | undefined): Refusal | undefined;
  /** Set-Cookie values to send with a page: the CSRF cookie, a new session after a sign-in, the session ended at sign-out. */
  cookies(request: FastifyRequest, options?: { login?: boolean; logout?: boolean }): string[];
}

/** Create the dashboard's security state for this process, on the server's shared sign-in state. */
export function createSecurity(auth: DashboardAuth): DashboardSecurity {
  const csrfToken = randomBytes(32).toString('base64url');
  const token = auth.token;
  const csrfCookie = (r: FastifyRequest): string => `shopsync_csrf_${cookieSuffix(r)}`;
  const checkAccess = createAccessCheck(auth);
  // Secure whenever the browser reached us over TLS (see isHttps: the header only ever restricts the cookie).
  const attributes = (r: FastifyRequest): string => `Path=/; HttpOnly; SameSite=Strict${isHttps(r) ? '; Secure' : ''}`;

  return {
    csrfToken,
    tokenRequired: token !== undefined,
    checkAccess,
    checkAction(request, formToken) {
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin') return { status: 403, reason: 'cross-site', message: `Cross-site request refused (Sec-Fetch-Site: ${String(site)}).` };
      const origin = request.headers.origin;
      if (origin !== undefined) {
        let originHost: string;
        try {
          originHost = new URL(origin).host.toLowerCase();
        } catch {
          return { status: 403, reason: 'cross-site', message: 'Cross-site request refused (unreadable Origin).' };
        }
        if (originHost !== (request.headers.host ?? '').toLowerCase()) return { status: 403, reason: 'cross-site', message: 'Cross-site request refused (Origin does not match).' };
      }
      const cookie = parseCookies(request.headers.cookie).get(csrfCookie(request));
      const sent = formToken ?? (typeof request.headers['x-csrf-token'] === 'string' ? request.headers['x-csrf-token'] : undefined);
      if (!cookie || !sent || !safeEqual(cookie, csrfToken) || !safeEqual(sent, csrfToken)) {
        return { status: 403, reason: 'csrf', message: 'The form is out of date (the daemon may have restarted). Reload the page and try again.' };
      }
      return undefined;
    },
    signIn(request, candidate) {
      const wait = auth.guesses.waitMs(request.ip);
      if (wait > 0) return throttled(wait);
      if (token === undefined || candidate === undefined || !safeEqual(candidate, token)) {
        auth.guesses.failed(request.ip);
        return { status: 401, reason: 'wrong-token', message: 'That token is not right.' };
      }
      auth.guesses.succeeded(request.ip);
      return undefined;
    },
    cookies(request, opts = {}) {
      const out: string[] = [];
      const current = parseCookies(request.headers.cookie).get(csrfCookie(request));
      if (current !== csrfToken) out.push(`${csrfCookie(request)}=${csrfToken}; ${attributes(request)}`);
      if (opts.login && token !== undefined) {
        out.push(`${sessionCookieName(request)}=${auth.sessions.create()}; ${attributes(request)}; Max-Age=${Math.floor(auth.sessions.lifetimeMs / 1000)}`);
      }
      if (opts.logout) {
        const session = parseCookies(request.headers.cookie).get(sessionCookieName(request));
        // Ended here, not only forgotten by this browser: a copied cookie stops working too.
        if (session !== undefined) auth.sessions.revoke(session);
        out.push(`${sessionCookieName(request)}=; ${attributes(request)}; Max-Age=0`);
      }
      return out;
    },
  };
}

/** Send a refusal as a small page or JSON, depending on what the client wants. */
export function sendRefusal(request: FastifyRequest, reply: FastifyReply, refusal: Refusal, page: (message: string) => string): FastifyReply {
  const wantsJson = request.url.startsWith('/api/') || (request.headers.accept ?? '').includes('application/json');
  if (refusal.retryAfterSeconds !== undefined) reply.header('retry-after', String(refusal.retryAfterSeconds));
  if (wantsJson) return reply.code(refusal.status).type('application/json').send({ error: refusal.message });
  return reply.code(refusal.status).type('text/html; charset=utf-8').send(page(refusal.message));
}
