/**
 * The orders handler (spec: Resources › Orders; Endpoints › Orders; Errors). An order request is
 * all-or-nothing: the first failing order rejects the request and the transaction rolls back.
 * external_reference deduplication is race-free: requests run one at a time inside a
 * transaction and the (source, external_id) pair is a primary key. Stock: `stock.ts`.
 */
import type { ResourceHandler, SandboxContext, SandboxReply, SandboxRequest } from '../../handler.js';
import { API_VERSION, deleteReply, fail, isRecord, ok, phpDeleteId, writeRecords } from '../../kit.js';
import { exportFromStore } from '../../exports.js';
import { createOrder } from './create.js';
import { orderError, type OrderWarning } from './errors.js';
import { seedOrders } from './seed.js';
import { initStockBookings, restock } from './stock.js';
import { isUpdate, updateOrder } from './update.js';

function write(ctx: SandboxContext, req: SandboxRequest, operation: 'create' | 'update'): SandboxReply {
  const records = writeRecords(req, { typeOptional: true });
  const warnings: OrderWarning[] = [];
  const data = records.map((raw, index) => {
    if (!isRecord(raw)) return orderError('INVALID_PAYLOAD', 'An order must be a JSON object', index);
    // PUT with orders_id updates; PUT without it creates, like POST.
    const result = operation === 'update' && isUpdate(raw) ? updateOrder(ctx, raw, index, warnings) : createOrder(ctx, raw, index, warnings);
    return { index, ...result };
  });
  return ok({ success: true, api_version: API_VERSION, type: 'orders', operation, data, warnings, errors: [] });
}

export const ordersHandler: ResourceHandler = {
  init(ctx) {
    ctx.db.exec('CREATE TABLE IF NOT EXISTS order_external_refs (source TEXT NOT NULL, external_id TEXT NOT NULL, orders_id INTEGER NOT NULL, PRIMARY KEY (source, external_id)) WITHOUT ROWID');
    initStockBookings(ctx);
  },
  seed(ctx, kind) {
    ctx.db.exec('DELETE FROM order_external_refs');
    ctx.db.exec('DELETE FROM order_stock_bookings');
    if (kind === 'demo') seedOrders(ctx);
  },
  export: (ctx, req) => exportFromStore(ctx, req),
  create: (ctx, req) => write(ctx, req, 'create'),
  update: (ctx, req) => write(ctx, req, 'update'),
  delete(ctx, req) {
    const { id, raw } = phpDeleteId(req, 'orders_id');
    if (!ctx.store.has('orders', id)) fail(404, 'Not found', `No order with orders_id ${String(raw)}`);
    ctx.sql('DELETE FROM order_external_refs WHERE orders_id = ?').run(id);
    // Not shown in the spec; a deleted order gives back the stock it booked (docs/spec-gaps.md).
    restock(ctx, id);
    ctx.store.delete('orders', id);
    return deleteReply(req.resource, [id]);
  },
};
