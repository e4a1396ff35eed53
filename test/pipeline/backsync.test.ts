import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createOrderTables, insertOrders, mappingFile, ORDER_MAPPING, ORDER_SOURCE, orderNo, pushFixture, setFaults, sqliteSource, type PushFixture } from './support.js';

const STATUS_MAPPING = `
name: order-status
direction: erp-to-shop
target: { resource: orders, operation: update }
key: order_no
shop_key: orders_id
history_identity: [orders_status_id, date_added, comments]
fields:
  orders_id: { from: shop_id, type: integer }
  status_history:
    each: events
    fields:
      orders_status_id: { from: status_id, type: integer }
      comments: comment
      date_added: date_added
  tracking:
    each: events
    where: { from: tracking, present: true }
    empty: omit
    fields:
      code: tracking
      service_provider: { value: DHL }
`;

const STATUS_SOURCE = {
  query: 'SELECT * FROM order_status',
  cursor: 'updated_at',
  key: 'order_no',
  children: [{ field: 'events', query: 'SELECT * FROM status_events WHERE order_no IN (:keys) ORDER BY seq', parentKey: 'order_no' }],
};

const ordersDef = { name: 'orders', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'orders.yaml', resource: 'orders' };
const statusDef = { name: 'order-status', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'status.yaml', resource: 'orders' };

let f: PushFixture;
let status: CompiledMapping;
let touch = 0;
beforeEach(async () => {
  f = await pushFixture();
  createOrderTables(f.erp);
  f.erp.exec(`CREATE TABLE order_status (order_no TEXT PRIMARY KEY, shop_id INTEGER NOT NULL, updated_at TEXT NOT NULL);
              CREATE TABLE status_events (order_no TEXT NOT NULL, seq INTEGER NOT NULL, status_id INTEGER NOT NULL, comment TEXT NOT NULL, date_added TEXT NOT NULL, tracking TEXT, PRIMARY KEY (order_no, seq))`);
  insertOrders(f.erp, 1, 3, 5);
  const orders = await mappingFile(f.dir, 'orders', ORDER_MAPPING);
  await runPipeline(ordersDef, { state: f.state, shop: f.shop, mapping: orders, source: sqliteSource(f.erpFile, ORDER_SOURCE) });
  status = await mappingFile(f.dir, 'status', STATUS_MAPPING);
});
afterEach(async () => {
  await f.close();
});

/** An ever-increasing ERP change time. */
function stamp(): string {
  return `2026-02-01 00:${String(++touch).padStart(2, '0')}:00`;
}

/** Add a status event to an order (and touch the order's status row so the source re-reads it). */
async function addEvent(n: number, seq: number, statusId: number, comment: string, tracking?: string): Promise<void> {
  const shopId = (await f.state.refs.get('orders', orderNo(n)))!.shopId;
  f.erp.prepare('INSERT OR REPLACE INTO order_status (order_no, shop_id, updated_at) VALUES (?, ?, ?)').run(orderNo(n), shopId, stamp());
  f.erp.prepare('INSERT INTO status_events (order_no, seq, status_id, comment, date_added, tracking) VALUES (?, ?, ?, ?, ?, ?)').run(orderNo(n), seq, statusId, comment, `2026-02-0${seq} 10:00:00`, tracking ?? null);
}

async function history(n: number): Promise<{ orders_status_id: number; comments: string }[]> {
  const order = await f.shop.exportOne('orders', (await f.state.refs.get('orders', orderNo(n)))!.shopId);
  return (order!.status_history as { orders_status_id: number; comments: string }[]).filter((h) => h.comments !== '');
}

const run = (options: Record<string, unknown> = {}) => runPipeline({ ...statusDef, options }, { state: f.state, shop: f.shop, mapping: status, source: sqliteSource(f.erpFile, STATUS_SOURCE) });

describe('back-sync of order status and tracking', () => {
  it('sends each status-history entry exactly once, however often the run repeats', async () => {
    await addEvent(1, 1, 2, 'in progress');
    expect((await run()).counts).toMatchObject({ updated: 1 });
    expect(await history(1)).toEqual([expect.objectContaining({ orders_status_id: 2, comments: 'in progress' })]);

    // The ERP touches the row without a new event: nothing is sent.
    f.erp.prepare('UPDATE order_status SET updated_at = ? WHERE order_no = ?').run(stamp(), orderNo(1));
    expect((await run()).counts).toMatchObject({ unchanged: 1, requests: 0 });

    await addEvent(1, 2, 3, 'shipped', 'TRACK-1');
    expect((await run()).counts).toMatchObject({ updated: 1 });
    expect((await history(1)).map((h) => h.comments)).toEqual(['in progress', 'shipped']);
    const order = await f.shop.exportOne('orders', (await f.state.refs.get('orders', orderNo(1)))!.shopId);
    expect((order!.tracking as { code: string }[]).map((t) => t.code)).toEqual(['TRACK-1']);

    // A full resend (state of hashes lost): the entries are known as sent and are not appended again.
    await f.state.hashes.clear('order-status');
    await f.state.cursors.delete('order-status');
    await run();
    expect((await history(1)).map((h) => h.comments)).toEqual(['in progress', 'shipped']);
    // Orders addressed by orders_id need no reference: the orders push's references stay as they were.
    expect(await f.state.refs.count('orders')).toBe(3);
  });

  it('reconciles an entry whose answer was lost by reading the order back instead of resending it', async () => {
    await addEvent(2, 1, 2, 'packed');
    await setFaults(f.sandbox, { reset_after_write_rate: 1 });
    const lost = await run({ maxAttempts: 1 });
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });
    expect(lost.status).toBe('failed');
    // The shop took the entry; we only know it is pending.
    expect(await history(2)).toHaveLength(1);
    const again = await run();
    expect(again.status).toBe('succeeded');
    expect((await history(2)).map((h) => h.comments)).toEqual(['packed']);
  });

  it('reconciles within the same run when a retry follows a lost answer', async () => {
    await addEvent(3, 1, 2, 'picked');
    await setFaults(f.sandbox, { reset_after_write_rate: 0.5 });
    // Faults fire on every second request from here: this read passes, so the run's first PUT loses its answer.
    await f.shop.exportOne('orders', (await f.state.refs.get('orders', orderNo(3)))!.shopId);
    const summary = await run();
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });
    expect(summary.status).toBe('succeeded');
    expect((await history(3)).map((h) => h.comments)).toEqual(['picked']);
  });
});
