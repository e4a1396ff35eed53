import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSources, demoTables } from '../../src/demo/index.js';
import { loadMapping, type CompiledMapping, type MappingContext } from '../../src/mapping/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient, type ShopClient } from '../../src/shop/index.js';

const tables = new Map(demoTables().map((t) => [t.name, t.rows]));

/** The records a SQL source yields for a shipped mapping: table rows with their child rows attached. */
function sourceRecords(mapping: string): Record<string, unknown>[] {
  const source = demoSources().find((s) => s.mapping === mapping);
  if (!source) throw new Error(`no demo source for ${mapping}`);
  const from = /FROM (\w+)/.exec(source.query)![1];
  return tables.get(from)!.map((row) => {
    const record: Record<string, unknown> = { ...row };
    for (const child of source.children) {
      const childTable = /FROM (\w+)/.exec(child.query)![1];
      let rows = tables.get(childTable)!.filter((r) => r[child.parentKey] === row[child.parentKey]);
      // A child query joining a second demo table (variants with their attributes): one row per pair, as the database gives them.
      const join = /FROM \w+ \w+ JOIN (\w+) \w+ ON \w+\.(\w+) = \w+\.(\w+)/.exec(child.query);
      if (join && tables.has(join[1])) rows = rows.flatMap((r) => tables.get(join[1])!.filter((j) => j[join[2]] === r[join[3]]).map((j) => ({ ...r, ...j })));
      record[child.field] = rows;
    }
    return record;
  });
}

const load = (name: string) => loadMapping(path.resolve('mappings', `${name}.yaml`));

describe('shipped mappings on the demo ERP data', () => {
  const everyId: MappingContext = { lookupReference: (_r, key) => 100 + key.length };

  it('maps every demo record of every erp-to-shop mapping, refusing only the article without supplier number', async () => {
    const refused: string[] = [];
    let mapped = 0;
    for (const source of demoSources()) {
      const m = await load(source.mapping);
      for (const record of sourceRecords(source.mapping)) {
        const r = m.applySync ? m.applySync(record, everyId) : await m.apply(record, everyId);
        if (r.ok) mapped++;
        else refused.push(`${source.mapping} ${String(record[m.key])} ${r.errors.map((e) => e.code).join(',')}`);
      }
    }
    expect(refused).toEqual(['products DEMO-1012 GUARD_SUPPLIER_WITHOUT_NUMBER']);
    expect(mapped).toBeGreaterThan(200);
  });

  it('turns price tiers into group prices with quantity steps and stock rows into storages', async () => {
    const products = await load('products');
    const record = sourceRecords('products').find((r) => r.ARTNR === 'DEMO-1001')!;
    const r = products.applySync!(record, everyId);
    expect(r.ok && r.payload.groups).toEqual([
      { customers_group_id: 3, customers_group_price: '76.42', products_price1: '71.92', products_price1_qty: '10.000', products_price2: '67.43', products_price2_qty: '50.000' },
      { customers_group_id: 4, customers_group_price: '75.52' },
    ]);
    const stock = await load('stock');
    const s = stock.applySync!(sourceRecords('stock')[0], everyId);
    expect(s.ok && s.payload.storages).toEqual([
      { storages_id: 1, products_quantity: '10.000', products_safe_quantity: '2.000', products_storage_text: 'R01-F01' },
      { storages_id: 3, products_quantity: '5.000', products_safe_quantity: '1.000', products_storage_text: 'Süd A-1' },
    ]);
  });
});

