import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { safeNext } from '../../src/dashboard/routes/pages.js';
import { dashboardConfigSchema } from '../../src/config/server.js';
import { assertSafeBinding, isLoopback, normaliseAllowedHost, parseCookies, parseHost, safeEqual } from '../../src/dashboard/security.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState } from '../../src/state/index.js';
import { listeningUrl } from '../support/wait.js';

describe('dashboard security helpers', () => {
  it('knows loopback addresses from others', () => {
    expect(['127.0.0.1', '127.0.0.5', 'localhost', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '192.168.1.4', '::', 'shop.example', undefined].some(isLoopback)).toBe(false);
  });

  it('allows a public bind only with a long enough token', () => {
    expect(() => assertSafeBinding('127.0.0.1', undefined)).not.toThrow();
    expect(() => assertSafeBinding('0.0.0.0', undefined)).toThrow(/without a dashboard token/);
    expect(() => assertSafeBinding('0.0.0.0', 'short')).toThrow(/at least 32/);
    expect(() => assertSafeBinding('0.0.0.0', 'x'.repeat(32))).not.toThrow();
  });

  it('parses Host headers and cookies', () => {
    expect(parseHost('127.0.0.1:8080')).toEqual({ hostname: '127.0.0.1', port: '8080' });
    expect(parseHost('[::1]:9')).toEqual({ hostname: '[::1]', port: '9' });
    expect(parseHost('Example.COM')).toEqual({ hostname: 'example.com', port: '' });
    expect(parseCookies('a=1; b=x%20y; a=2')).toEqual(new Map([['a', '1'], ['b', 'x y']]));
  });

  it('takes host names and addresses for dashboard.allowedHosts, not URLs or ports', () => {
    expect(['shopsync.example.com', 'SHOPSYNC.Example.com', 'shopsync', 'my_service', '10.0.0.5', '::1', '[fd00::5]'].map(normaliseAllowedHost)).toEqual(['shopsync.example.com', 'shopsync.example.com', 'shopsync', 'my_service', '10.0.0.5', '[::1]', '[fd00::5]']);
    for (const bad of ['https://shopsync.example.com', 'shopsync.example.com:443', 'shopsync.example.com/', '*.example.com', '', 'a b', 'shopsync.example.com.']) expect(normaliseAllowedHost(bad), bad).toBeUndefined();
    expect(dashboardConfigSchema.parse({ allowedHosts: ['shopsync.example.com'] }).allowedHosts).toEqual(['shopsync.example.com']);
    expect(() => dashboardConfigSchema.parse({ allowedHosts: ['https://shopsync.example.com'] })).toThrow(/without scheme, port or path/);
  });

  it('compares secrets without short-circuiting on length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('only returns to local paths after sign-in', () => {
    expect(safeNext('/runs?pipeline=a')).toBe('/runs?pipeline=a');
    expect(safeNext('//evil.example/')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext(undefined)).toBe('/');
  });
});

/**
 * The dashboard over HTTP, the way a browser meets it: the sign-in redirect, the CSRF refusals in
 * every shape a foreign page can take, and the headers that keep pages out of frames and sniffers.
 */
interface Dashboard {
  readonly base: string;
  readonly runs: string[];
  close(): Promise<void>;
}

async function dashboard(token?: string): Promise<Dashboard> {
  const state = await openState(':memory:');
  const runs: string[] = [];
  const app = Fastify();
  await registerDashboard(app, {
    state,
    events: new SyncEvents(),
    pipelines: [{ name: 'products-push', resource: 'products', direction: 'push', nextRun: () => undefined }],
    runNow: async (name) => {
      runs.push(name);
    },
    retryDeadLetters: async () => undefined,
    dropDeadLetters: async () => undefined,
    ...(token ? { token } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    base: listeningUrl(app.server),
    runs,
    async close() {
      await app.close();
      await state.close();
    },
  };
}

/** A page's CSRF token and the cookies the dashboard set with it. */
async function formOf(base: string, path = '/'): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(base + path, { redirect: 'manual' });
  const body = await res.text();
  return { cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), csrf: /name="csrf-token" content="([^"]+)"/.exec(body)?.[1] ?? '' };
}

function postForm(base: string, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + path, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, redirect: 'manual' });
}

/** Where a browser on `base` would go with this Location (the WHATWG parser is the browser's). */
const landing = (location: string | null, base: string) => new URL(location ?? '', base);

