/**
 * Must-show of issue 43, on the sandbox over HTTP with SQLite state and an SQLite ERP: a stock push
 * never raises what the shop's own orders took. ERP stock 10; a customer orders 3 in the shop (the
 * sandbox books it: shop 7); before the ERP books the order, a price change keeps the shop at 7 and
 * a goods receipt to 15 sets 12, never 10 or 15; once the ERP booked it (12, booked flag), 12 stays.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { runPipeline } from '../../../src/pipeline/index.js';
import { lookupConnections } from '../../../src/pipeline/lookups/index.js';
import type { PipelineDefinitionInput } from '../../../src/pipeline/schema.js';
import { mappingFile, pushFixture, sqliteSource, type PushFixture } from '../support.js';

const SOURCE = {
  query: 'SELECT * FROM artikel',
  cursor: 'Geaendert',
  key: 'ARTNR',
  children: [{ field: 'Varianten', query: 'SELECT * FROM varianten WHERE ARTNR IN (:keys) ORDER BY VARNR', parentKey: 'ARTNR' }],
};
const BOOKED = 'SELECT orders_id FROM shopsync_in_orders WHERE imported_at IS NOT NULL AND orders_id IN (:orders)';

const mappingYaml = (stock: 'reserved' | 'available') => `
name: stock-test
direction: erp-to-shop
target: { resource: products, operation: update }
key: ARTNR
shop_key: products_model
stock: ${stock}
locale: point
fields:
  products_model: { from: ARTNR, required: true }
  products_price: { from: Preis, type: decimal, required: true }
  products_quantity: { from: Bestand, type: decimal, required: true }
  options:
    each: Varianten
    group_by: VARNR
    when_missing: omit
    empty: omit
    fields:
      model: { from: VARNR, required: true }
      quantity: { from: Bestand, type: decimal, required: true }
      values:
        each: $rows
        fields:
          option.de: { value: Größe }
          value.de: { from: Wert, required: true }
`;

let f: PushFixture;
let clock = 0;
beforeEach(async () => {
  f = await pushFixture();
  clock = 0;
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Preis TEXT NOT NULL, Bestand TEXT NOT NULL, Geaendert TEXT NOT NULL);
    CREATE TABLE varianten (VARNR TEXT PRIMARY KEY, ARTNR TEXT NOT NULL, Wert TEXT NOT NULL, Bestand TEXT NOT NULL);
    CREATE TABLE shopsync_in_orders (orders_id INTEGER PRIMARY KEY, imported_at TEXT)`);
});
afterEach(async () => {
  await f.close();
});

/** Each ERP change gets a later change time, as the ERP's own column would. */
function changed(): string {
  clock++;
  return `2026-01-01 00:00:${String(clock).padStart(2, '0')}`;
}

function erpArticle(artnr: string, price: string, stock: string): void {
  f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?) ON CONFLICT (ARTNR) DO UPDATE SET Preis = excluded.Preis, Bestand = excluded.Bestand, Geaendert = excluded.Geaendert').run(artnr, price, stock, changed());
}

function erpVariant(varnr: string, artnr: string, value: string, stock: string): void {
  f.erp.prepare('INSERT INTO varianten VALUES (?, ?, ?, ?) ON CONFLICT (VARNR) DO UPDATE SET Bestand = excluded.Bestand').run(varnr, artnr, value, stock);
  f.erp.prepare('UPDATE artikel SET Geaendert = ? WHERE ARTNR = ?').run(changed(), artnr);
}

/** The ERP's import of a shop order: its stock drops and the staging row says it is booked. */
function erpBooks(ordersId: number, artnr: string, stock: string, variant?: [string, string]): void {
  f.erp.prepare('INSERT INTO shopsync_in_orders VALUES (?, ?) ON CONFLICT (orders_id) DO UPDATE SET imported_at = excluded.imported_at').run(ordersId, '2026-01-01 01:00:00');
  if (variant) f.erp.prepare('UPDATE varianten SET Bestand = ? WHERE VARNR = ?').run(variant[1], variant[0]);
  f.erp.prepare('UPDATE artikel SET Bestand = ?, Geaendert = ? WHERE ARTNR = ?').run(stock, changed(), artnr);
}