describe('shipped mappings against the sandbox', () => {
  let sandbox: SandboxHandle;
  let client: ShopClient;
  const refs = new Map<string, number>();
  const ctx: MappingContext = { lookupReference: (resource, key) => refs.get(`${resource}:${key}`) };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'demo', dbPath: ':memory:' });
    client = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token } });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  /** Map every record, send the payloads, remember the shop ids as references (what a pipeline does). */
  async function push(m: CompiledMapping, records: Record<string, unknown>[], send: 'create' | 'update', idField: string): Promise<number> {
    let sent = 0;
    for (const record of records) {
      const r = m.applySync ? m.applySync(record, ctx) : await m.apply(record, ctx);
      expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([]);
      if (!r.ok) continue;
      const write = await client[send](m.resource!, [r.payload]);
      const outcome = write.outcomes[0];
      expect(outcome.error?.message ?? null).toBeNull();
      const id = outcome.data?.[idField];
      if (typeof id === 'number') refs.set(`${m.resource}:${String(record[m.key])}`, id);
      sent++;
    }
    return sent;
  }

  it('creates categories parents first, manufacturers, customers and new articles, then orders with an external reference', async () => {
    expect(await push(await load('categories'), sourceRecords('categories'), 'create', 'categories_id')).toBe(9);
    expect(await push(await load('manufacturers'), sourceRecords('manufacturers'), 'create', 'manufacturers_id')).toBe(6);
    const newArticles = sourceRecords('products').filter((r) => Number(String(r.ARTNR).slice(5)) > 1050);
    expect(await push(await load('products'), newArticles, 'create', 'products_id')).toBe(newArticles.length);
    const created = await client.exportOne('products', refs.get('products:DEMO-1051')!);
    expect(created).toMatchObject({ products_model: 'DEMO-1051', manufacturers_id: refs.get('manufacturers:H-004') });
    expect(Number(created!.products_price)).toBe(129);

    const customers = sourceRecords('customers').slice(0, 10);
    expect(await push(await load('customers'), customers, 'create', 'customers_id')).toBe(10);
    // Each order's customer must be known; take those of the first ten customers.
    const orders = sourceRecords('orders-from-erp').filter((o) => refs.has(`customers:${String(o.KDNR)}`));
    expect(orders.length).toBeGreaterThan(0);
    for (const o of orders) {
      const m = await load('orders-from-erp');
      const r = m.applySync!(o, ctx);
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      const write = await client.create('orders', [r.payload]);
      expect(write.outcomes[0].error?.message ?? null).toBeNull();
    }
    const first = orders[0];
    const [shopOrder] = await (async () => {
      const all: Record<string, unknown>[] = [];
      for await (const rec of client.exportAll('orders', { filters: { customers_id: refs.get(`customers:${String(first.KDNR)}`)! } })) all.push(rec);
      return all;
    })();
    expect(shopOrder).toMatchObject({ tax_flag: 0, external_reference: { external_id: first.Externe_Nr } });
  });

  it('updates stock by article number, contracts by reference and the status and tracking of an order', async () => {
    const stock = await load('stock');
    const first = sourceRecords('stock').slice(0, 3);
    for (const record of first) {
      const r = stock.applySync!(record, ctx);
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      const write = await client.update('products', [r.payload]);
      expect(write.outcomes[0].error?.message ?? null).toBeNull();
    }
    const all: Record<string, unknown>[] = [];
    for await (const p of client.exportAll('products')) if (p.products_model === 'DEMO-1001') all.push(p);
    const storages = (all[0].storages as Record<string, unknown>[]).filter((s) => s.storages_id === 1 || s.storages_id === 3);
    expect(storages.map((s) => [s.storages_id, Number(s.products_quantity), s.products_storage_text])).toEqual([
      [1, 10, 'R01-F01'],
      [3, 5, 'Süd A-1'],
    ]);
    expect(Number(all[0].products_quantity)).toBe(5);

    // Contracts need the customer and the article as references: the article DEMO-1001 exists in the sandbox as products_id 1.
    refs.set('products:DEMO-1001', 1);
    const contract = sourceRecords('contracts')[0];
    expect(refs.has(`customers:${String(contract.KDNR)}`)).toBe(true);
    const c = (await load('contracts')).applySync!(contract, ctx);
    expect(c.ok).toBe(true);
    if (c.ok) expect((await client.create('contracts', [c.payload])).outcomes[0].error?.message ?? null).toBeNull();

    const orders: Record<string, unknown>[] = [];
    for await (const o of client.exportAll('orders')) orders.push(o);
    const orderId = Math.max(...orders.map((o) => Number(o.orders_id)));
    const status = (await load('order-status')).applySync!({ ...sourceRecords('order-status')[1], ShopBestellNr: String(orderId) }, ctx);
    expect(status.ok).toBe(true);
    if (!status.ok) return;
    expect((await client.update('orders', [status.payload])).outcomes[0].error?.message ?? null).toBeNull();
    const updated = await client.exportOne('orders', orderId);
    expect(updated).toMatchObject({ orders_status: 3 });
    expect(updated!.tracking).toEqual(expect.arrayContaining([expect.objectContaining({ code: sourceRecords('order-status')[1].Sendungsnummer })]));
  });

  it('maps the sandbox orders, newsletter subscribers and tickets into ERP rows', async () => {
    for (const [name, resource] of [['orders-to-erp', 'orders'], ['newsletter-to-erp', 'newsletter_subscribers'], ['tickets-to-erp', 'tickets']] as const) {
      const m = await load(name);
      let rows = 0;
      for await (const record of client.exportAll(resource)) {
        const r = m.applySync ? m.applySync(record, ctx) : await m.apply(record, ctx);
        expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([]);
        rows++;
        if (name === 'orders-to-erp' && r.ok) {
          const lines = r.payload.Positionen as Record<string, unknown>[];
          expect(lines.length).toBeGreaterThan(0);
          expect(lines.every((l) => l.Shop_BestellNr === record.orders_id && typeof l.Pos === 'number')).toBe(true);
          expect(String(r.payload.Bestelldatum)).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
        }
      }
      expect(rows, `${resource} exported from the sandbox`).toBeGreaterThan(0);
    }
  });
});
