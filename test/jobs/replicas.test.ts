/**
 * Three `shopsync run` replicas as separate processes on one PostgreSQL state, pushing products
 * and orders into the sandbox shop on their schedules. One replica is SIGKILLed in the middle of
 * a run, several times (a fresh replica takes its place each time), while the ERP keeps changing.
 * The killed replica's job runs again on a live replica once it has been silent for
 * `replicas.deadAfterMs` (not the job engine's four hours); at the end every product is current
 * in the shop, every order is there exactly once, and the runs table shows no lane ever run by
 * two replicas at once.
 */
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/state/index.js';
import { ensureBuilt } from '../cli/support.js';
import { clientFor, insertOrders, orderNo, setFaults, shopRecords, upsertProducts } from '../pipeline/support.js';
import { useSandbox } from '../support/sandbox.js';
import { sleep, until } from '../support/wait.js';
import { deployment, overlaps } from './fixture.js';
import { postgresAvailable } from './support.js';

const PRODUCTS = 1200;
const ORDERS = 400;
const KILLS = 5;
const HEARTBEAT_MS = 300;
const DEAD_AFTER_MS = 2500;

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe.skipIf(!postgresAvailable)('replicas on a PostgreSQL state', () => {
  it('survive a replica SIGKILLed mid-run, again and again: products current, orders exactly once, no lane run twice at once', { timeout: 150_000 }, async () => {
    const d = await deployment(sandbox, { products: PRODUCTS, orders: ORDERS, requestsPerSecond: 30, heartbeatMs: HEARTBEAT_MS, deadAfterMs: DEAD_AFTER_MS, schedule: '*/2 * * * * *' });
    // Lost answers: writes the shop carried out but whose answer never arrived.
    await setFaults(sandbox, { reset_after_write_rate: 0.03 });
    let orders = ORDERS;
    try {
      const alive = new Map<number, Awaited<ReturnType<typeof d.spawn>>>();
      const add = async (name: string) => {
        const r = await d.spawn(name);
        alive.set(r.proc.child.pid!, r);
      };
      await Promise.all(['r1', 'r2', 'r3'].map(add));
      const hits: { pipeline: string; runId: number; pid: number; at: number; lastBeat: number }[] = [];
      // Until KILLS kills landed mid-run: a run may end in the moment before its kill (short runs on a fast machine),
      // which then counts as no hit and is tried again, rather than a count of hits a machine's speed decides.
      for (let k = 0; hits.length < KILLS; k++) {
        expect(k, `only ${hits.length} of ${KILLS} kills landed in the middle of a run`).toBeLessThan(3 * KILLS);
        if (k > 0) {
          // The ERP moves on between kills: changed products and new orders.
          upsertProducts(d.erp, 1 + k * 200, 200 + k * 200, k + 2, `2026-02-0${k} 00:00:00`);
          insertOrders(d.erp, orders + 1, orders + 60, PRODUCTS, `2026-02-0${k} 00:00:00`);
          orders += 60;
        }
        // A run in progress on one of our replicas, some records in; orders and products by turns when both run.
        let victim: { pipeline: string; id: number; pid: number } | undefined;
        const prefer = k % 2 === 0 ? 'orders' : 'products';
        const since = Date.now();
        await until(async () => {
          const busy = (await d.state.runs.list({ status: 'running', limit: 10 })).filter((r) => r.pid !== undefined && alive.has(r.pid) && r.counts.read > 0);
          const running = busy.some((r) => r.pipeline === prefer) || Date.now() - since > 4000 ? busy.filter((r) => r.pipeline === prefer || Date.now() - since > 4000) : [];
          const pick = running[Math.floor(Math.random() * running.length)];
          if (pick) victim = { pipeline: pick.pipeline, id: pick.id, pid: pick.pid! };
          return pick !== undefined;
        }, 40_000, 50);
        await sleep(Math.floor(Math.random() * 200));
        const target = alive.get(victim!.pid)!;
        const at = Date.now();
        target.proc.child.kill('SIGKILL');
        await target.proc.exited;
        alive.delete(victim!.pid);
        // Its last heartbeat (the row stays until a live replica counts it as dead): the lane is free DEAD_AFTER_MS after it.
        const row = (await d.state.replicas.list()).find((r) => r.pid === victim!.pid);
        if ((await d.state.runs.get(victim!.id))?.status === 'running' && row) hits.push({ pipeline: victim!.pipeline, runId: victim!.id, pid: victim!.pid, at, lastBeat: Date.parse(row.heartbeatAt) });
        await add(`r${4 + k}`);
      }

      // Every kill is survived: the lane's next run starts on another replica once the dead one counts as silent.
      for (const hit of hits) {
        await until(async () => (await d.runs(hit.pipeline)).some((r) => r.id > hit.runId), 60_000, 100);
        const next = (await d.runs(hit.pipeline)).find((r) => r.id > hit.runId)!;
        expect(next.pid).not.toBe(hit.pid);
        const waited = Date.parse(next.startedAt) - hit.at;
        // From its last heartbeat, not from the kill: a busy machine delays beats, so "kill − one beat" is no bound.
        expect(Date.parse(next.startedAt) - hit.lastBeat, 'the lane stayed with the dead replica until it counted as dead').toBeGreaterThanOrEqual(DEAD_AFTER_MS - 250);
        // The job engine's own lock timeout is four hours: a minute past the replica timeout is far from both.
        expect(waited, 'the lane came back within the replica timeout, not the engine lock timeout').toBeLessThan(DEAD_AFTER_MS + 60_000);
        expect(await d.state.runs.get(hit.runId)).toMatchObject({ status: 'crashed' });
        if (process.env.SHOW_FIGURES) console.info(`killed ${hit.pipeline} run #${hit.runId} (pid ${hit.pid}); run #${next.id} continued on pid ${next.pid} after ${waited} ms (read ${next.counts.read}, created ${next.counts.created}, updated ${next.counts.updated})`);
      }

      // The remaining replicas catch up with everything.
      await setFaults(sandbox, { reset_after_write_rate: 0 });
      const shop = clientFor(sandbox);
      const erpProducts = new Map((d.erp.prepare('SELECT * FROM products').all() as { sku: string; name: string; price: string; qty: number }[]).map((p) => [p.sku, p]));
      const current = async () => {
        const products = await shopRecords(shop, 'products');
        return products.length === PRODUCTS && products.every((p) => (p.languages as Record<string, { products_name: string }>).de?.products_name === erpProducts.get(String(p.products_model))?.name);
      };
      await until(async () => (await current()) && (await shopRecords(shop, 'orders')).length >= orders, 60_000, 500);
      await until(async () => (await d.state.runs.list({ status: 'running', limit: 5 })).length === 0, 20_000, 100);
      for (const r of alive.values()) r.proc.child.kill('SIGTERM');
      for (const r of alive.values()) expect((await r.proc.exited).code).toBe(0);

      const products = await shopRecords(shop, 'products');
      expect(products).toHaveLength(PRODUCTS);
      for (const p of products) {
        const want = erpProducts.get(String(p.products_model));
        expect(want, `unexpected product ${String(p.products_model)}`).toBeDefined();
        expect(p.products_price).toBe(Number(want!.price));
        expect(p.products_quantity).toBe(want!.qty);
        expect((p.languages as Record<string, { products_name: string }>).de!.products_name).toBe(want!.name);
        expect((await d.state.refs.get('products', want!.sku))?.shopId).toBe(p.products_id);
      }
      const inShop = await shopRecords(shop, 'orders');
      expect(inShop.map((o) => (o.external_reference as { external_id: string }).external_id).sort()).toEqual(Array.from({ length: orders }, (_, i) => orderNo(i + 1)));
      expect(await d.state.refs.count('orders')).toBe(orders);
      expect(await d.state.intents.list('orders')).toEqual([]);
      for (const lane of ['products', 'orders']) {
        const runs = await d.runs(lane);
        expect(runs.filter((r) => r.status === 'running')).toEqual([]);
        expect(overlaps(runs)).toEqual([]);
        expect(new Set(runs.map((r) => r.pid)).size, `${lane} ran on several replicas`).toBeGreaterThan(1);
      }
      if (process.env.SHOW_FIGURES) for (const lane of ['products', 'orders']) console.info(lane, (await d.runs(lane)).map((r) => `#${r.id}:${r.status}:${r.pid}:${r.counts.read}`).join(' '));
      // Stopped cleanly, the replicas left no rows behind; the killed ones were reaped.
      expect((await d.state.replicas.list()).filter((r) => processAlive(r.pid))).toEqual([]);
      await shop.close();
    } finally {
      await setFaults(sandbox, { reset_after_write_rate: 0 }).catch(() => undefined);
      await d.close();
    }
  });
});
