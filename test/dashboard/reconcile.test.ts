/**
 * The dashboard's Reconcile page over HTTP: the latest report of each push pipeline with its drift,
 * one report in full, its CSV download; and a refused mass deletion on the run's page.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardActions, registerDashboard } from '../../src/dashboard/index.js';
import { runPipeline, SyncEvents, type PipelineDefinitionInput, type PipelineDeps } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore, type ReconcileReport } from '../../src/reconcile/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, sku, sqliteSource, tempDir, upsertProducts } from '../pipeline/support.js';

let dir: string;
let sandbox: SandboxHandle;
let state: StateStore;
let app: FastifyInstance;
let report: ReconcileReport;
let refusedRun: number;
let deps: PipelineDeps;

const def: PipelineDefinitionInput = { name: 'catalog', direction: 'push', source: { connection: 'erp' }, mapping: 'erp-products.yaml', resource: 'products', options: { onMissing: 'deactivate' }, reconcile: { schedule: '0 3 * * 0' } };

beforeAll(async () => {
  dir = tempDir('shopsync-dash-reconcile-');
  const erpFile = join(dir, 'erp.sqlite');
  const erp = createErp(erpFile);
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  state = await openState(join(dir, 'state.db'));
  const shop = clientFor(sandbox);
  const events = new SyncEvents();
  deps = { state, shop, events, mapping: await mappingFile(dir, 'erp-products', PRODUCT_MAPPING), source: sqliteSource(erpFile) };
  upsertProducts(erp, 1, 10);
  await runPipeline(def, deps);
  const p2 = (await shop.exportOne('products', (await state.refs.get('products', sku(2)))!.shopId))!;
  await shop.update('products', [{ products_id: p2.products_id, products_price: '1.23' }]);
  erp.prepare('DELETE FROM products WHERE sku IN (?, ?)').run(sku(9), sku(10));
  erp.close();
  const reports = new ReportStore(join(dir, 'reconcile'));
  report = await reconcilePipeline(def, deps, { reports });
  refusedRun = (await runPipeline(def, deps, { complete: true })).runId;
  app = Fastify();
  await registerDashboard(app, {
    state,
    events,
    reports,
    pipelines: [{ name: 'catalog', resource: 'products', direction: 'push', reconcileSchedule: '0 3 * * 0', nextRun: () => undefined }],
    ...dashboardActions({ state, pipelines: [{ definition: def, deps }] }),
  });
});
afterAll(async () => {
  await app?.close();
  await state?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Reconcile page', () => {
  it('lists the latest reconciliation with its drift and shows the report in full', async () => {
    const res = await app.inject({ method: 'GET', url: '/reconcile' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<a href="/reconcile" aria-current="page">Reconcile</a>');
    expect(res.body).toContain('data-pipeline="catalog" data-drift="3"');
    expect(res.body).toContain('<code>0 3 * * 0</code>');
    expect(res.body).toContain(`data-report-id="${report.id}"`);
    expect(res.body).toMatch(/<table id="different">.*SKU-000002.*products_price.*1\.23/s);
    expect(res.body).toMatch(/<ul id="only-in-shop" class="mono"><li>SKU-000009 .*<li>SKU-000010 /s);
    expect(res.body).toContain(`/reconcile/catalog/${report.id}.csv`);
  });

  it('serves the CSV report, and nothing outside the reports', async () => {
    const res = await app.inject({ method: 'GET', url: `/reconcile/catalog/${report.id}.csv` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body.split('\n')[0]).toBe('kind,erp_key,shop_key,shop_id,field,shop_value,erp_value');
    expect(res.body).toContain('only-in-shop,,SKU-000009');
    expect((await app.inject({ method: 'GET', url: '/reconcile/catalog/..%2F..%2Fstate.db.csv' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/reconcile/other/${report.id}.csv` })).statusCode).toBe(404);
  });

  it("shows a refused mass deletion as the run's error", async () => {
    const res = await app.inject({ method: 'GET', url: `/runs/${refusedRun}` });
    expect(res.body).toContain('MASS_DELETE_REFUSED');
    expect(res.body).toContain('deactivated or deleted');
  });
});
