import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { openState } from '../../src/state/index.js';
import { createOrderTables, insertOrders, mappingFile, ORDER_MAPPING, ORDER_SOURCE, orderNo, pushFixture, setFaults, shopRecords, sqliteSource, type PushFixture } from './support.js';

const def = { name: 'orders', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'orders.yaml', resource: 'orders', batchSize: 10 };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  createOrderTables(f.erp);
  mapping = await mappingFile(f.dir, 'orders', ORDER_MAPPING);
});
afterEach(async () => {
  await f.close();
});
const deps = (extra: Partial<Parameters<typeof runPipeline>[1]> = {}) => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, ORDER_SOURCE), ...extra });

function externalIds(orders: Record<string, unknown>[]): string[] {
  return orders.map((o) => (o.external_reference as { external_id: string }).external_id).sort();
}

describe('orders ERP → shop', () => {
  it('creates each order once with its external reference', async () => {
    insertOrders(f.erp, 1, 25, 10);
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'succeeded', counts: { created: 25 } });
    const orders = await shopRecords(f.shop, 'orders');
    expect(externalIds(orders)).toEqual(Array.from({ length: 25 }, (_, i) => orderNo(i + 1)));
    expect((await f.state.refs.get('orders', orderNo(3)))?.shopId).toBe(orders.find((o) => (o.external_reference as { external_id: string }).external_id === orderNo(3))?.orders_id);
  });

  it('never rewrites an order the shop already has when the mapping only creates', async () => {
    insertOrders(f.erp, 1, 3, 10);
    await runPipeline(def, deps());
    f.erp.prepare("UPDATE orders SET lastname = 'Changed', updated_at = '2026-01-02 00:00:00' WHERE order_no = ?").run(orderNo(2));
    const summary = await runPipeline(def, deps());
    expect(summary.counts).toMatchObject({ read: 1, unchanged: 1, updated: 0, requests: 0 });
  });

  it('records an order the shop already holds (DUPLICATE_EXTERNAL_REFERENCE) as existing, never as a failure or a second order', async () => {
    insertOrders(f.erp, 1, 12, 10);
    await runPipeline(def, deps());
    // A fresh state (lost, or a second installation): every order comes back as a duplicate.
    const fresh = await openState(join(f.dir, 'fresh.db'));
    const summary = await runPipeline(def, deps({ state: fresh }));
    expect(summary.status).toBe('succeeded');
    expect(summary.counts).toMatchObject({ created: 0, unchanged: 12, failed: 0, deadLettered: 0 });
    const orders = await shopRecords(f.shop, 'orders');
    expect(orders).toHaveLength(12);
    for (const o of orders) expect((await fresh.refs.get('orders', (o.external_reference as { external_id: string }).external_id))?.shopId).toBe(o.orders_id);
    const events = await fresh.events.list({ runId: summary.runId, code: 'DUPLICATE_EXTERNAL_REFERENCE' });
    expect(events).toHaveLength(12);
    await fresh.close();
  });

  it('isolates a bad order of an all-or-nothing request: it is dead-lettered, the others land', async () => {
    insertOrders(f.erp, 1, 10, 10);
    f.erp.prepare('UPDATE orders SET customer_id = 999 WHERE order_no = ?').run(orderNo(4));
    const summary = await runPipeline(def, deps());
    expect(summary.status).toBe('partial');
    expect(summary.counts).toMatchObject({ created: 9, deadLettered: 1 });
    expect(await f.state.deadLetters.getByKey('orders', orderNo(4))).toMatchObject({ code: 'CUSTOMER_NOT_FOUND' });
    expect(externalIds(await shopRecords(f.shop, 'orders'))).toHaveLength(9);
  });

  it('never creates an order twice when answers are lost after the shop wrote them', async () => {
    insertOrders(f.erp, 1, 30, 10);
    await setFaults(f.sandbox, { reset_after_write_rate: 0.5 });
    const summary = await runPipeline(def, deps());
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });
    expect(summary.status).toBe('succeeded');
    // Orders whose create answer was lost are still counted as created by this run, not as pre-existing.
    expect(summary.counts).toMatchObject({ created: 30, unchanged: 0 });
    const orders = await shopRecords(f.shop, 'orders');
    expect(externalIds(orders)).toEqual(Array.from({ length: 30 }, (_, i) => orderNo(i + 1)));
    expect(await f.state.refs.count('orders')).toBe(30);
  });
});