async function run(stock: 'reserved' | 'available', reservations: PipelineDefinitionInput['reservations']) {
  const mapping = await mappingFile(f.dir, `stock-${stock}`, mappingYaml(stock));
  const def: PipelineDefinitionInput = { name: 'stock', direction: 'push', source: { connection: 'erp', ...SOURCE }, mapping: 'stock.yaml', resource: 'products', ...(reservations ? { reservations } : {}) };
  return runPipeline(def, {
    state: f.state,
    shop: f.shop,
    mapping,
    source: sqliteSource(f.erpFile, SOURCE),
    lookups: () => lookupConnections({ erp: { kind: 'sqlite', path: f.erpFile } }, { logger: silentLogger, baseDir: '/' }),
  });
}

/** A stock push; `null` for a pipeline without `reservations:` (undefined takes the default). */
async function push(stock: 'reserved' | 'available' = 'reserved', reservations: PipelineDefinitionInput['reservations'] | null = { booked: { query: BOOKED } }) {
  const mapping = await mappingFile(f.dir, `stock-${stock}`, mappingYaml(stock));
  const def: PipelineDefinitionInput = { name: 'stock', direction: 'push', source: { connection: 'erp', ...SOURCE }, mapping: 'stock.yaml', resource: 'products', ...(reservations ? { reservations } : {}) };
  const summary = await runPipeline(def, {
    state: f.state,
    shop: f.shop,
    mapping,
    source: sqliteSource(f.erpFile, SOURCE),
    lookups: () => lookupConnections({ erp: { kind: 'sqlite', path: f.erpFile } }, { logger: silentLogger, baseDir: '/' }),
  });
  expect(summary.error).toBeUndefined();
  expect(summary.counts.deadLettered).toBe(0);
  return summary;
}

const ORDERS_PULL = `
name: orders-in
direction: shop-to-erp
source: { resource: orders }
target: { erp: shopsync_in_orders }
key: orders_id
fields:
  orders_id: { from: orders_id, type: integer }
`;

/** The orders pull: the shop's orders into the ERP's staging table (imported_at stays empty until the ERP's import). */
async function pullOrders(): Promise<void> {
  const mapping = await mappingFile(f.dir, 'orders-in', ORDERS_PULL);
  const sink = () => createSink({ kind: 'sqlite', path: f.erpFile }, { table: 'shopsync_in_orders', key: 'orders_id' }, { logger: silentLogger, baseDir: '/' });
  const summary = await runPipeline({ name: 'orders-in', direction: 'pull', sink: { connection: 'erp' }, mapping: 'orders-in.yaml', resource: 'orders' }, { state: f.state, shop: f.shop, mapping, sink });
  expect(summary.error).toBeUndefined();
}

async function product(model: string): Promise<Record<string, unknown>> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return p;
  throw new Error(`no product ${model}`);
}

const shopStock = async (model: string) => Number((await product(model)).products_quantity);

/** The SKU's quantity in the shop's options{} export. */
async function skuStock(model: string, sku: string): Promise<number> {
  const p = await product(model);
  for (const option of Object.values(p.options as Record<string, { values: { model: string; quantity: unknown }[] }>)) {
    const v = option.values.find((x) => x.model === sku);
    if (v) return Number(v.quantity);
  }
  throw new Error(`no SKU ${sku}`);
}

