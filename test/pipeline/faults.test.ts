import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { createOrderTables, insertOrders, mappingFile, ORDER_MAPPING, ORDER_SOURCE, orderNo, PRODUCT_MAPPING, pushFixture, setFaults, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

let f: PushFixture;
beforeEach(async () => {
  // Retry-After is capped at 50 ms so the throttled requests do not make the test slow.
  f = await pushFixture({ retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 50 } });
  createOrderTables(f.erp);
});
afterEach(async () => {
  await f.close();
});

describe('push under fault injection', () => {
  it('delivers every good record and dead-letters every poison record with its reason despite 503s, 429s, latency and dropped connections', async () => {
    upsertProducts(f.erp, 1, 400);
    f.erp.prepare("UPDATE products SET price = 'n/a' WHERE sku IN (?, ?)").run(sku(50), sku(333));
    insertOrders(f.erp, 1, 60, 400);
    f.erp.prepare('UPDATE orders SET customer_id = 4242 WHERE order_no IN (?, ?)').run(orderNo(7), orderNo(41));
    const products = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    const orders = await mappingFile(f.dir, 'orders', ORDER_MAPPING);
    const events = new SyncEvents();
    let throttled = 0;
    events.on('request-throttled', () => throttled++);
    // The client reports throttling through its observer; forward it like the daemon does.
    const { createShopClient } = await import('../../src/shop/index.js');
    const shop = createShopClient({ baseUrl: f.sandbox.url, auth: { kind: 'token', token: f.sandbox.token }, rateLimit: { concurrency: 6, intervalCap: 10_000, intervalMs: 1000 }, retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 50 }, onEvent: events.clientObserver() });
    await setFaults(f.sandbox, { error_rate: 0.1, error_status: 503, rate_limit_per_second: 12, latency_ms: 3, latency_jitter_ms: 6, reset_rate: 0.04, reset_after_write_rate: 0.06 });

    const p = await runPipeline({ name: 'products', direction: 'push', source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 20, options: { maxAttempts: 10 } }, { state: f.state, shop, mapping: products, source: sqliteSource(f.erpFile), events });
    const o = await runPipeline({ name: 'orders', direction: 'push', source: { connection: 'erp' }, mapping: 'orders.yaml', resource: 'orders', batchSize: 10, options: { maxAttempts: 10 } }, { state: f.state, shop, mapping: orders, source: sqliteSource(f.erpFile, ORDER_SOURCE), events });
    await setFaults(f.sandbox, { error_rate: 0, rate_limit_per_second: 0, latency_ms: 0, latency_jitter_ms: 0, reset_rate: 0, reset_after_write_rate: 0 });
    await shop.close();

    expect(p).toMatchObject({ status: 'partial', counts: { read: 400, deadLettered: 2 } });
    expect(p.counts.created + p.counts.updated).toBe(398);
    expect(o).toMatchObject({ status: 'partial', counts: { read: 60, deadLettered: 2 } });
    expect(throttled).toBeGreaterThan(0);

    const shopProducts = await shopRecords(f.shop, 'products');
    const models = shopProducts.map((r) => r.products_model).sort();
    expect(models).toEqual(Array.from({ length: 400 }, (_, i) => sku(i + 1)).filter((s) => s !== sku(50) && s !== sku(333)));
    const shopOrders = await shopRecords(f.shop, 'orders');
    const ids = shopOrders.map((r) => (r.external_reference as { external_id: string }).external_id).sort();
    expect(ids).toEqual(Array.from({ length: 60 }, (_, i) => orderNo(i + 1)).filter((n) => n !== orderNo(7) && n !== orderNo(41)));

    const letters = await f.state.deadLetters.list({ limit: 10 });
    expect(letters.map((l) => `${l.pipeline}:${l.erpKey}:${l.code}`).sort()).toEqual([`orders:${orderNo(41)}:CUSTOMER_NOT_FOUND`, `orders:${orderNo(7)}:CUSTOMER_NOT_FOUND`, `products:${sku(333)}:${letters.find((l) => l.erpKey === sku(333))!.code}`, `products:${sku(50)}:${letters.find((l) => l.erpKey === sku(50))!.code}`].sort());
    for (const l of letters) expect(l.reason.length).toBeGreaterThan(10);
    expect(letters.find((l) => l.erpKey === sku(50))!.reason).toContain('n/a');
    for (const r of shopProducts) expect((await f.state.refs.get('products', String(r.products_model)))?.shopId).toBe(r.products_id);
  });
});
