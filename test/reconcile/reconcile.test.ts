import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline, SyncEvents, type PipelineDefinitionInput } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, sku, sqliteSource, tempDir, upsertProducts } from '../pipeline/support.js';

// Reconciliation against the sandbox: drift of each kind seeded on both sides, found, written to
// JSON and CSV, and repaired through the pipeline; a second reconciliation finds none.

interface Fixture {
  dir: string;
  erpFile: string;
  erp: Database.Database;
  sandbox: SandboxHandle;
  shop: ShopClient;
  state: StateStore;
  mapping: CompiledMapping;
  reports: ReportStore;
}

let f: Fixture;
beforeEach(async () => {
  const dir = tempDir('shopsync-reconcile-');
  const erpFile = join(dir, 'erp.sqlite');
  const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  f = { dir, erpFile, erp: createErp(erpFile), sandbox, shop: clientFor(sandbox), state: await openState(join(dir, 'state.db')), mapping: await mappingFile(dir, 'erp-products', PRODUCT_MAPPING), reports: new ReportStore(join(dir, 'reconcile')) };
});
afterEach(async () => {
  await f.shop.close();
  await f.state.close();
  await f.sandbox.close();
  f.erp.close();
  rmSync(f.dir, { recursive: true, force: true });
});

const def: PipelineDefinitionInput = { name: 'catalog', direction: 'push', source: { connection: 'erp' }, mapping: 'erp-products.yaml', resource: 'products', options: { onMissing: 'deactivate' }, reconcile: { alertAbove: 2 } };

function deps(events?: SyncEvents) {
  return { state: f.state, shop: f.shop, mapping: f.mapping, source: sqliteSource(f.erpFile), ...(events ? { events } : {}) };
}

async function shopProduct(model: string): Promise<Record<string, unknown> | undefined> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return p;
  return undefined;
}

/** Drift of every kind, behind shopsync's back. */
async function seedDrift(): Promise<void> {
  upsertProducts(f.erp, 1, 20);
  expect((await runPipeline(def, deps())).counts.created).toBe(20);
  // Only in the ERP: a new article no run has pushed yet.
  upsertProducts(f.erp, 21, 21);
  // Different: a price edited in the shop, a name changed in the ERP.
  const p3 = await shopProduct(sku(3));
  expect((await f.shop.update('products', [{ products_id: p3!.products_id, products_price: '99.99' }])).outcomes[0]?.ok).toBe(true);
  f.erp.prepare("UPDATE products SET name = 'Renamed in the ERP' WHERE sku = ?").run(sku(5));
  // Only in the shop: created there by hand.
  expect((await f.shop.create('products', [{ products_model: 'HAND-1', products_price: '5.00', products_status: 1, languages: { de: { products_name: 'Handmade' } } }])).outcomes[0]?.ok).toBe(true);
  // Not drift: a row the mapping refuses (a dead letter says the same).
  f.erp.prepare("INSERT INTO products (sku, name, price, qty, updated_at) VALUES ('BAD-1', 'Bad price', 'zehn', 1, '2026-01-01 00:00:00')").run();
}

describe('shopsync reconcile', () => {
  it('finds seeded drift of each kind, writes the report and its CSV, and alerts on the drift', async () => {
    await seedDrift();
    const events = new SyncEvents();
    const seen: { drift: number; alertAbove: number }[] = [];
    events.on('reconcile-finished', (e) => seen.push({ drift: e.drift, alertAbove: e.alertAbove }));
    const report = await reconcilePipeline(def, deps(events), { reports: f.reports });
    expect(report.counts).toEqual({ erp: 22, shop: 21, matched: 20, onlyInErp: 1, onlyInShop: 1, different: 2, retired: 0, refused: 1 });
    expect(report.drift).toBe(4);
    expect(report.onlyInErp).toEqual([{ erpKey: sku(21), shopKey: sku(21) }]);
    expect(report.onlyInShop).toMatchObject([{ shopKey: 'HAND-1' }]);
    expect(report.different.map((d) => [d.erpKey, d.fields.map((x) => x.field)])).toEqual([
      [sku(3), ['products_price']],
      [sku(5), ['languages.de.products_name']],
    ]);
    expect(report.different[0]!.fields[0]).toMatchObject({ shop: 99.99 });
    expect(report.refused).toMatchObject([{ erpKey: 'BAD-1' }]);
    expect(report.fields).toEqual({ products_price: 1, 'languages.de.products_name': 1 });
    expect(seen).toEqual([{ drift: 4, alertAbove: 2 }]);

    expect((await f.reports.latest('catalog'))?.id).toBe(report.id);
    const csv = readFileSync((await f.reports.csvFile('catalog', report.id))!, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('kind,erp_key,shop_key,shop_id,field,shop_value,erp_value');
    expect(csv.slice(1).map((l) => l.split(',')[0]).sort()).toEqual(['different', 'different', 'only-in-erp', 'only-in-shop', 'refused']);
    expect(csv).toContain(`different,${sku(5)},${sku(5)},${String(report.different[1]!.shopId)},languages.de.products_name,Product 5 v1,Renamed in the ERP`);
    // Reconciling writes nothing to the shop or the sync's state.
    expect((await f.state.runs.list({ pipeline: 'catalog' })).length).toBe(1);
  });

  it('repairs the drift through the pipeline, letters the row its mapping refuses (the run is partial, never a silent success), and the next reconciliation finds no drift', async () => {
    await seedDrift();
    const repaired = await reconcilePipeline(def, deps(), { reports: f.reports, repair: true });
    expect(repaired.repair).toMatchObject({ status: 'partial', pushed: 4, created: 1, updated: 2, deactivated: 1, failed: 1 });
    expect((await f.state.runs.get(repaired.repair!.runId))).toMatchObject({ mode: 'repair', status: 'partial' });
    expect(await f.state.deadLetters.getByKey('catalog', 'BAD-1')).toMatchObject({ code: 'MAPPING_DECIMAL', reason: expect.stringContaining('`zehn` is not a decimal') });
    expect(await shopProduct(sku(21))).toBeDefined();
    expect((await shopProduct(sku(3)))?.products_price).not.toBe(99.99);
    expect((await shopProduct('HAND-1'))?.products_status).toBe(0);

    const after = await reconcilePipeline(def, deps(), { reports: f.reports });
    expect(after.drift).toBe(0);
    expect(after.counts).toMatchObject({ matched: 21, retired: 1, refused: 1 });
    expect((await f.reports.ids('catalog')).length).toBe(2);
  });

  it('leaves shop-only records alone when the guard refuses them, and says how to allow it', async () => {
    upsertProducts(f.erp, 1, 4);
    await runPipeline(def, deps());
    await f.shop.create('products', [1, 2, 3].map((n) => ({ products_model: `HAND-${n}`, products_price: '5.00', languages: { de: { products_name: `Hand ${n}` } } })));
    const report = await reconcilePipeline(def, deps(), { reports: f.reports, repair: true });
    expect(report.counts.onlyInShop).toBe(3);
    expect(report.repair).toMatchObject({ status: 'partial', deactivated: 0, error: { code: 'MASS_DELETE_REFUSED' } });
    expect(report.repair?.shopOnly).toContain('reconcile catalog --repair --allow-mass-delete');
    expect((await shopProduct('HAND-1'))?.products_status).not.toBe(0);
    const allowed = await reconcilePipeline(def, deps(), { reports: f.reports, repair: true, allowMassDelete: true });
    expect(allowed.repair).toMatchObject({ status: 'succeeded', deactivated: 3 });
  });
});
