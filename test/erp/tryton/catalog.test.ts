/**
 * A real ERP: a Tryton 6.0 database made by trytond-admin, filled through proteus (products,
 * variants, EANs, an inventory, supplier receipts, a shipped sale), configured by `shopsync init
 * --erp tryton` (no hand-written SQL or mapping) and synced into the sandbox shop by the spawned
 * CLI. After every change made through proteus (a price, a stock move, a new product, a code reused
 * by a successor, an EAN removed, an identifier deleted, a changed code (a rename: same shop product), 0.1 + 0.2 kg) the shop is
 * compared with Tryton's own figures: proteus `Product.quantity` in the warehouse's context, names,
 * list prices, EANs, active.
 * Runs in `npm run test:erp` only (vitest.config.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureBuilt, runCli, shopProducts, tempDir } from '../../cli/support.js';
import { shopEnv, useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { requireTryton, trytonDatabase, type TrytonAction, type TrytonDatabase, type TrytonFigures, type TrytonProduct } from '../../support/tryton.js';

const tryton = await requireTryton();
const pgService = await requireService('postgres');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** What the shop should hold for a Tryton product, as Tryton computes it. */
function expected(p: TrytonProduct) {
  return { model: p.code, name: p.name, price: Number(p.list_price), quantity: p.quantity, ean: p.ean ?? '', status: p.active ? 1 : 0 };
}

type Shop = Map<string, Record<string, unknown>>;

/** What the shop holds for that product's code. */
function held(shop: Shop, code: string) {
  const r = shop.get(code);
  if (!r) return undefined;
  const languages = r.languages as Record<string, { products_name?: string }> | undefined;
  return { model: r.products_model, name: languages?.de?.products_name, price: Number(r.products_price), quantity: Number(r.products_quantity), ean: r.products_ean ?? '', status: Number(r.products_status) };
}

/** Every Tryton product with a code beside the shop's record of that code. */
function compare(figures: TrytonFigures, shop: Shop) {
  const rows = figures.products.filter((p) => p.code);
  return { expected: rows.map(expected), held: rows.map((p) => held(shop, p.code!)) };
}

interface Summary {
  status: string;
  counts: Record<string, number>;
}

