/**
 * Reconcile knows reservations (issue 43, item 4), against the sandbox over HTTP: with
 * `stock: reserved` the shop's stock is compared with ERP − unbooked, so a shop at 7 while the ERP
 * holds 10 and a shop order of 3 waits to be booked is in step; a shop above that figure drifts and
 * `--repair` brings it down to ERP − unbooked, never up to the ERP's on-hand figure. With
 * `stock: available` the ERP figure is compared as it is.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline, type PipelineDefinitionInput } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, sqliteSource, tempDir } from '../pipeline/support.js';

interface Fixture {
  dir: string;
  erpFile: string;
  erp: Database.Database;
  sandbox: SandboxHandle;
  shop: ShopClient;
  state: StateStore;
  reports: ReportStore;
}

let f: Fixture;
beforeEach(async () => {
  const dir = tempDir('shopsync-reconcile-res-');
  const erpFile = join(dir, 'erp.sqlite');
  const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  f = { dir, erpFile, erp: createErp(erpFile), sandbox, shop: clientFor(sandbox), state: await openState(join(dir, 'state.db')), reports: new ReportStore(join(dir, 'reconcile')) };
});
afterEach(async () => {
  await f.shop.close();
  await f.state.close();
  await f.sandbox.close();
  f.erp.close();
  rmSync(f.dir, { recursive: true, force: true });
});

const def: PipelineDefinitionInput = { name: 'stock', direction: 'push', source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products', reservations: { booked: { changedAfter: true } } };

/** The pipeline's parts, its mapping saying `stock: reserved` or `stock: available`. */
async function deps(stock: 'reserved' | 'available') {
  const mapping = await mappingFile(f.dir, `stock-${stock}`, `${PRODUCT_MAPPING}stock: ${stock}\n`);
  expect(mapping.stock).toBe(stock);
  return { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) };
}

function erpStock(model: string, qty: number): void {
  f.erp.prepare("INSERT OR REPLACE INTO products (sku, name, price, qty, updated_at) VALUES (?, 'Tisch', '10.00', ?, '2026-01-01 00:00:00')").run(model, qty);
}

async function shopQuantity(model: string): Promise<number | undefined> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return Number(p.products_quantity);
  return undefined;
}