/** A customer orders in the shop: the sandbox books the stock itself. */
async function customerOrders(model: string, quantity: number, attributes?: { option_id: number; value_id: number }[]): Promise<number> {
  const p = await product(model);
  const created = await f.shop.create('orders', [
    {
      customers_id: 0,
      tax_flag: 0,
      external_reference: { source: 'web', external_id: `W-${model}-${quantity}-${Date.now()}` },
      billing: { firstname: 'Kim', lastname: 'Kunde', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: [{ products_id: p.products_id as number, quantity, ...(attributes ? { attributes } : {}) }],
    },
  ]);
  expect(created.outcomes[0]!.error).toBeUndefined();
  const id = Number(created.outcomes[0]!.data?.orders_id);
  expect(id).toBeGreaterThan(0);
  return id;
}

async function createShopProduct(model: string): Promise<void> {
  const created = await f.shop.create('products', [{ products_model: model, products_price: '10.00', languages: { de: { products_name: model } } }]);
  expect(created.outcomes[0]!.error).toBeUndefined();
}

describe('stock push with reservations (booked query on the ERP)', () => {
  it('keeps the shop at ERP − unbooked through a price change and a goods receipt, and at the ERP figure once the ERP booked the order', async () => {
    await createShopProduct('ART-1');
    erpArticle('ART-1', '10.00', '10');
    await push();
    expect(await shopStock('ART-1')).toBe(10);

    const order = await customerOrders('ART-1', 3);
    expect(await shopStock('ART-1')).toBe(7);

    erpArticle('ART-1', '11.00', '10');
    await push();
    expect(await shopStock('ART-1')).toBe(7);
    expect(Number((await product('ART-1')).products_price)).toBe(11);

    erpArticle('ART-1', '11.00', '15');
    await push();
    expect(await shopStock('ART-1')).toBe(12);

    erpBooks(order, 'ART-1', '12');
    await push();
    expect(await shopStock('ART-1')).toBe(12);
    expect(await f.state.reservations.unbooked(f.state.shop)).toEqual([]);
  });

  it('counts an order placed after the orders pull and before the stock push, which no pull has carried to the ERP', async () => {
    await createShopProduct('ART-2');
    erpArticle('ART-2', '10.00', '10');
    await push();
    const earlier = await customerOrders('ART-2', 1);
    await pullOrders();
    expect(f.erp.prepare('SELECT orders_id, imported_at FROM shopsync_in_orders').all()).toEqual([{ orders_id: earlier, imported_at: null }]);
    // The order comes after the orders pull: no pull has carried it to the ERP when the stock push runs; the push reads the shop's orders itself.
    const order = await customerOrders('ART-2', 2);
    expect(await shopStock('ART-2')).toBe(7);
    erpArticle('ART-2', '12.50', '10');
    await push();
    expect(await shopStock('ART-2')).toBe(7);
    // The orders pull recorded when it delivered the earlier order (what booked: { changedAfter: true } compares with); the later one no pull has seen.
    const lines = await f.state.reservations.unbooked(f.state.shop, ['ART-2']);
    expect(lines.map((l) => [l.ordersId, l.deliveredAt !== undefined])).toEqual([[earlier, true], [order, false]]);
    erpArticle('ART-2', '12.50', '15');
    await push();
    expect(await shopStock('ART-2')).toBe(12);
    erpBooks(earlier, 'ART-2', '14');
    erpBooks(order, 'ART-2', '12');
    await push();
    expect(await shopStock('ART-2')).toBe(12);
    expect(await f.state.reservations.unbooked(f.state.shop)).toEqual([]);
  });

  it('reserves per SKU: the variant ordered keeps ERP − unbooked in options[] and the article total too', async () => {
    await createShopProduct('CAP-1');
    erpArticle('CAP-1', '9.90', '10');
    erpVariant('CAP-1-M', 'CAP-1', 'M', '10');
    erpVariant('CAP-1-L', 'CAP-1', 'L', '4');
    await push();
    expect(await skuStock('CAP-1', 'CAP-1-M')).toBe(10);
    const p = await product('CAP-1');
    const option = Object.values(p.options as Record<string, { options_id: number; values: { model: string; options_values_id: number }[] }>)[0]!;
    const medium = option.values.find((v) => v.model === 'CAP-1-M')!;
    const order = await customerOrders('CAP-1', 3, [{ option_id: option.options_id, value_id: medium.options_values_id }]);
    expect(await skuStock('CAP-1', 'CAP-1-M')).toBe(7);
    expect(await shopStock('CAP-1')).toBe(7);

    erpArticle('CAP-1', '10.90', '10');
    await push();
    expect(await skuStock('CAP-1', 'CAP-1-M')).toBe(7);
    expect(await skuStock('CAP-1', 'CAP-1-L')).toBe(4);
    expect(await shopStock('CAP-1')).toBe(7);

    erpVariant('CAP-1-M', 'CAP-1', 'M', '15');
    erpArticle('CAP-1', '10.90', '15');
    await push();
    expect(await skuStock('CAP-1', 'CAP-1-M')).toBe(12);
    expect(await shopStock('CAP-1')).toBe(12);

    erpBooks(order, 'CAP-1', '12', ['CAP-1-M', '12']);
    await push();
    expect(await skuStock('CAP-1', 'CAP-1-M')).toBe(12);
    expect(await shopStock('CAP-1')).toBe(12);
  });
});

describe('stock push with reservations (booked when the ERP stock record changed after the order reached it)', () => {
  it('subtracts an order until its article changes in the ERP after the orders pull delivered it', async () => {
    const changedAfter = { booked: { changedAfter: true as const } };
    await createShopProduct('ART-3');
    erpArticle('ART-3', '10.00', '10');
    await push('reserved', changedAfter);
    const order = await customerOrders('ART-3', 3);
    // Not yet delivered to the ERP: whatever changes there, the order is unbooked.
    erpArticle('ART-3', '11.00', '15');
    await push('reserved', changedAfter);
    expect(await shopStock('ART-3')).toBe(12);
    // The orders pull delivers it (what pullDelivery records); the ERP's next stock change is its booking.
    await f.state.reservations.delivered(f.state.shop, [order], new Date(Date.now() - 60_000).toISOString());
    f.erp.prepare('UPDATE artikel SET Bestand = ?, Geaendert = ? WHERE ARTNR = ?').run('12', new Date().toISOString(), 'ART-3');
    await push('reserved', changedAfter);
    expect(await shopStock('ART-3')).toBe(12);
    expect(await f.state.reservations.unbooked(f.state.shop)).toEqual([]);
  });
});

describe('a stock choice that cannot work', () => {
  it('fails the run before anything is sent when the mapping says stock: reserved and the pipeline has no reservations:', async () => {
    await createShopProduct('ART-5');
    erpArticle('ART-5', '10.00', '10');
    const summary = await run('reserved', undefined);
    expect(summary.status).toBe('failed');
    expect(summary.error?.code).toBe('STOCK_RESERVATIONS_MISSING');
    expect(summary.error?.message).toContain('reservations:');
    expect(summary.counts.updated).toBe(0);
  });

  it('fails the run before anything is sent when the mapping says stock: available and the pipeline has reservations: (nothing would be subtracted that the dashboard counts)', async () => {
    await createShopProduct('ART-7');
    erpArticle('ART-7', '10.00', '10');
    const summary = await run('available', { booked: { query: BOOKED } });
    expect(summary.status).toBe('failed');
    expect(summary.error?.code).toBe('STOCK_RESERVATIONS_UNUSED');
    expect(summary.error?.message).toContain('stock: reserved');
    expect(summary.counts.updated).toBe(0);
    expect(await shopStock('ART-7')).toBe(0);
  });

  it('fails the run with RESERVATIONS_BOOKED_QUERY_FAILED when the booked query does not run in the ERP', async () => {
    await createShopProduct('ART-6');
    erpArticle('ART-6', '10.00', '10');
    await customerOrders('ART-6', 1);
    const summary = await run('reserved', { booked: { query: 'SELECT orders_id FROM no_such_table WHERE orders_id IN (:orders)' } });
    expect(summary.status).toBe('failed');
    expect(summary.error?.code).toBe('RESERVATIONS_BOOKED_QUERY_FAILED');
    // Nothing was pushed: the shop keeps its own figure (created with 0, the order took 1), never the ERP's 10.
    expect(await shopStock('ART-6')).toBe(-1);
  });
});

describe('stock push without reservations (stock: available)', () => {
  it('does not re-send an unchanged stock figure with a price change, so the shop keeps its own booking', async () => {
    await createShopProduct('ART-4');
    erpArticle('ART-4', '10.00', '10');
    await push('available', null);
    await customerOrders('ART-4', 3);
    expect(await shopStock('ART-4')).toBe(7);
    erpArticle('ART-4', '11.00', '10');
    const summary = await push('available', null);
    expect(summary.counts.updated).toBe(1);
    expect(await shopStock('ART-4')).toBe(7);
    // What the run page shows as sent: the price, no quantity.
    const [priceEvent] = await f.state.events.list({ runId: summary.runId, outcome: 'updated' });
    expect(priceEvent!.payload).not.toHaveProperty('products_quantity');
    expect(Number((await product('ART-4')).products_price)).toBe(11);
    // A stock figure that changed in the ERP goes out.
    erpArticle('ART-4', '11.00', '9');
    const restocked = await push('available', null);
    expect(await shopStock('ART-4')).toBe(9);
    const [stockEvent] = await f.state.events.list({ runId: restocked.runId, outcome: 'updated' });
    expect(Number((stockEvent!.payload as Record<string, unknown>).products_quantity)).toBe(9);
  });
});
