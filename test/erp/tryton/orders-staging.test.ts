/**
 * Orders into a real Tryton 6.0 the staging way (issue 41 items 3 and 5): `shopsync init --erp
 * tryton --orders-pull` creates shopsync's staging schema `shopsync_in` in Tryton's database, the
 * catalog reaches the sandbox shop, shop orders are placed there for those products, `shopsync sync
 * orders-to-erp` stages them, and the shipped proteus script (examples/tryton/import_orders.py)
 * makes them Tryton sales. Tryton's sales are counted before and after through proteus
 * (tryton_orders.py): exactly one per order, party found by e-mail (created once), products by
 * code, the shop's quantities and prices; again after a second run, after an import that died
 * before it marked the order, and after the shop changed the order and it was pulled again.
 * Runs in `npm run test:erp` only (vitest.config.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureBuilt, runCli, shopProducts, tempDir } from '../../cli/support.js';
import { shopEnv, useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { requireTryton, trytonDatabase, type TrytonDatabase } from '../../support/tryton.js';

const run = promisify(execFile);
const IMPORT_SCRIPT = resolve(import.meta.dirname, '../../../examples/tryton/import_orders.py');
const ORDERS_SCRIPT = resolve(import.meta.dirname, 'tryton_orders.py');

const tryton = await requireTryton();
const pgService = await requireService('postgres');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** A Tryton sale as proteus reads it (tryton_orders.py). */
interface TrytonSale {
  id: number;
  reference: string | null;
  state: string;
  party: { id: number; name: string; emails: string[] };
  invoice_address: { city: string | null } | null;
  shipment_address: { city: string | null } | null;
  lines: { product: string | null; quantity: number; unit_price: string }[];
}
interface TrytonSales {
  sales: TrytonSale[];
  parties_by_email: Record<string, number>;
}

/** What a run of the import script said (its last line). */
interface ImportSummary {
  claimed: number;
  created: number;
  existing: number;
  failed: number;
  errors: Record<string, string>;
  changed_after_import: number[];
}

