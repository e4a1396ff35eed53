/**
 * Issue 44, must-do 3: the dashboard shows how many orders a pull with `follow:` still follows and
 * the oldest: a section "Orders followed" on the pipeline's page (`/runs?pipeline=…`: open, the
 * oldest open order with its placement day and age, done, the last change delivered), one line on
 * its overview card, and the same figures in /api/overview; through the real dashboard server on a
 * real SQLite state, every value escaped.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import type { DashboardPipeline } from '../../src/dashboard/types.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { daysAgo, followedRow, seedFollowed, statusChange } from '../ops/support/followed.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

const XSS = '<img src=x onerror=alert(1)>';

let app: FastifyInstance | undefined;
let state: StateStore;
let dir: string;

beforeEach(async () => {
  dir = tempDir('shopsync-dashboard-followed-');
  state = await openState(`${dir}/state.sqlite`);
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await state.close();
  removeDir(dir);
});

async function serve(pipelines: DashboardPipeline[]): Promise<string> {
  app = Fastify();
  await registerDashboard(app, { state, events: new SyncEvents(), pipelines, runNow: async () => {}, retryDeadLetters: async () => {}, dropDeadLetters: async () => {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return listeningUrl(app.server);
}

const ordersPull: DashboardPipeline = { name: 'orders-to-erp', resource: 'orders', direction: 'pull', follow: { everyMs: 3_600_000, until: [4, 5], maxAgeDays: 14 }, nextRun: () => undefined };
const plainPull: DashboardPipeline = { name: 'orders-plain', resource: 'orders', direction: 'pull', nextRun: () => undefined };

/** The section "Orders followed" of a page, or '' when it has none. */
function section(body: string): string {
  const at = body.indexOf('<section class="panel followed"');
  return at < 0 ? '' : body.slice(at, body.indexOf('</section>', at));
}

async function seedThree(): Promise<string> {
  const changedAt = new Date(Date.now() - 3_600_000).toISOString();
  await seedFollowed(state, [
    followedRow('orders-to-erp', '4711', daysAgo(5)),
    followedRow('orders-to-erp', '4712', daysAgo(1), { status: 2, changes: [statusChange(1, 2, changedAt)], changedAt }),
    followedRow('orders-to-erp', '4700', daysAgo(8), { status: 4, cancelled: true, doneAt: changedAt, doneReason: 'final' }),
  ]);
  return changedAt;
}

describe('orders followed on the dashboard', () => {
  it('the pipeline page shows open orders, the oldest open one with its placement day and age, done orders and the last change delivered', async () => {
    const changedAt = await seedThree();
    const base = await serve([ordersPull, plainPull]);
    const res = await fetch(`${base}/runs?pipeline=orders-to-erp`);
    expect(res.status).toBe(200);
    const s = section(await res.text());
    expect(s).toContain('<h2>Orders followed</h2>');
    expect(s).toMatch(/data-followed-open>2</);
    expect(s).toContain('href="/records?q=4711" data-followed-oldest="4711">#4711</a>');
    expect(s).toContain(`data-followed-placed>${daysAgo(5)}<`);
    expect(s).toMatch(/data-followed-age>5 days</);
    expect(s).toMatch(/data-followed-done>1</);
    expect(s).toContain(`datetime="${changedAt}"`);
    expect(s).toContain('until a final status (4, 5) or 14 days after placement');
  });

  it('the overview card of the pipeline says how many it follows and the oldest; a pull without follow: says nothing of it', async () => {
    await seedThree();
    const base = await serve([ordersPull, plainPull]);
    const body = await (await fetch(`${base}/`)).text();
    const card = (name: string) => {
      const at = body.indexOf(`<section class="panel card idle" data-pipeline="${name}"`);
      return body.slice(at, body.indexOf('</section>', at));
    };
    expect(card('orders-to-erp')).toMatch(/<dt>Followed<\/dt><dd data-followed>Following <b data-followed-open>2<\/b> orders, oldest <a href="\/records\?q=4711" data-followed-oldest="4711">#4711<\/a> placed \d{4}-\d{2}-\d{2} \(5 days\), last change <time/);
    expect(card('orders-plain')).not.toContain('Followed');
    const api = (await (await fetch(`${base}/api/overview`)).json()) as { pipelines: { name: string; followed: unknown }[] };
    expect(api.pipelines.find((p) => p.name === 'orders-to-erp')?.followed).toMatchObject({ open: 2, done: 1, oldest: { key: '4711', placedDay: daysAgo(5) }, oldestAgeDays: 5 });
    expect(api.pipelines.find((p) => p.name === 'orders-plain')?.followed).toBeNull();
  });

  it('says no order is followed yet for a following pipeline with no rows, and shows no section for a pipeline without follow:', async () => {
    const base = await serve([ordersPull, plainPull]);
    const following = section(await (await fetch(`${base}/runs?pipeline=orders-to-erp`)).text());
    expect(following).toContain('data-followed-none');
    expect(following).toContain('No order followed yet');
    expect(section(await (await fetch(`${base}/runs?pipeline=orders-plain`)).text())).toBe('');
    expect(section(await (await fetch(`${base}/runs`)).text())).toBe('');
  });

  it('marks an oldest open order at maxAgeDays: the next pass ends it', async () => {
    await seedFollowed(state, [followedRow('orders-to-erp', '4001', daysAgo(14))]);
    const base = await serve([ordersPull]);
    expect(section(await (await fetch(`${base}/runs?pipeline=orders-to-erp`)).text())).toContain('at maxAgeDays: done at the next pass');
  });

  it('escapes an order number and placement day that carry markup, on the page, the card and the pipeline name', async () => {
    await seedFollowed(state, [followedRow('orders-to-erp', XSS, XSS)]);
    const named: DashboardPipeline = { ...ordersPull, name: `orders-${XSS}` };
    await seedFollowed(state, [followedRow(named.name, XSS, XSS)]);
    const base = await serve([ordersPull, named]);
    for (const path of ['/runs?pipeline=orders-to-erp', `/runs?pipeline=${encodeURIComponent(named.name)}`, '/']) {
      const body = await (await fetch(`${base}${path}`)).text();
      expect(body, path).toContain('data-followed-open>1<');
      expect(body, path).not.toContain(XSS);
      expect(body, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });
});
