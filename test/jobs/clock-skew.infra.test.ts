/**
 * Three `shopsync run` replicas on one PostgreSQL state, sharing the shop's rate limit, one of
 * them with its wall clock 10 min behind (libfaketime on that process only). Its lanes keep
 * running: the shared budget's slots open and expire on the database's clock, heartbeats are the
 * database's, lane locks are advisory locks. Before, rate-limiter-flexible stamped slot ends with
 * each replica's own Date.now(): the replica behind read every slot the others opened as 10 min
 * away and waited that long for each, holding its lanes (and their runs) the whole time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/support.js';
import { clientFor, insertOrders, shopRecords, upsertProducts } from '../pipeline/support.js';
import { fakeClockEnv, LIBFAKETIME } from '../support/cluster.js';
import { useSandbox } from '../support/sandbox.js';
import { sleep, until } from '../support/wait.js';
import { deployment } from './fixture.js';
import { postgresAvailable } from './support.js';

const PRODUCTS = 40;
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe.skipIf(!postgresAvailable || !LIBFAKETIME)('replicas whose clocks disagree (libfaketime)', () => {
  it('keeps every lane running and delivering when one of three replicas sharing the rate limit is 10 min behind', { timeout: 240_000 }, async () => {
    const d = await deployment(sandbox, { products: PRODUCTS, orders: 10, requestsPerSecond: 20, heartbeatMs: 500, deadAfterMs: 10_000, schedule: '*/2 * * * * *' });
    const clockFile = join(d.dir, 'faketime');
    writeFileSync(clockFile, '-600s');
    const procs: Awaited<ReturnType<typeof d.spawn>>[] = [];
    // The ERP keeps changing, so every run has requests to make (and slots of the shared budget to take).
    let version = 2;
    let orders = 10;
    let changing = true;
    const changes = (async () => {
      while (changing) {
        const stamp = `2026-02-01 00:${String(Math.floor(version / 60)).padStart(2, '0')}:${String(version % 60).padStart(2, '0')}`;
        upsertProducts(d.erp, 1, PRODUCTS, version, stamp);
        insertOrders(d.erp, orders + 1, orders + 2, PRODUCTS, stamp);
        orders += 2;
        version += 1;
        await sleep(700);
      }
    })();
    try {
      // The replica behind starts alone and runs both lanes; then the two others join.
      const behind = await d.spawn('behind', fakeClockEnv(clockFile));
      const behindPid = behind.proc.child.pid!;
      procs.push(behind);
      await until(async () => {
        const runs = [...(await d.runs('products')), ...(await d.runs('orders'))];
        return ['products', 'orders'].every((p) => runs.some((r) => r.pipeline === p && r.pid === behindPid && r.status === 'succeeded'));
      }, 60_000, 250);
      // The replica behind says so: its skew against the state database, read at start.
      const metrics = await (await fetch(`${behind.url}/metrics`)).text();
      expect(Number(metrics.match(/shopsync_clock_skew_seconds\{against="state"[^}]*\} (-?[\d.]+)/)?.[1])).toBeCloseTo(-600, -1);
      const lastBefore = Math.max(0, ...[...(await d.runs('products')), ...(await d.runs('orders'))].map((r) => r.id));
      procs.push(...(await Promise.all(['a', 'b'].map((n) => d.spawn(n)))));

      // For 30 s of all three together, in every 10 s of them, every lane's runs keep starting and succeeding.
      const after = async (pipeline: string, id = lastBefore) => (await d.runs(pipeline)).filter((r) => r.id > id);
      const lanes: string[] = [];
      for (let slice = 1; slice <= 3; slice++) {
        const from = Math.max(lastBefore, ...[...(await d.runs('products')), ...(await d.runs('orders'))].map((r) => r.id));
        await sleep(10_000);
        for (const pipeline of ['products', 'orders']) {
          const succeeded = (await after(pipeline, from)).filter((r) => r.status === 'succeeded').length;
          lanes.push(`${pipeline} ${slice}: ${succeeded}`);
        }
      }
      expect(lanes.filter((l) => l.endsWith(': 0')), `runs that started and succeeded per lane and 10 s: ${lanes.join(', ')}`).toEqual([]);
      const byBehind = [...(await after('products')), ...(await after('orders'))].filter((r) => r.pid === behindPid);
      // The replica behind took its share of the lanes' jobs, and none of its runs stalled (start and end on its own clock).
      expect(byBehind.length, 'runs of the replica behind').toBeGreaterThan(0);
      for (const r of byBehind.filter((x) => x.finishedAt)) expect(Date.parse(r.finishedAt!) - Date.parse(r.startedAt), `run #${r.id} of the replica behind`).toBeLessThan(20_000);

      changing = false;
      await changes;
      const shop = clientFor(sandbox);
      const want = new Map((d.erp.prepare('SELECT sku, name FROM products').all() as { sku: string; name: string }[]).map((p) => [p.sku, p.name]));
      let delivered = '';
      await until(async () => {
        const products = await shopRecords(shop, 'products');
        const current = products.filter((p) => (p.languages as Record<string, { products_name: string }>).de?.products_name === want.get(String(p.products_model))).length;
        const shopOrders = (await shopRecords(shop, 'orders')).length;
        delivered = `${current} of ${PRODUCTS} products current, ${shopOrders} of ${orders} orders`;
        return current === PRODUCTS && shopOrders >= orders;
      }, 60_000, 500).catch(() => {
        throw new Error(`not delivered within 60 s: ${delivered}`);
      });
      await until(async () => (await d.state.runs.list({ status: 'running', limit: 5 })).length === 0, 30_000, 100);
      for (const p of procs) p.proc.child.kill('SIGTERM');
      for (const p of procs) expect((await p.proc.exited).code, p.name).toBe(0);
    } finally {
      changing = false;
      await changes;
      for (const p of procs) if (p.proc.child.exitCode === null) p.proc.child.kill('SIGKILL');
      await d.close();
    }
  });
});