describe.skipIf(!tryton.available || !pgService.available)('Tryton 6.0, orders the staging way: init --orders-pull, sync orders-to-erp, the proteus import', () => {
  let db: TrytonDatabase | undefined;
  let staging: pg.Client | undefined;
  const dir = tempDir('shopsync-tryton-orders-');
  const email = 'erika.shop@example.com';
  const orders: number[] = [];

  const python = async (args: readonly string[]) => {
    try {
      const r = await run('/usr/bin/python3', args, { maxBuffer: 64 * 1024 * 1024 });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as Error & { code?: number; stdout?: string; stderr?: string };
      if (typeof e.code !== 'number') throw err;
      return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;

  /** Tryton's sales through proteus (after making a product, with `product`). */
  async function trytonSales(...action: string[]): Promise<TrytonSales> {
    const r = await python([ORDERS_SCRIPT, db!.conf, db!.name, ...(action.length > 0 ? action : ['sales'])]);
    expect(r.code, r.stderr).toBe(0);
    return lastJson<TrytonSales>(r.stdout);
  }

  /** The shipped import script against the test's Tryton database, whose staging schema is shopsync_in. */
  async function importOrders(...flags: string[]): Promise<ImportSummary & { code: number; all: string }> {
    const r = await python([IMPORT_SCRIPT, '--database', db!.name, '--config', db!.conf, '--staging', `dbname=${db!.name} host=${pgService.host} port=${pgService.port} user=${pgService.user}`, ...flags]);
    console.log(`[tryton] import_orders.py ${flags.join(' ')}: ${r.stdout.trim().split('\n').at(-1)}`);
    return { ...lastJson<ImportSummary>(r.stdout), code: r.code, all: r.stdout + r.stderr };
  }

  async function sync(pipeline: string) {
    const r = await runCli(['sync', pipeline, '--json'], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { status: string; counts: Record<string, number> };
  }

  async function stagedOrders(): Promise<Record<string, unknown>[]> {
    return (await staging!.query('SELECT orders_id, orders_status, shopsync_pipeline, status, imported_at, erp_reference, import_error, shopsync_delivered_at FROM shopsync_in.orders ORDER BY orders_id')).rows as Record<string, unknown>[];
  }

  /** Place an order in the sandbox shop for shop products (by products_id); returns its id. */
  async function placeOrder(items: { products_id?: number; products_model?: string; products_name?: string; quantity: number; products_price: string }[], delivery: Record<string, string>): Promise<number> {
    const billing = { firstname: 'Erika', lastname: 'Shop', email_address: email, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' };
    const res = await fetch(`${sandbox.url}/import/json/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: [{ customers_id: 0, tax_flag: 0, billing, delivery: { ...billing, ...delivery }, products: items }] }),
    });
    const body = (await res.json()) as { data: { orders_id: number }[] };
    if (!res.ok) throw new Error(`order refused: ${res.status} ${JSON.stringify(body)}`);
    return (body.data[0] as { orders_id: number }).orders_id;
  }

  beforeAll(async () => {
    db = await trytonDatabase(tryton);
    await db.data('setup');
    staging = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: db.name });
    await staging.connect();
  }, 40 * 60_000);
  afterAll(async () => {
    await staging?.end();
    await db?.close();
  });

  it("init --erp tryton --orders-pull creates the staging schema shopsync_in in Tryton's database and writes the orders pull beside the catalog push; the catalog reaches the shop", { timeout: 240_000 }, async () => {
    const init = await runCli(['init', '--yes', '--erp', 'tryton', '--orders-pull', '--db-url', `postgres://${pgService.user}@${pgService.host}:${pgService.port}/${db!.name}`], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('created the staging tables shopsync_in.orders, shopsync_in.order_lines, shopsync_in.order_addresses in schema shopsync_in');
    expect(init.stdout).toContain('mappings check: 2 mapping file(s) valid');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'));
    expect(config.pipelines.map((p: { name: string }) => p.name)).toEqual(['products', 'orders-to-erp']);
    expect(config.pipelines[1].sink).toMatchObject({ connection: 'erp', table: 'shopsync_in.orders', key: 'orders_id' });
    const products = await sync('products');
    expect(products.status).toBe('succeeded');
    const shop = await shopProducts(sandbox);
    expect(shop.get('K-100')).toBeDefined();
    expect(shop.get('TS-M')).toBeDefined();
  });

  it("two shop orders are staged and the proteus import makes exactly one Tryton sale of each: the party found by e-mail (created once), products by code, the shop's quantities and prices", { timeout: 240_000 }, async () => {
    const shop = await shopProducts(sandbox);
    const id = (code: string) => Number(shop.get(code)?.products_id);
    orders.push(await placeOrder([{ products_id: id('K-100'), quantity: 2, products_price: '22.50' }, { products_id: id('TS-M'), quantity: 1, products_price: '15.00' }], { firstname: 'Max', street_address: 'Hof 2', postcode: '14467', city: 'Potsdam' }));
    orders.push(await placeOrder([{ products_id: id('MUG-1'), quantity: 3, products_price: '7.50' }], {}));
    const pulled = await sync('orders-to-erp');
    expect(pulled).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect((await stagedOrders()).map((o) => [o.orders_id, o.shopsync_pipeline, o.status])).toEqual(orders.map((o) => [String(o), 'orders-to-erp', null]));

    const before = await trytonSales();
    expect(before.sales).toHaveLength(1); // the setup's shipped sale
    const first = await importOrders();
    expect(first, first.all).toMatchObject({ code: 0, claimed: 2, created: 2, existing: 0, failed: 0 });

    const after = await trytonSales();
    expect(after.sales).toHaveLength(before.sales.length + 2);
    const [a, b] = orders.map((o) => after.sales.filter((s) => s.reference === String(o)));
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(a![0]).toMatchObject({ state: 'draft', party: { name: 'Erika Shop', emails: [email] }, invoice_address: { city: 'Berlin' }, shipment_address: { city: 'Potsdam' } });
    expect(a![0]!.lines.map((l) => [l.product, l.quantity, Number(l.unit_price)])).toEqual([['K-100', 2, 22.5], ['TS-M', 1, 15]]);
    expect(b![0]!.lines.map((l) => [l.product, l.quantity, Number(l.unit_price)])).toEqual([['MUG-1', 3, 7.5]]);
    // The second order found the party the first one created.
    expect(b![0]!.party.id).toBe(a![0]!.party.id);
    expect(after.parties_by_email[email]).toBe(1);

    const staged = await stagedOrders();
    expect(staged.map((o) => o.status)).toEqual(['imported', 'imported']);
    expect(staged.every((o) => o.imported_at instanceof Date && typeof o.erp_reference === 'string')).toBe(true);
  });

  it('the import run again makes no second sale, nor does one that died after Tryton saved the sale and before it marked the order', { timeout: 240_000 }, async () => {
    const count = async () => (await trytonSales()).sales.length;
    const before = await count();
    const again = await importOrders();
    expect(again).toMatchObject({ code: 0, claimed: 0, created: 0 });
    expect(await count()).toBe(before);

    // A run that died between Tryton's save and the staging UPDATE leaves the order `importing`.
    await staging!.query("UPDATE shopsync_in.orders SET status = 'importing', imported_at = NULL WHERE orders_id = $1", [orders[0]]);
    const resumed = await importOrders('--retry');
    expect(resumed).toMatchObject({ code: 0, claimed: 1, created: 0, existing: 1 });
    expect(await count()).toBe(before);
    expect((await stagedOrders())[0]).toMatchObject({ status: 'imported' });
  });

  it('the order changed in the shop and pulled again updates its staging row (one row, status and imported_at kept); the import leaves the sale alone and lists the change', { timeout: 240_000 }, async () => {
    const [id] = orders;
    const before = (await stagedOrders()).find((o) => o.orders_id === String(id))!;
    const sales = (await trytonSales()).sales.length;
    const res = await fetch(`${sandbox.url}/import/json/orders`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: [{ orders_id: id, orders_status: 3, comments: 'shipped' }] }),
    });
    expect(res.ok, await res.text()).toBe(true);

    const pulled = await sync('orders-to-erp');
    expect(pulled).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 1 } });
    const rows = (await stagedOrders()).filter((o) => o.orders_id === String(id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ orders_status: '3', status: 'imported', erp_reference: before.erp_reference });
    expect(rows[0]!.imported_at).toEqual(before.imported_at);
    expect((rows[0]!.shopsync_delivered_at as Date).getTime()).toBeGreaterThan((before.imported_at as Date).getTime());
    expect(Number((await staging!.query('SELECT COUNT(*) AS n FROM shopsync_in.order_lines WHERE orders_id = $1', [id])).rows[0].n)).toBe(2);

    const imported = await importOrders();
    expect(imported).toMatchObject({ code: 0, claimed: 0, created: 0, changed_after_import: [id] });
    expect((await trytonSales()).sales.length).toBe(sales);
  });

  it("an order for a code Tryton does not know fails alone with the reason, no sale made; after the product is made in Tryton, --retry creates its sale once", { timeout: 240_000 }, async () => {
    // A manual item of the shop: its article number has no Tryton product yet.
    const id = await placeOrder([{ products_model: 'TP-9', products_name: 'Teapot', quantity: 1, products_price: '29.90' }], {});
    expect(await sync('orders-to-erp')).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    const before = (await trytonSales()).sales.length;

    const refused = await importOrders();
    expect(refused).toMatchObject({ code: 1, claimed: 1, created: 0, failed: 1 });
    expect(refused.errors[String(id)]).toContain("'TP-9'");
    expect((await stagedOrders()).find((o) => o.orders_id === String(id))).toMatchObject({ status: 'failed', imported_at: null, import_error: expect.stringContaining('TP-9') });
    expect((await trytonSales()).sales.length).toBe(before);
    // Without --retry a failed order stays for a person.
    expect(await importOrders()).toMatchObject({ code: 0, claimed: 0 });

    const fixed = await trytonSales('product', 'TP-9', 'Teapot', '29.90');
    expect(fixed.sales.length).toBe(before);
    const retried = await importOrders('--retry');
    expect(retried).toMatchObject({ code: 0, claimed: 1, created: 1, failed: 0 });
    const after = await trytonSales();
    expect(after.sales.length).toBe(before + 1);
    const sale = after.sales.filter((s) => s.reference === String(id));
    expect(sale).toHaveLength(1);
    expect(sale[0]!.lines.map((l) => [l.product, l.quantity, Number(l.unit_price)])).toEqual([['TP-9', 1, 29.9]]);
    expect((await stagedOrders()).find((o) => o.orders_id === String(id))).toMatchObject({ status: 'imported', import_error: null });
  });
});
