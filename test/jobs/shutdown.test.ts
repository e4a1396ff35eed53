/**
 * SIGTERM to a replica while a long run is in flight against a slow, rate-limited shop. Batches
 * the run had already handed to the shop client but that still wait for the shop's rate stop with
 * the run's abort signal, so the run reaches its checkpoint within `daemon.shutdownGraceMs`, its
 * job goes back and the replica exits 0. A run whose request on the wire outlives the grace period
 * is left as the replica's: the replica exits 4 (docs/cli.md) without touching the job engine after
 * releasing it (no graphile-worker "committing seppuku", no "Cannot use a pool after calling end"),
 * and the other replica takes the job once this one counts as dead. Either way every record
 * arrives and no two runs of the lane overlap.
 */
import { describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../cli/support.js';
import { clientFor, shopRecords } from '../pipeline/support.js';
import { useSandbox } from '../support/sandbox.js';
import { until } from '../support/wait.js';
import { deployment, overlaps, type Deployment } from './fixture.js';
import { postgresAvailable } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** Shop-side faults of the sandbox (PUT /sandbox/faults). */
async function faults(settings: Record<string, number>): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
  expect(res.status).toBe(200);
}

/** An empty shop again: each test counts the products it delivered. */
async function resetShop(): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ seed: 'empty' }) });
  expect(res.status).toBe(200);
}

/** What must never appear in a stopping replica's output. */
const ENGINE_CRASH = /seppuku|Cannot use a pool after calling end|Worker exited with error/;

/** Spawn two replicas, add a products job and wait until one of them runs it; returns runner and other. */
async function startRun(d: Deployment) {
  const replicas = [await d.spawn('alpha'), await d.spawn('beta')];
  const added = await runCli(['jobs', 'add', 'products', '--config', d.config], { env: d.env(), cwd: d.dir });
  expect(added.code, added.stderr).toBe(0);
  await until(async () => ((await d.state.runs.list({ status: 'running', limit: 1 }))[0]?.counts.read ?? 0) > 0, 30_000, 50);
  const first = (await d.state.runs.list({ status: 'running', limit: 1 }))[0]!;
  const runner = replicas.find((r) => r.proc.child.pid === first.pid)!;
  expect(runner, 'the run belongs to one of the replicas').toBeDefined();
  return { first, runner, other: replicas.find((r) => r !== runner)! };
}

/** Wait for the lane's next run after `firstId` to finish; every product is in the shop and no two runs overlapped. */
async function expectDelivered(d: Deployment, firstId: number, products: number, timeoutMs: number): Promise<void> {
  await until(async () => (await d.runs('products')).some((r) => r.id > firstId && r.status === 'succeeded'), timeoutMs, 200);
  const shop = clientFor(sandbox);
  try {
    expect(await shopRecords(shop, 'products')).toHaveLength(products);
  } finally {
    await shop.close();
  }
  expect(overlaps(await d.runs('products'))).toEqual([]);
}

