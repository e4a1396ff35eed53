/**
 * Alerts of a deployment with several replicas: three alert engines, each with its own connection
 * pool and its own runs (as three `shopsync run` processes have), on one PostgreSQL state schema,
 * and one real HTTP receiver. Each incident reaches the receiver once when it opens and once when
 * it recovers, whichever replicas see it; a stopped replica's incidents are closed by the others,
 * and a message whose sender died after claiming it is sent by another replica.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertsConfigSchema, startAlerts, type AlertMessage, type AlertWatcher } from '../../src/alerts/index.js';
import { silentLogger } from '../../src/log.js';
import { SyncEvents, type RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts, type StateStore } from '../../src/state/index.js';
import { BACKENDS, postgresAvailable } from '../state/backends.js';

interface Replica {
  readonly state: StateStore;
  readonly events: SyncEvents;
  readonly watcher: AlertWatcher;
  stopped: boolean;
}

let received: AlertMessage[];
let http: Server;
let url: string;
let replicas: Replica[];
let clock: number;

beforeAll(async () => {
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as AlertMessage);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

async function startReplicas(count: number, leaseMs?: number, maxPerHour = 30): Promise<void> {
  const location = BACKENDS.postgres.location();
  clock = Date.now();
  replicas = [];
  for (let i = 0; i < count; i++) {
    const state = await BACKENDS.postgres.open(location);
    const events = new SyncEvents();
    const cfg = alertsConfigSchema.parse({ webhook: { url, retries: 0 }, staleAfterMinutes: 30, maxPerHour });
    const watcher = startAlerts(cfg, { events, state, scheduled: ['orders'], secrets: [], logger: silentLogger, now: () => clock, ...(leaseMs === undefined ? {} : { leaseMs }) });
    if (!watcher) throw new Error('no alert channel configured');
    replicas.push({ state, events, watcher, stopped: false });
  }
}

beforeEach(() => {
  received = [];
});
afterEach(async () => {
  for (const r of replicas) if (!r.stopped) await r.watcher.stop();
});

function finish(replica: Replica, summary: Partial<RunSummary> & Pick<RunSummary, 'pipeline' | 'status'>): void {
  replica.events.emit({ type: 'run-finished', summary: { runId: 1, mode: 'sync', counts: { ...emptyCounts(), requests: 1 }, durationMs: 5, ...summary } });
}

/** Let every replica's handlers finish (their messages are out when `stop` returns). */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 100));
  await Promise.all(replicas.filter((r) => !r.stopped).map((r) => r.watcher.stop()));
}

