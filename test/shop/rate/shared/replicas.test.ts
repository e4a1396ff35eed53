/**
 * Several shopsync processes on one PostgreSQL state share each shop's rate limit: replicas run
 * as child processes (replica-child.ts, through the runtime as the daemon builds it) and push
 * products into sandbox shops that answer 429 beyond their own limit. Request times are the
 * replicas' request events (answer time minus time on the wire: when the request left).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import type { ClientEvent } from '../../../../src/shop/index.js';
import { useSandbox } from '../../../support/sandbox.js';
import { requireService } from '../../../support/services.js';
import type { ReplicaArgs } from './replica-child.js';
import { fakeClockEnv, LIBFAKETIME } from '../../../support/cluster.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../support/tmp.js';

const CHILD = fileURLToPath(new URL('./replica-child.ts', import.meta.url));
const service = await requireService('postgres');
const pgUrl = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;
const run = randomBytes(4).toString('hex');
const schemas: string[] = [];
const sandbox = useSandbox();

afterAll(async () => {
  if (schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
  } finally {
    await admin.end();
  }
});

/** A state schema of its own for one test (dropped after the file). */
function freshSchema(): string {
  const schema = `shopsync_rate_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

interface Replica {
  readonly label: string;
  readonly events: readonly { readonly t: number; readonly event: ClientEvent }[];
  readonly done: { readonly ok: number; readonly failed: number };
}

/** Start the replicas, let them all begin at once, and collect what each saw. */
async function runReplicas(all: readonly (ReplicaArgs & { readonly env?: NodeJS.ProcessEnv })[]): Promise<Replica[]> {
  const children = all.map(({ env, ...args }) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
    const lines: Record<string, unknown>[] = [];
    let rest = '';
    let err = '';
    let onReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    child.stdout.on('data', (d: Buffer) => {
      const parts = (rest + d.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        if (line.ready) onReady();
        lines.push(line);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { args, child, lines, ready, exited, stderr: () => err };
  });
  await Promise.race([Promise.all(children.map((c) => c.ready)), ...children.map(async (c) => Promise.reject(new Error(`replica ${c.args.label} exited early (${await c.exited}): ${c.stderr()}`)))]);
  // The bound counts from GO, not from the spawn: starting three children (tsx) on a loaded machine took 30 s and more, and a bound from the spawn killed replicas still pushing.
  for (const c of children) {
    c.child.stdin.end('GO\n');
    setTimeout(() => c.child.kill(), 60_000).unref();
  }
  return Promise.all(
    children.map(async (c) => {
      const code = await c.exited;
      if (code !== 0) throw new Error(`replica ${c.args.label} exited with ${code}: ${c.stderr()}`);
      const done = c.lines.find((l) => l.done)?.done as Replica['done'];
      const events = c.lines.filter((l) => l.event) as unknown as Replica['events'];
      return { label: c.args.label, events, done };
    }),
  );
}

/** When each request left (answer time minus time on the wire), with its status. */
function requests(replica: Replica): { readonly at: number; readonly status: number | 'network' }[] {
  return replica.events.flatMap(({ t, event }) => (event.type === 'request' ? [{ at: t - event.durationMs, status: event.status }] : []));
}

/** Most requests in any window of `windowMs` (half-open, as the sandbox counts). */
function busiestWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

async function setFaults(target: { url: string; token: string }, faults: Record<string, number>): Promise<void> {
  const res = await fetch(`${target.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  if (!res.ok) throw new Error(`setting faults failed: ${res.status} ${await res.text()}`);
}

const figures = (what: string, data: Record<string, unknown>): void => {
  if (process.env.SHOPSYNC_TEST_FIGURES) console.info(what, JSON.stringify(data));
};

/** Three replicas of one shop configured for `requests` per second, each pushing 15 products. */
function threeReplicas(schema: string, test: string, shared: boolean | undefined): ReplicaArgs[] {
  return ['a', 'b', 'c'].map((r) => ({ label: `${run}-${test}-${r}`, baseUrl: sandbox.url, token: sandbox.token, pgUrl, schema, shop: 'eu', requests: 10, ...(shared === undefined ? {} : { shared }), count: 15, parallel: 3 }));
}

describe.skipIf(!service.available)('one rate limit per shop, shared by the replicas on a PostgreSQL state', () => {
  it('keeps three replicas together within the shop rate: the shop, limiting at that rate, answers no 429', async () => {
    await setFaults(sandbox, { rate_limit_per_second: 10 });
    try {
      // `rateLimit.shared` left out: on by default with a PostgreSQL state.
      const replicas = await runReplicas(threeReplicas(freshSchema(), 'shared', undefined));
      const all = replicas.flatMap(requests);
      figures('shared', { requests: all.length, throttled: all.filter((r) => r.status === 429).length, busiestSecond: busiestWindow(all.map((r) => r.at)), spanMs: Math.max(...all.map((r) => r.at)) - Math.min(...all.map((r) => r.at)), waits: replicas.map((r) => r.events.filter((e) => e.event.type === 'shared-wait').length) });
      for (const r of replicas) expect(r.done, r.label).toEqual({ ok: 15, failed: 0 });
      expect(all.filter((r) => r.status === 429)).toEqual([]);
      expect(all).toHaveLength(45);
      // The shop's own count is the judge (no 429 above, from a sandbox limiting at exactly 10 a second); the start times here are
      // estimated in three processes (answer time less duration), and on a loaded machine one may land a few ms inside the next second.
      expect(busiestWindow(all.map((r) => r.at))).toBeLessThanOrEqual(11);
      // Each alone may send 10 a second: each had to wait for the budget the others used.
      for (const r of replicas) expect(r.events.some((e) => e.event.type === 'shared-wait'), r.label).toBe(true);
    } finally {
      await setFaults(sandbox, { rate_limit_per_second: 0 });
    }
  }, 150_000);

  it('without the shared limit the same three replicas exceed the shop rate and meet 429s', async () => {
    await setFaults(sandbox, { rate_limit_per_second: 10 });
    try {
      const replicas = await runReplicas(threeReplicas(freshSchema(), 'own', false));
      const all = replicas.flatMap(requests);
      figures('own limits', { requests: all.length, throttled: all.filter((r) => r.status === 429).length, busiestSecond: busiestWindow(all.map((r) => r.at)) });
      for (const r of replicas) expect(r.done, r.label).toEqual({ ok: 15, failed: 0 });
      expect(busiestWindow(all.map((r) => r.at))).toBeGreaterThan(10);
      expect(all.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      for (const r of replicas) expect(r.events.some((e) => e.event.type === 'shared-wait'), r.label).toBe(false);
    } finally {
      await setFaults(sandbox, { rate_limit_per_second: 0 });
    }
  }, 150_000);

  it.skipIf(!LIBFAKETIME)('keeps a replica whose clock runs 10 min behind at the shared rate: it waits one slot at a time, as the others do', async () => {
    const clockFile = join(tempDir('shopsync-skew-'), 'faketime');
    writeFileSync(clockFile, '-600s');
    const [a, b, c] = threeReplicas(freshSchema(), 'skew', undefined) as [ReplicaArgs, ReplicaArgs, ReplicaArgs];
    // Each child is killed after 30 s: a replica waiting the skew for a slot (10 min) fails the test there.
    const replicas = await runReplicas([a, b, { ...c, env: fakeClockEnv(clockFile) }]);
    for (const r of replicas) expect(r.done, r.label).toEqual({ ok: 15, failed: 0 });
    const behind = replicas[2]!;
    // Its own clock says 10 min earlier: the events it stamped prove the skew took effect.
    expect(Math.min(...requests(replicas[0]!).map((r) => r.at)) - Math.max(...requests(behind).map((r) => r.at))).toBeGreaterThan(500_000);
    expect(behind.events.filter((e) => e.event.type === 'shared-wait').length).toBeGreaterThan(0);
  }, 150_000);

  /**
   * Replica A talks to a shop instance that allows 1 request a second, replica B to one without a
   * limit, both as shop `eu` on one state: B meets no 429 of its own, so a gap in its requests
   * around A's 429 is the shared pause.
   */
  async function pauseScenario(shared: boolean): Promise<{ a: Replica; b: Replica; throttledAt: number; retryAfterMs: number; bDuringPause: number[] }> {
    const other = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    await setFaults(sandbox, { rate_limit_per_second: 1 });
    try {
      const schema = freshSchema();
      const common = { token: sandbox.token, pgUrl, schema, shop: 'eu', requests: 20, shared };
      const [a, b] = (await runReplicas([
        { ...common, label: `${run}-pause-${shared}-a`, baseUrl: sandbox.url, count: 2, parallel: 1, startDelayMs: 500 },
        { ...common, label: `${run}-pause-${shared}-b`, baseUrl: other.url, token: other.token, count: 40, parallel: 2 },
      ])) as [Replica, Replica];
      const throttle = a.events.find((e) => e.event.type === 'request' && e.event.status === 429);
      const pause = a.events.find((e) => e.event.type === 'throttled');
      if (!throttle || !pause || pause.event.type !== 'throttled') throw new Error('replica A met no 429');
      const retryAfterMs = pause.event.retryAfterMs;
      // Requests B had already taken a point for when the pause was written may still leave just after it.
      const bDuringPause = requests(b).map((r) => r.at).filter((at) => at > throttle.t + 100 && at < throttle.t + retryAfterMs - 50);
      return { a, b, throttledAt: throttle.t, retryAfterMs, bDuringPause };
    } finally {
      await setFaults(sandbox, { rate_limit_per_second: 0 });
      await other.close();
    }
  }

  it('pauses every replica when one meets a 429: the other sends nothing until the Retry-After has passed, and slows down', async () => {
    const { a, b, throttledAt, retryAfterMs, bDuringPause } = await pauseScenario(true);
    const bTimes = requests(b).map((r) => r.at);
    const bAfter = bTimes.filter((at) => at > throttledAt + 100);
    figures('pause', { retryAfterMs, bBefore: bTimes.filter((at) => at <= throttledAt).length, bDuringPause: bDuringPause.length, firstBAfterMs: Math.min(...bAfter) - throttledAt });
    expect(a.done).toEqual({ ok: 2, failed: 0 });
    expect(b.done).toEqual({ ok: 40, failed: 0 });
    expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(requests(b).filter((r) => r.status === 429)).toEqual([]);
    expect(bTimes.some((at) => at < throttledAt)).toBe(true); // B was busy when A met the 429…
    expect(bDuringPause).toEqual([]); // …sent nothing during A's Retry-After…
    expect(Math.min(...bAfter)).toBeGreaterThanOrEqual(throttledAt + retryAfterMs - 50); // …and went on after it.
    // B learnt the pause as its own 429: its adaptive controller took a limit from it.
    const pausedAt = b.events.findIndex((e) => e.event.type === 'shared-pause');
    expect(pausedAt).toBeGreaterThanOrEqual(0);
    expect(b.events.slice(pausedAt).some((e) => e.event.type === 'rate' && e.event.learntLimitPerSecond !== undefined)).toBe(true);
  }, 150_000);

  it('without the shared limit the other replica keeps sending through the Retry-After of the one that met the 429', async () => {
    const { b, throttledAt, bDuringPause } = await pauseScenario(false);
    figures('pause without sharing', { bDuringPause: bDuringPause.length, b: requests(b).map((r) => r.at - throttledAt) });
    expect(b.done).toEqual({ ok: 40, failed: 0 });
    expect(bDuringPause.length).toBeGreaterThan(0);
    expect(b.events.some((e) => e.event.type === 'shared-pause')).toBe(false);
  }, 150_000);
});