describe.skipIf(!postgresAvailable)('SIGTERM to a replica while a long run waits for a rate-limited shop', () => {
  it('stops the run at its next checkpoint although many of its batches wait for the shop\'s rate, hands the job back and exits 0', { timeout: 180_000 }, async () => {
    // One request at a time, 300 ms each: sixteen batches in flight take about five seconds to drain, the grace is 2.5 s.
    await resetShop();
    await faults({ latency_ms: 300, rate_limit_per_second: 0 });
    const PRODUCTS = 600;
    const d = await deployment(sandbox, {
      products: PRODUCTS,
      orders: 0,
      requestsPerSecond: 4,
      heartbeatMs: 1000,
      // Ten minutes: only the handback, not the replica timeout, can explain a takeover within a tenth of it.
      deadAfterMs: 600_000,
      ordersPipeline: false,
      shutdownGraceMs: 2500,
      shop: { concurrency: 1 },
      productsBatchSize: 10,
      productsOptions: { concurrency: 16 },
    });
    try {
      const { first, runner, other } = await startRun(d);
      // Let the run fill the shop client's queue with batches waiting for the rate.
      await until(async () => ((await d.state.runs.get(first.id))?.counts.created ?? 0) >= 20, 30_000, 50);
      const stoppedAt = Date.now();
      runner.proc.child.kill('SIGTERM');
      const exit = await runner.proc.exited;
      expect(exit.stdout + exit.stderr).not.toMatch(ENGINE_CRASH);
      expect(exit.code, exit.stdout.slice(-3000) + exit.stderr).toBe(0);
      expect(exit.stdout).toContain('job handed back to the other replicas');
      expect((await d.state.runs.get(first.id))?.status).toBe('aborted');
      // Handed back, not reaped: the other replica continued long before this one could count as dead.
      await until(async () => (await d.runs('products')).some((r) => r.id > first.id), 60_000, 50);
      const next = (await d.runs('products')).find((r) => r.id > first.id)!;
      expect(next.pid).toBe(other.proc.child.pid);
      expect(Date.parse(next.startedAt) - stoppedAt).toBeLessThan(600_000 / 10);
      await faults({ latency_ms: 0 });
      await expectDelivered(d, first.id, PRODUCTS, 90_000);
      other.proc.child.kill('SIGTERM');
      expect((await other.proc.exited).code).toBe(0);
    } finally {
      await faults({ latency_ms: 0, rate_limit_per_second: 0 });
      await d.close();
    }
  });

  it('exits 4 when a request on the wire outlives the grace period, leaves the job to the other replica once it counts as dead, and never touches the released job engine', { timeout: 180_000 }, async () => {
    // Every request takes 2.5 s and the shop answers 429 beyond 3 a second; the grace is 300 ms.
    await resetShop();
    await faults({ latency_ms: 2500, rate_limit_per_second: 3 });
    const PRODUCTS = 200;
    const DEAD_AFTER_MS = 4000;
    const d = await deployment(sandbox, {
      products: PRODUCTS,
      orders: 0,
      requestsPerSecond: 10,
      heartbeatMs: 500,
      deadAfterMs: DEAD_AFTER_MS,
      ordersPipeline: false,
      shutdownGraceMs: 300,
      shop: { concurrency: 4, rateLimit: { mode: 'adaptive', requests: 10, intervalMs: 1000 } },
      productsBatchSize: 10,
    });
    try {
      const { first, runner, other } = await startRun(d);
      runner.proc.child.kill('SIGTERM');
      const exit = await runner.proc.exited;
      expect(exit.stdout + exit.stderr).not.toMatch(ENGINE_CRASH);
      expect(exit.code, exit.stdout.slice(-3000) + exit.stderr).toBe(4);
      expect(exit.stdout).toContain('grace period over');
      expect(exit.stdout).not.toContain('job handed back to the other replicas');
      // The stopped replica's row stays until the other one counts it as dead and frees its job.
      expect((await d.state.replicas.list()).map((r) => r.name).sort()).toEqual(['alpha', 'beta']);
      await until(async () => (await d.runs('products')).some((r) => r.id > first.id), 60_000, 100);
      const next = (await d.runs('products')).find((r) => r.id > first.id)!;
      expect(next.pid).toBe(other.proc.child.pid);
      await faults({ latency_ms: 0, rate_limit_per_second: 0 });
      await expectDelivered(d, first.id, PRODUCTS, 90_000);
      expect(other.proc.stdout()).toContain('counted as dead');
      // Cut off with its process: the run that outlived the grace period is marked crashed, not left running.
      expect((await d.state.runs.get(first.id))?.status).toBe('crashed');
      other.proc.child.kill('SIGTERM');
      expect((await other.proc.exited).code).toBe(0);
    } finally {
      await faults({ latency_ms: 0, rate_limit_per_second: 0 });
      await d.close();
    }
  });
});
