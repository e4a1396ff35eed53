/**
 * Issue 42 findings 10 and 11, over HTTP against the ops server with the dashboard mounted (as
 * the daemon runs them): a client that guesses tokens has to wait, tokens shorter than 32
 * characters are refused at start, and a sign-in is a random server-side session that expires,
 * ends at sign-out and is `Secure` when the browser came over https.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardConfigSchema } from '../../src/config/server.js';
import { registerDashboard } from '../../src/dashboard/index.js';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { readiness } from '../../src/ops/readiness.js';
import { startOpsServer, type OpsServer } from '../../src/ops/server.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { sleep } from '../support/wait.js';

const TOKEN = 'sign-in-test-token-0123456789abcdef';
let server: OpsServer | undefined;
let state: StateStore | undefined;
afterEach(async () => {
  await server?.close();
  await state?.close();
  server = undefined;
  state = undefined;
});

async function start(options: { token?: string; sessionLifetimeMs?: number } = { token: TOKEN }): Promise<OpsServer> {
  state = await openState(':memory:');
  const dashboardState = state;
  server = await startOpsServer({
    port: 0,
    metrics: createMetrics(),
    readiness: () => readiness({}),
    logger: silentLogger,
    ...options,
    register: (app) => registerDashboard(app, { state: dashboardState, events: new SyncEvents(), pipelines: [], runNow: async () => undefined, retryDeadLetters: async () => undefined, dropDeadLetters: async () => undefined, ...(options.token ? { token: options.token } : {}) }),
  });
  return server;
}

/** The sign-in page's CSRF token and cookie. */
async function loginForm(base: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${base}/login`, { redirect: 'manual' });
  const body = await res.text();
  return { cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), csrf: /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '' };
}

function signIn(base: string, form: { cookie: string; csrf: string }, token: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({ token, next: '/', _csrf: form.csrf }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie, ...headers }, redirect: 'manual' });
}

const sessionOf = (res: Response): string | undefined => res.headers.getSetCookie().find((c) => c.startsWith('shopsync_session_'));
const overview = async (base: string, cookie: string): Promise<number> => (await fetch(`${base}/api/overview`, { headers: { cookie } })).status;

describe('dashboard token guessing', () => {
  it('refuses a token shorter than 32 characters at start, saying how to make one', async () => {
    const parsed = dashboardConfigSchema.safeParse({ token: 'x'.repeat(31) });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/31 characters long; it must be at least 32.*openssl rand -hex 32/);
    expect(dashboardConfigSchema.safeParse({ token: 'x'.repeat(32) }).success).toBe(true);
    await expect(start({ token: 'x'.repeat(31) })).rejects.toBeInstanceOf(ConfigError);
  });

  it('makes a client wait after five wrong tokens, and compares none while it waits, the right one included', async () => {
    const { url } = await start();
    const form = await loginForm(url);
    for (let i = 0; i < 5; i++) expect((await signIn(url, form, `guess-${i}`)).headers.get('location')).toContain('failed=1');
    const sixth = await signIn(url, form, 'guess-5');
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const rightButWaiting = await signIn(url, form, TOKEN);
    expect(rightButWaiting.status).toBe(429);
    expect(sessionOf(rightButWaiting)).toBeUndefined();
    // The bearer header counts against the same client.
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(429);
    await sleep(Number(sixth.headers.get('retry-after')) * 1000 + 100);
    const right = await signIn(url, form, TOKEN);
    expect(right.status).toBe(303);
    expect(sessionOf(right)).toBeDefined();

    // A fast guesser gets a handful of answers, not thousands a second.
    let compared = 0;
    const end = Date.now() + 1500;
    while (Date.now() < end) {
      const res = await fetch(`${url}/api/overview`, { headers: { authorization: `Bearer guess-${compared}` } });
      if (res.status === 401) compared += 1;
      else expect(res.status).toBe(429);
    }
    expect(compared).toBeLessThanOrEqual(6);
  });
});

describe('dashboard sessions', () => {
  it('are random per sign-in, not computable from the token, and end at sign-out', async () => {
    const { url } = await start();
    const form = await loginForm(url);
    const a = sessionOf(await signIn(url, form, TOKEN))?.split(';')[0] ?? '';
    const b = sessionOf(await signIn(url, form, TOKEN))?.split(';')[0] ?? '';
    expect(a).not.toBe(b);
    expect(await overview(url, a)).toBe(200);
    // What the cookie used to be: a digest anyone knowing the token's scheme could compute.
    const name = a.split('=')[0];
    const digest = createHash('sha256').update(`shopsync-dashboard-session:${TOKEN}`).digest('base64url');
    expect(await overview(url, `${name}=${digest}`)).toBe(401);

    const out = await fetch(`${url}/logout`, { method: 'POST', body: new URLSearchParams({ _csrf: form.csrf }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${form.cookie}; ${a}` }, redirect: 'manual' });
    expect(out.status).toBe(303);
    // A copy of the cookie kept after sign-out no longer opens anything; the other sign-in does.
    expect(await overview(url, a)).toBe(401);
    expect(await overview(url, b)).toBe(200);
  });

  it('expire after their lifetime, which the cookie says', async () => {
    const { url } = await start({ token: TOKEN, sessionLifetimeMs: 2000 });
    const form = await loginForm(url);
    const cookie = sessionOf(await signIn(url, form, TOKEN)) ?? '';
    expect(cookie).toMatch(/; Max-Age=2(;|$)/);
    expect(await overview(url, cookie.split(';')[0] ?? '')).toBe(200);
    await sleep(2200);
    expect(await overview(url, cookie.split(';')[0] ?? '')).toBe(401);
  });

  it('are Secure when the browser came over https through the proxy, and not over plain http', async () => {
    const { url } = await start();
    const form = await loginForm(url);
    expect(sessionOf(await signIn(url, form, TOKEN, { 'x-forwarded-proto': 'https' }))).toMatch(/; Secure(;|$)/);
    expect(sessionOf(await signIn(url, form, TOKEN, { forwarded: 'for=192.0.2.1;proto=https' }))).toMatch(/; Secure(;|$)/);
    expect(sessionOf(await signIn(url, form, TOKEN))).not.toMatch(/Secure/);
  });
});
