/**
 * Crash safety: a child process pushes 5,000 products and 500 orders into the sandbox (which
 * lives in this process and survives) and is killed with SIGKILL at random moments, at least ten
 * times (right after a write's answer arrived, before or while its outcome is committed), and
 * restarted; before every restart the ERP changes 300 products. At the end the shop must hold
 * exactly the ERP's data: every product current, every order exactly once, and the state's
 * references must agree with the shop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openState } from '../../src/state/index.js';
import { clientFor, createErp, createOrderTables, insertOrders, ORDER_MAPPING, orderNo, PRODUCT_MAPPING, setFaults, shopRecords, tempDir, upsertProducts } from './support.js';

const PRODUCTS = 5000;
const ORDERS = 500;
const KILLS = 12;
const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

let dir: string;
let sandbox: SandboxHandle;
beforeAll(async () => {
  dir = tempDir('shopsync-crash-');
  sandbox = await startSandbox({ seed: 'empty', dbPath: join(dir, 'shop.sqlite') });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(erpFile: string, stateFile: string, killAfterBatches?: number): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, sandbox.url, sandbox.token, erpFile, stateFile, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let batches = 0;
  child.stdout!.on('data', (d: Buffer) => {
    const text = d.toString();
    out += text;
    batches += text.split('\n').filter((l) => l === 'B').length;
    // Killed 0-150 ms after the answer to a write arrived: while settling, reading, mapping or sending the next batch.
    if (killAfterBatches !== undefined && batches >= killAfterBatches && !child.killed) setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 150));
  });
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out })));
  return { child, done };
}

describe('crash safety', () => {
  it('ends with exactly the ERP data in the shop after repeated SIGKILLs of the pushing process', async () => {
    const erpFile = join(dir, 'erp.sqlite');
    const stateFile = join(dir, 'state.db');
    const erp = createErp(erpFile);
    createOrderTables(erp);
    upsertProducts(erp, 1, PRODUCTS);
    insertOrders(erp, 1, ORDERS, PRODUCTS);
    writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
    writeFileSync(join(dir, 'orders.yaml'), ORDER_MAPPING);
    // Lost answers and latency add writes whose outcome the child never learns.
    await setFaults(sandbox, { reset_after_write_rate: 0.05, latency_ms: 4, latency_jitter_ms: 8 });

    let kills = 0;
    let rounds = 0;
    while (kills < KILLS) {
      expect(rounds++).toBeLessThan(40);
      if (rounds > 1) {
        // Every round brings new work: 300 changed products (and, halfway, 500 at once).
        const from = 1 + ((rounds * 300) % (PRODUCTS - 500));
        upsertProducts(erp, from, from + (kills === KILLS / 2 ? 499 : 299), rounds + 1, `2026-02-01 00:${String(rounds).padStart(2, '0')}:00`);
      }
      const { done } = start(erpFile, stateFile, 1 + Math.floor(Math.random() * 15));
      const result = await done;
      if (result.signal === 'SIGKILL') kills++;
      else expect(result.out, result.out).toContain('DONE');
    }
    const last = await start(erpFile, stateFile).done;
    expect(last.code, last.out).toBe(0);
    expect(last.out).toContain('DONE');
    await setFaults(sandbox, { reset_after_write_rate: 0, latency_ms: 0, latency_jitter_ms: 0 });
    expect(kills).toBeGreaterThanOrEqual(10);

    const shop = clientFor(sandbox);
    const erpProducts = new Map((erp.prepare('SELECT * FROM products').all() as { sku: string; name: string; price: string; qty: number }[]).map((p) => [p.sku, p]));
    const products = await shopRecords(shop, 'products');
    expect(products).toHaveLength(PRODUCTS);
    const state = openState(stateFile);
    for (const p of products) {
      const want = erpProducts.get(String(p.products_model));
      expect(want, `unexpected product ${String(p.products_model)}`).toBeDefined();
      expect(p.products_price).toBe(Number(want!.price));
      expect(p.products_quantity).toBe(want!.qty);
      expect((p.languages as Record<string, { products_name: string }>).de!.products_name).toBe(want!.name);
      expect(state.refs.get('products', want!.sku)?.shopId).toBe(p.products_id);
    }
    const orders = await shopRecords(shop, 'orders');
    const ids = orders.map((o) => (o.external_reference as { external_id: string }).external_id).sort();
    expect(ids).toEqual(Array.from({ length: ORDERS }, (_, i) => orderNo(i + 1)));
    for (const o of orders) expect(state.refs.get('orders', (o.external_reference as { external_id: string }).external_id)?.shopId).toBe(o.orders_id);
    expect(state.refs.count('products')).toBe(PRODUCTS);
    expect(state.refs.count('orders')).toBe(ORDERS);
    expect(state.intents.list('products')).toEqual([]);
    // Every kill hit a run in progress (timed by write answers), which the next start marked crashed.
    expect(state.runs.list({ status: 'crashed', limit: 100 }).length).toBeGreaterThanOrEqual(KILLS - 2);
    await state.close();
    await shop.close();
    erp.close();
  }, 180_000);
});