let open: Dashboard | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('sign-in redirect (next=)', () => {
  // Decoded values, as safeNext receives them from the query string or the form.
  const hostile = ['//evil.example/x', '/\\evil.example/x', '/\t/evil.example/x', '/\n/evil.example/x', '/\r\n/evil.example', ' //evil.example', '\t//evil.example', 'https://evil.example/', 'http:evil.example', 'javascript:alert(1)', '///evil.example', '/\\/evil.example', '/.//evil.example', '/..//evil.example', '/x\u0000y', '/x\u00a0y', 'evil.example', ''];

  it.each(hostile)('sends %j to the dashboard itself', (next) => {
    expect(safeNext(next)).toBe('/');
  });

  it('keeps a local path with its query and fragment, written as the browser would send it', () => {
    expect(safeNext('/pipelines/x?y=1')).toBe('/pipelines/x?y=1');
    expect(safeNext('/runs?pipeline=a&outcome=with-failures#top')).toBe('/runs?pipeline=a&outcome=with-failures#top');
    // Percent-encoded slashes are a local path, not another host.
    expect(safeNext('/%2F%2Fevil.example')).toBe('/%2F%2Fevil.example');
    // Not Latin-1 would not fit in a Location header; encoded, it stays the same path.
    expect(safeNext('/records?q=€')).toBe('/records?q=%E2%82%AC');
  });

  // Raw query strings, as an attacker's link would carry them (the server decodes them once).
  const links = ['/%09/evil.example/x', '/%0A/evil.example/x', '/%0D%0ASet-Cookie:%20x=1', '//evil.example/x', '/%5Cevil.example/x', '/%5C%09/evil.example', '/%2F%2Fevil.example', '/%2F/evil.example', 'https://evil.example/', 'https:%2F%2Fevil.example', 'javascript:alert(document.cookie)', '%2F%2Fevil.example', '/%252F%252Fevil.example', '/.//evil.example', '/%2E%2E//evil.example'];

  it.each(links)('answers /login?next=%s without a token with a redirect that stays on the dashboard', async (next) => {
    open ??= await dashboard();
    const res = await fetch(`${open.base}/login?next=${next}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location');
    expect(location).toMatch(/^\/(?![/\\])[^\s\\]*$/);
    expect(landing(location, open.base).origin).toBe(open.base);
  });

  it('returns to a local page after a sign-in with the token, and to / when next points away', async () => {
    const token = 'a-long-dashboard-token-0123456789abcdef';
    open = await dashboard(token);
    const { cookie, csrf } = await formOf(open.base, '/login');
    for (const next of ['/\t/evil.example/x', '//evil.example', '/\\evil.example', 'https://evil.example/']) {
      const res = await postForm(open.base, '/login', { token, next, _csrf: csrf }, { cookie });
      expect(res.status, next).toBe(303);
      expect(res.headers.get('location'), next).toBe('/');
    }
    const kept = await postForm(open.base, '/login', { token, next: '/pipelines/x?y=1', _csrf: csrf }, { cookie });
    expect(kept.headers.get('location')).toBe('/pipelines/x?y=1');
    // A wrong token sends back to the sign-in page with the cleaned next.
    const wrong = await postForm(open.base, '/login', { token: 'nope', next: '/\t/evil.example/x', _csrf: csrf }, { cookie });
    expect(wrong.headers.get('location')).toBe('/login?failed=1&next=%2F');
  });
});

describe('CSRF: actions refused in every shape a foreign page can send them', () => {
  it('refuses run-now without the token, with a wrong one, without the cookie, or with a cookie of another daemon', async () => {
    open = await dashboard();
    const { cookie, csrf } = await formOf(open.base);
    const otherPort = cookie.replace(/shopsync_csrf_\d+=/, 'shopsync_csrf_1=');
    const attempts: Array<[string, Record<string, string>, Record<string, string>]> = [
      ['no token', { pipeline: 'products-push' }, { cookie }],
      ['empty token', { pipeline: 'products-push', _csrf: '' }, { cookie }],
      ['wrong token', { pipeline: 'products-push', _csrf: 'forged' }, { cookie }],
      ['token of the right length, wrong value', { pipeline: 'products-push', _csrf: csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, { cookie }],
      ['wrong x-csrf-token header', { pipeline: 'products-push' }, { cookie, 'x-csrf-token': 'forged' }],
      ['no cookie', { pipeline: 'products-push', _csrf: csrf }, {}],
      ['cookie set for another port', { pipeline: 'products-push', _csrf: csrf }, { cookie: otherPort }],
      ['cookie value forged to match the form', { pipeline: 'products-push', _csrf: 'forged' }, { cookie: cookie.replace(/=.*/, '=forged') }],
    ];
    for (const [what, form, headers] of attempts) {
      expect((await postForm(open.base, '/actions/run', form, headers)).status, what).toBe(403);
    }
    expect(open.runs).toEqual([]);
  });

  it('refuses a request that names another origin, even with a valid token and cookie', async () => {
    open = await dashboard();
    const { cookie, csrf } = await formOf(open.base);
    const port = new URL(open.base).port;
    // Host and port are compared, not the scheme: behind a TLS proxy the browser says https and the daemon hears http.
    const origins = ['http://evil.example', `http://evil.example:${port}`, 'http://127.0.0.1:1', 'http://127.0.0.1', 'null', 'not a url'];
    for (const origin of origins) {
      expect((await postForm(open.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, origin })).status, origin).toBe(403);
    }
    for (const site of ['cross-site', 'same-site', 'none']) {
      expect((await postForm(open.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, 'sec-fetch-site': site })).status, site).toBe(403);
    }
    expect(open.runs).toEqual([]);
    const ok = await postForm(open.base, '/actions/run', { pipeline: 'products-push', _csrf: csrf }, { cookie, origin: open.base, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(303);
    expect(open.runs).toEqual(['products-push']);
  });

  it('refuses a form posted from another site, as a browser sends it (foreign Origin and Referer, no SameSite=Strict cookie)', async () => {
    open = await dashboard();
    // What an attacker's page can know: the form fields. Not the per-process token, not the cookie.
    const fromAfar = { origin: 'https://evil.example', referer: 'https://evil.example/page.html', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    for (const path of ['/actions/run', '/actions/dead-letters/drop', '/actions/dead-letters/retry', '/logout']) {
      expect((await postForm(open.base, path, { pipeline: 'products-push', scope: 'all', _csrf: 'guess' }, fromAfar)).status, path).toBe(403);
    }
    // An older browser that sends only a foreign Referer is still stopped by the token and the cookie.
    expect((await postForm(open.base, '/actions/run', { pipeline: 'products-push', _csrf: 'guess' }, { referer: 'https://evil.example/page.html' })).status).toBe(403);
    // A simple cross-site POST of another content type (text/plain, no preflight) carries no form token either.
    const plain = await fetch(`${open.base}/actions/run`, { method: 'POST', body: 'pipeline=products-push', headers: { 'content-type': 'text/plain', origin: 'https://evil.example' }, redirect: 'manual' });
    expect([403, 415]).toContain(plain.status);
    expect(open.runs).toEqual([]);
  });

  it('refuses a sign-in posted from another site (login CSRF), even with the right dashboard token', async () => {
    const token = 'a-long-dashboard-token-0123456789abcdef';
    open = await dashboard(token);
    const res = await postForm(open.base, '/login', { token, next: '/' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().join()).not.toMatch(/shopsync_session_/);
  });
});

describe('headers that keep the dashboard out of frames and sniffers', () => {
  it('sends CSP with frame-ancestors none, nosniff and DENY on pages, JSON, assets, the sign-in page and refusals', async () => {
    open = await dashboard('a-long-dashboard-token-0123456789abcdef');
    const answers = await Promise.all([
      fetch(`${open.base}/login`),
      fetch(`${open.base}/assets/dashboard.js`),
      fetch(`${open.base}/api/overview`), // 401: no token
      fetch(`${open.base}/api/overview`, { headers: { authorization: 'Bearer a-long-dashboard-token-0123456789abcdef' } }),
      fetch(`${open.base}/`, { headers: { authorization: 'Bearer a-long-dashboard-token-0123456789abcdef' } }),
      postForm(open.base, '/actions/run', { pipeline: 'products-push' }, { authorization: 'Bearer a-long-dashboard-token-0123456789abcdef' }), // 403: no CSRF token
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 200, 200, 403]);
    for (const res of answers) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, res.url).toContain("frame-ancestors 'none'");
      expect(csp, res.url).toContain("default-src 'none'");
      expect(csp, res.url).toContain("script-src 'self'");
      expect(csp, res.url).toContain("form-action 'self'");
      expect(csp, res.url).toContain("base-uri 'none'");
      expect(csp, res.url).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), res.url).toBe('DENY');
      expect(res.headers.get('referrer-policy'), res.url).toBe('same-origin');
    }
    // Cookies: HttpOnly and SameSite=Strict, so a foreign page neither reads nor sends them.
    const cookies = answers[0]!.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) expect(c).toMatch(/HttpOnly; SameSite=Strict/);
  });
});
