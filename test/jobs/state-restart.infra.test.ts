/**
 * The PostgreSQL that holds the state restarts under a single daemon (`shopsync run`, one replica)
 * whose products run is half-way through a slow shop (issue 39: the lane stayed stuck for four
 * hours). The state runs on a cluster of the test's own, stopped for 20 s and started again, once
 * with a fast shutdown (sessions ended cleanly) and once with an immediate one (a crash). The lane
 * runs again within a minute of the restart, every product arrives, and no run is left `running`.
 * And a daemon told to stop while its run's final write cannot reach the state exits non-zero
 * naming that run, instead of exiting 0 over a state that says the run goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../cli/support.js';
import { clientFor, shopRecords } from '../pipeline/support.js';
import { ownCluster, type OwnCluster } from '../support/cluster.js';
import { useSandbox } from '../support/sandbox.js';
import { sleep, until } from '../support/wait.js';
import { deployment, overlaps, type Deployment } from './fixture.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const made = await ownCluster('state_restart');
const cluster: OwnCluster | undefined = made.available ? made : undefined;

beforeAll(async () => {
  await cluster?.createDatabase('state');
});
afterAll(async () => {
  await cluster?.drop();
});

async function faults(settings: Record<string, number>): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
  expect(res.status).toBe(200);
}

async function resetShop(): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/reset`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ seed: 'empty' }) });
  expect(res.status).toBe(200);
}

const PRODUCTS = 400;

/** One daemon on the cluster's state, a products job added, and its run half-way (slow shop: about 40 s for the whole run). */
async function runInFlight() {
  await resetShop();
  await faults({ latency_ms: 500 });
  const d = await deployment(sandbox, {
    products: PRODUCTS,
    orders: 0,
    requestsPerSecond: 50,
    heartbeatMs: 1000,
    // Far beyond the test: recovery must not come from a replica counting as dead.
    deadAfterMs: 600_000,
    ordersPipeline: false,
    shop: { concurrency: 1 },
    productsBatchSize: 10,
    stateUrl: cluster!.url('state'),
  });
  const daemon = await d.spawn('alpha');
  const added = await runCli(['jobs', 'add', 'products', '--config', d.config], { env: d.env(), cwd: d.dir });
  expect(added.code, added.stderr).toBe(0);
  await until(async () => ((await d.state.runs.list({ status: 'running', limit: 1 }))[0]?.counts.created ?? 0) >= 20, 60_000, 100);
  const first = (await d.state.runs.list({ status: 'running', limit: 1 }))[0]!;
  return { d, daemon, first };
}

async function shopCount(): Promise<number> {
  const shop = clientFor(sandbox);
  try {
    return (await shopRecords(shop, 'products')).length;
  } finally {
    await shop.close();
  }
}

describe.skipIf(!cluster)('the state database restarts under a single daemon with a run in flight', () => {
  for (const mode of ['fast', 'immediate'] as const) {
    it(`runs the lane again within a minute of the restart (stop -m ${mode}), delivers every product and leaves no run running`, { timeout: 300_000 }, async () => {
      const { d, daemon, first } = await runInFlight();
      try {
        await cluster!.stop(mode);
        await sleep(20_000);
        await cluster!.start();
        const restartedAt = Date.now();
        await faults({ latency_ms: 0 });
        // The lane runs again: a run after the one the restart cut, within a minute.
        await until(async () => (await d.runs('products')).some((r) => r.id > first.id), 60_000, 250);
        const next = (await d.runs('products')).find((r) => r.id > first.id)!;
        expect(Date.parse(next.startedAt) - restartedAt).toBeLessThan(60_000);
        await until(async () => (await d.runs('products')).some((r) => r.status === 'succeeded'), 120_000, 250);
        expect(await shopCount()).toBe(PRODUCTS);
        const runs = await d.runs('products');
        expect(runs.filter((r) => r.status === 'running').map((r) => `#${r.id}`)).toEqual([]);
        expect(runs.find((r) => r.id === first.id)?.status).not.toBe('running');
        expect(overlaps(runs)).toEqual([]);
        daemon.proc.child.kill('SIGTERM');
        const exit = await daemon.proc.exited;
        expect(exit.code, exit.stdout.slice(-3000) + exit.stderr).toBe(0);
      } finally {
        await faults({ latency_ms: 0 });
        await cluster!.start().catch(() => undefined);
        await d.close();
      }
    });
  }

  it('exits non-zero naming the run when a SIGTERM comes while the run\'s final write cannot reach the state', { timeout: 300_000 }, async () => {
    const { d, daemon, first } = await runInFlight();
    try {
      await cluster!.stop('fast');
      // The run ends (its lane lock and its writes are gone with the server) and its final write is refused.
      await daemon.proc.waitFor(/the state refused the run's final status/, 120_000);
      daemon.proc.child.kill('SIGTERM');
      const exit = await daemon.proc.exited;
      expect(exit.code, exit.stdout.slice(-3000) + exit.stderr).toBe(1);
      expect(exit.stderr).toContain(`run #${first.id} of products is still \`running\` in the state`);
      await cluster!.start();
      // Nothing wrote it meanwhile: the state shows what the exit code said, until the next start marks it crashed.
      expect((await d.state.runs.get(first.id))?.status).toBe('running');
    } finally {
      await faults({ latency_ms: 0 });
      await cluster!.start().catch(() => undefined);
      await d.close();
    }
  });
});