const seen = () => received.map((m) => [m.incident, m.state]).sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`));
const refused = { status: 'failed', error: { code: 'UNAUTHORIZED', message: 'the shop refused the token' } } as const;

describe.skipIf(!postgresAvailable)('alerts of three replicas on one PostgreSQL state', () => {
  it('send one message per incident and one per recovery, whichever replicas see it', async () => {
    await startReplicas(3);
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    // The shop refuses the token on every replica at once; each runs its own pipelines.
    finish(a, { ...refused, pipeline: 'products' });
    finish(b, { ...refused, pipeline: 'stock' });
    finish(c, { ...refused, pipeline: 'prices' });
    finish(b, { ...refused, pipeline: 'stock' });
    // Every replica's stale check finds `orders` silent at the same moment.
    clock += 31 * 60_000;
    await Promise.all(replicas.map((r) => r.watcher.checkStale()));
    await Promise.all(replicas.map((r) => r.watcher.checkStale()));
    await new Promise((r) => setTimeout(r, 200));
    // The refusals are one cause: one shop incident, which every replica's pipeline joined.
    expect(seen()).toEqual([
      ['shop-auth:default', 'firing'],
      ['stale:orders', 'firing'],
    ]);
    expect(await c.watcher.incidents.list()).toEqual(['shop-auth:default', 'stale:orders']);
    expect((await c.state.incidents.members('shop-auth:default')).sort()).toEqual(['prices', 'products', 'stock']);
    received = [];
    // Recoveries, each seen by the replica that ran the pipeline; several replicas report success of the token.
    finish(c, { pipeline: 'orders', status: 'succeeded' });
    finish(a, { pipeline: 'products', status: 'succeeded' });
    finish(b, { pipeline: 'stock', status: 'succeeded' });
    finish(c, { pipeline: 'prices', status: 'succeeded' });
    await settle();
    expect(seen()).toEqual([
      ['shop-auth:default', 'resolved'],
      ['stale:orders', 'resolved'],
    ]);
    const auth = received.find((m) => m.incident === 'shop-auth:default');
    expect(auth?.text).toMatch(/finished succeeded/);
    expect([...(auth?.pipelines ?? [])].sort()).toEqual(['prices', 'products', 'stock']);
  });

  it('keep alerting when the replica that opened an incident is stopped: the others send its recovery and new incidents', async () => {
    await startReplicas(2);
    const [a, b] = replicas as [Replica, Replica];
    finish(a, { pipeline: 'products', status: 'failed', error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } });
    await new Promise((r) => setTimeout(r, 200));
    await a.watcher.stop();
    await a.state.close();
    a.stopped = true;
    expect(seen()).toEqual([['run-failed:products', 'firing']]);
    // The lane's next run happens on b: still failing (no second message), then recovered, then a new failure elsewhere.
    finish(b, { pipeline: 'products', status: 'failed', error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } });
    await new Promise((r) => setTimeout(r, 100));
    finish(b, { pipeline: 'products', status: 'succeeded' });
    await new Promise((r) => setTimeout(r, 100));
    finish(b, { pipeline: 'stock', status: 'failed', error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } });
    await settle();
    expect(received.map((m) => [m.incident, m.state])).toEqual([
      ['run-failed:products', 'firing'],
      ['run-failed:products', 'resolved'],
      ['run-failed:stock', 'firing'],
    ]);
    expect(received[1]?.since).toBe(received[0]?.since);
  });

  it('send a message whose sender died after claiming it, from one other replica, once the lease ran out', async () => {
    await startReplicas(3, 300);
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    // What a replica killed between its claim and its webhook call leaves behind.
    const message = { incident: 'run-failed:stock', kind: 'run-failed', state: 'firing', pipeline: 'stock', title: 'stock failed', text: 'stock (run 9) failed: [X] down', at: new Date(clock).toISOString() };
    expect(await a.state.incidents.open('run-failed:stock', clock, JSON.stringify(message), 'killed-replica', 300)).toBe(true);
    expect(await b.watcher.resendOverdue()).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    const taken = await Promise.all([b.watcher.resendOverdue(), c.watcher.resendOverdue(), a.watcher.resendOverdue()]);
    expect(taken.reduce((x, y) => x + y, 0)).toBe(1);
    expect(received).toEqual([{ ...message, since: new Date(clock).toISOString() }]);
    // Sent and confirmed: nothing is sent again, and the incident is open (a further failure stays quiet).
    await new Promise((r) => setTimeout(r, 400));
    expect(await Promise.all(replicas.map((r) => r.watcher.resendOverdue()))).toEqual([0, 0, 0]);
    finish(c, { pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'down' } });
    await new Promise((r) => setTimeout(r, 100));
    finish(b, { pipeline: 'stock', status: 'succeeded' });
    await settle();
    expect(received.map((m) => m.state)).toEqual(['firing', 'resolved']);
  });

  it('hold alerts.maxPerHour for the deployment, not per replica', async () => {
    await startReplicas(3, undefined, 2);
    replicas.forEach((r, i) => finish(r, { pipeline: `p${i}`, status: 'failed', error: { code: 'X', message: 'down' } }));
    replicas.forEach((r, i) => finish(r, { pipeline: `q${i}`, status: 'failed', error: { code: 'X', message: 'down' } }));
    await settle();
    expect(received).toHaveLength(2);
  });
});