describe.skipIf(!tryton.available || !pgService.available)('Tryton 6.0 as the ERP: `init --erp tryton`, then every product synced as Tryton computes it', () => {
  let db: TrytonDatabase | undefined;
  let figures: TrytonFigures;
  const dir = tempDir('shopsync-tryton-');
  const started = Date.now();

  async function sync(...flags: string[]) {
    const r = await runCli(['sync', 'products', '--json', ...flags], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
    const summary = r.stdout.trim().startsWith('{') ? (JSON.parse(r.stdout) as Summary) : undefined;
    console.log(`[tryton] sync ${flags.join(' ')}: ${summary?.status} ${JSON.stringify(summary?.counts)}`);
    return { ...r, summary, all: r.stdout + r.stderr };
  }

  /** A change through proteus, then a sync that succeeds, then the whole shop compared with Tryton. */
  async function changeAndSync(action: TrytonAction, ...flags: string[]) {
    figures = await db!.data(action);
    const run = await sync(...flags);
    expect(run.code, run.all).toBe(0);
    expect(run.summary).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    const shop = await shopProducts(sandbox);
    const { expected: want, held: got } = compare(figures, shop);
    expect(got).toEqual(want);
    return { run, shop };
  }

  const byCode = (code: string) => figures.products.filter((p) => p.code === code);

  beforeAll(async () => {
    db = await trytonDatabase(tryton);
    figures = await db.data('setup');
    console.log(`[tryton] database ${db.name} with its data in ${Math.round((Date.now() - started) / 1000)} s`);
  }, 40 * 60_000);
  afterAll(async () => {
    await db?.close();
    console.log(`[tryton] the whole file took ${Math.round((Date.now() - started) / 1000)} s`);
  });

  it('init --erp tryton checks the database and writes a complete pipeline: the recipe\'s SELECT keyed by the Tryton id with the code as the article number, onMissing deactivate on a nightly complete read', { timeout: 180_000 }, async () => {
    const init = await runCli(['init', '--yes', '--erp', 'tryton', '--db-url', `postgres://postgres@${pgService.host}:${pgService.port}/${db!.name}`], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('Tryton recipe: the tables product_product, product_template');
    expect(init.stdout).toContain('mappings check: 1 mapping file(s) valid');
    expect(init.stdout).toContain('shopsync erp notify-setup products --table product_product,product_template,product_list_price,product_identifier,stock_move --apply');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'));
    expect(config.pipelines[0]).toMatchObject({
      name: 'products',
      source: { connection: 'erp', cursor: 'changed', key: 'id', params: { warehouse: 'WH' } },
      trigger: { notify: true },
      completeSchedule: expect.any(String),
      options: { onMissing: 'deactivate' },
    });
    // The id a renumbering keeps: a changed code renames the shop product (docs/catalog.md "Renamed articles").
    expect(parse(readFileSync(join(dir, 'mappings/products.yaml'), 'utf8'))).toMatchObject({ key: { surrogate: 'id', natural: 'code' }, shop_key: 'products_model' });
  });

  it("the first sync: the shop holds every product as Tryton computes it (name, list price, the warehouse's stock, EAN, active)", { timeout: 180_000 }, async () => {
    // Tryton's own figures, as the data script made them (proteus, not SQL).
    expect(byCode('K-100')[0]).toMatchObject({ quantity: 13, list_price: '24.90', ean: '4000000000013' });
    expect(byCode('TS-M')[0]).toMatchObject({ quantity: 6 });
    expect(figures.products.length).toBeGreaterThanOrEqual(21);
    const { run } = await changeAndSync('figures');
    expect(run.summary?.counts).toMatchObject({ read: figures.products.length, created: figures.products.length });
  });

  it('a price change reaches the shop', { timeout: 180_000 }, async () => {
    await changeAndSync('price');
    expect(byCode('K-100')[0]).toMatchObject({ list_price: '19.99' });
  });

  it('a stock move (a supplier receipt) reaches the shop', { timeout: 180_000 }, async () => {
    await changeAndSync('move');
    expect(byCode('MUG-1')[0]).toMatchObject({ quantity: 11 });
  });

  it('a new product is created in the shop', { timeout: 180_000 }, async () => {
    const { shop } = await changeAndSync('new_product');
    expect(held(shop, 'TP-1')).toMatchObject({ name: 'Teapot', quantity: 6, ean: byCode('TP-1')[0]?.ean, status: 1 });
  });

  it('a code reused by a successor while the retired product still has it is refused with SOURCE_DUPLICATE_KEY naming both rows, and the shop product is untouched', { timeout: 180_000 }, async () => {
    const before = held(await shopProducts(sandbox), 'L-7');
    figures = await db!.data('reuse');
    const rows = byCode('L-7');
    expect(rows.map((p) => [p.name, p.active])).toEqual([['Old lamp', false], ['New lamp', true]]);
    const run = await sync();
    expect(run.summary?.status).toBe('partial');
    expect(run.all).toContain('SOURCE_DUPLICATE_KEY');
    // Both rows named: by their Tryton ids or their names.
    for (const p of rows) expect(run.all.includes(String(p.id)) || run.all.includes(p.name), `${p.name} (id ${p.id}) is named`).toBe(true);
    expect(held(await shopProducts(sandbox), 'L-7')).toEqual(before);
  });

  it('once the retired product has a code of its own, it keeps its shop product under that code, offline, and the successor gets a shop product of its own', { timeout: 180_000 }, async () => {
    const lamp = (await shopProducts(sandbox)).get('L-7')!.products_id;
    const { shop } = await changeAndSync('resolve');
    expect(held(shop, 'L-7-OLD')).toMatchObject({ name: 'Old lamp', status: 0 });
    expect(shop.get('L-7-OLD')!.products_id).toBe(lamp);
    expect(held(shop, 'L-7')).toMatchObject({ name: 'New lamp', status: 1, price: 35 });
    expect(shop.get('L-7')!.products_id).not.toBe(lamp);
  });

  it('an EAN removed from the product in Tryton is cleared in the shop', { timeout: 180_000 }, async () => {
    const { shop } = await changeAndSync('ean_removed');
    expect(byCode('TS-S')[0]?.ean).toBeNull();
    expect(held(shop, 'TS-S')?.ean).toBe('');
  });

  it('an EAN whose identifier row was deleted on its own (no change time moves) is cleared by the complete read', { timeout: 180_000 }, async () => {
    const { shop } = await changeAndSync('ean_deleted', '--complete');
    expect(byCode('TS-M')[0]?.ean).toBeNull();
    expect(held(shop, 'TS-M')?.ean).toBe('');
  });

  it('a changed code renames the shop product: the same shop id under the new code, no second product, and the complete read deactivates nothing', { timeout: 180_000 }, async () => {
    const before = await shopProducts(sandbox);
    const mug = before.get('MUG-1')!;
    let { shop } = await changeAndSync('code_changed');
    expect(held(shop, 'MUG-2')).toMatchObject({ name: 'Mug', quantity: 11, status: 1 });
    expect(shop.get('MUG-2')!.products_id).toBe(mug.products_id);
    expect(shop.has('MUG-1')).toBe(false);
    expect(shop.size).toBe(before.size);
    const complete = await changeAndSync('figures', '--complete');
    shop = complete.shop;
    expect(held(shop, 'MUG-2')).toMatchObject({ status: 1 });
    expect(shop.size).toBe(before.size);
  });

  it('0.1 + 0.2 kg of coffee (two double precision moves) is 0.3 in the shop, and the next run leaves it unchanged', { timeout: 180_000 }, async () => {
    const { shop } = await changeAndSync('coffee');
    expect(byCode('CB-1')[0]).toMatchObject({ quantity: 0.3, uom: 'Kilogram' });
    expect(shop.get('CB-1')?.products_quantity).toSatisfy((q: unknown) => Number(q) === 0.3);
    const again = await sync();
    expect(again.summary).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 0, failed: 0 } });
  });

  it("trytond's JSON-RPC server (for a later RPC connector) logs in and computes the same warehouse stock", { timeout: 120_000 }, async () => {
    const server = await db!.startServer();
    try {
      const rows = (await server.call('model.product.product.search_read', [[], 0, null, [['id', 'ASC']], ['code', 'quantity'], { locations: [figures.warehouse] }])) as { id: number; code: string; quantity: number }[];
      const active = figures.products.filter((p) => p.active).map((p) => ({ id: p.id, code: p.code, quantity: p.quantity }));
      expect(rows).toEqual(active);
    } finally {
      await server.close();
    }
  });
});