/** A customer orders `quantity` of `model` in the shop, which books it; shopsync learns of it only by reading the shop's orders. */
async function shopOrder(model: string, quantity: number): Promise<number> {
  let productId: number | undefined;
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) productId = p.products_id as number;
  const created = await f.shop.create('orders', [{ customers_id: 0, tax_flag: 0, billing: { firstname: 'Erika', lastname: 'Muster', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' }, products: [{ products_id: productId, products_model: model, products_name: 'Tisch', quantity, products_price: '10.00', products_tax: 19 }] }]);
  const outcome = created.outcomes[0];
  expect(outcome?.ok).toBe(true);
  return Number(outcome?.data?.orders_id);
}

describe('reconcile with reservations', () => {
  it('finds no drift in a shop figure that is the ERP figure less an unbooked shop order, and says how many units were reserved', async () => {
    erpStock('ART-1', 10);
    expect((await runPipeline(def, await deps('reserved'))).counts.created).toBe(1);
    const order = await shopOrder('ART-1', 3);
    expect(await shopQuantity('ART-1')).toBe(7);

    const report = await reconcilePipeline(def, await deps('reserved'), { reports: f.reports });
    expect(report.drift).toBe(0);
    expect(report.counts).toMatchObject({ matched: 1, different: 0 });
    expect(report.reservations).toEqual({ stock: 'reserved', units: 3, records: 1, orders: 1, orderIds: [order] });
  });

  it('calls a shop figure above ERP − unbooked drift, and repairs it down to ERP − unbooked, never up to the ERP figure', async () => {
    erpStock('ART-1', 10);
    await runPipeline(def, await deps('reserved'));
    const order = await shopOrder('ART-1', 3);
    // Someone raises the shop's figure by hand: the shop now offers goods it has sold.
    const [product] = await f.shop.exportPages('products')[Symbol.asyncIterator]().next().then((r) => (r.value as { records: Record<string, unknown>[] }).records);
    expect((await f.shop.update('products', [{ products_id: product!.products_id, products_quantity: 10 }])).outcomes[0]?.ok).toBe(true);

    const report = await reconcilePipeline(def, await deps('reserved'), { reports: f.reports, repair: true });
    expect(report.different).toEqual([expect.objectContaining({ erpKey: 'ART-1', fields: [{ field: 'products_quantity', shop: 10, erp: '7', onHand: 10, reserved: 3, orders: [order] }] })]);
    expect(report.repair).toMatchObject({ status: 'succeeded', updated: 1 });
    expect(await shopQuantity('ART-1')).toBe(7);
    expect((await reconcilePipeline(def, await deps('reserved'), { reports: f.reports })).drift).toBe(0);
  });

  it('repairs a figure typed into the shop although the last stock sent was already ERP − unbooked (stock travels on its own, but not past a repair)', async () => {
    erpStock('ART-1', 10);
    await runPipeline(def, await deps('reserved'));
    await shopOrder('ART-1', 3);
    // A price change in the ERP: the push sends 7 (10 less the unbooked 3), and remembers 7 as sent.
    f.erp.prepare("UPDATE products SET price = '11.00', updated_at = '2026-01-02 00:00:00' WHERE sku = 'ART-1'").run();
    expect((await runPipeline(def, await deps('reserved'))).counts.updated).toBe(1);
    expect(await shopQuantity('ART-1')).toBe(7);
    const [product] = await f.shop.exportPages('products')[Symbol.asyncIterator]().next().then((r) => (r.value as { records: Record<string, unknown>[] }).records);
    await f.shop.update('products', [{ products_id: product!.products_id, products_quantity: 10 }]);

    const report = await reconcilePipeline(def, await deps('reserved'), { reports: f.reports, repair: true });
    expect(report.counts.different).toBe(1);
    expect(report.repair).toMatchObject({ status: 'succeeded', updated: 1 });
    expect(await shopQuantity('ART-1')).toBe(7);
  });

  it('counts an order placed after the last stock push: reconcile reads the shop\'s orders first', async () => {
    erpStock('ART-1', 10);
    await runPipeline(def, await deps('reserved'));
    await shopOrder('ART-1', 3);
    await shopOrder('ART-1', 1);
    const report = await reconcilePipeline(def, await deps('reserved'), { reports: f.reports });
    expect(await shopQuantity('ART-1')).toBe(6);
    expect(report.drift).toBe(0);
    expect(report.reservations).toMatchObject({ stock: 'reserved', units: 4, records: 1, orders: 2 });
  });

  it('repairs a shop figure below ERP − unbooked up to it, and no further', async () => {
    erpStock('ART-1', 10);
    await runPipeline(def, await deps('reserved'));
    await shopOrder('ART-1', 3);
    const [product] = await f.shop.exportPages('products')[Symbol.asyncIterator]().next().then((r) => (r.value as { records: Record<string, unknown>[] }).records);
    await f.shop.update('products', [{ products_id: product!.products_id, products_quantity: 2 }]);

    const report = await reconcilePipeline(def, await deps('reserved'), { reports: f.reports, repair: true });
    expect(report.different[0]?.fields).toEqual([{ field: 'products_quantity', shop: 2, erp: '7', onHand: 10, reserved: 3, orders: [expect.any(Number)] }]);
    expect(await shopQuantity('ART-1')).toBe(7);
  });

  it('compares the ERP figure as it is when the mapping says stock: available', async () => {
    erpStock('ART-1', 10);
    await runPipeline({ ...def, reservations: undefined }, await deps('available'));
    await shopOrder('ART-1', 3);
    const report = await reconcilePipeline({ ...def, reservations: undefined }, await deps('available'), { reports: f.reports });
    expect(report.different[0]?.fields).toEqual([{ field: 'products_quantity', shop: 7, erp: '10' }]);
    expect(report.reservations).toMatchObject({ stock: 'available', units: 0 });
  });

  it('says so when the mapping writes stock without choosing reserved or available, and compares the ERP figure as it is', async () => {
    erpStock('ART-1', 10);
    const mapping = await mappingFile(f.dir, 'stock-unchosen', PRODUCT_MAPPING);
    const plain = { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) };
    const unchosen = { ...def, reservations: undefined };
    await runPipeline(unchosen, plain);
    await shopOrder('ART-1', 3);
    const report = await reconcilePipeline(unchosen, plain, { reports: f.reports });
    expect(report.reservations).toEqual({ stock: 'missing', units: 0, records: 0, orders: 0, orderIds: [] });
    expect(report.different[0]?.fields).toEqual([{ field: 'products_quantity', shop: 7, erp: '10' }]);
  });
});
