/**
 * The reconcile benchmark's steps, each in a process of its own so each peak RSS is its own.
 * `setup <n> <erpFile> <url> <token> <dir>`: push the first n catalog products with shopsync into the
 * shop (state in <dir>), then seed drift: 100 names changed in the ERP, 100 new ERP articles, 100
 * prices edited in the shop, 100 products created in the shop by hand.
 * `reconcile <erpFile> <url> <token> <dir>`: reconcile once; prints time, peak RSS and the counts.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { shopClientOptions, shopConfigSchema } from '../../../src/config/shop.js';
import { createSource } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { runPipeline } from '../../../src/pipeline/index.js';
import { pipelineSchema } from '../../../src/pipeline/schema.js';
import { reconcilePipeline, ReportStore } from '../../../src/reconcile/index.js';
import { createShopClient } from '../../../src/shop/index.js';
import { openState } from '../../../src/state/index.js';
import { catalogSource, skuOf, writeCatalogMapping } from './catalog.js';
import { peakRssMb } from './report.js';

const DRIFT = 100;
const def = pipelineSchema.parse({ name: 'bench-products', direction: 'push', source: { connection: 'erp' }, mapping: 'bench-products.yaml', resource: 'products', options: { onMissing: 'deactivate' } });

async function open(erpFile: string, url: string, token: string, dir: string) {
  const shop = createShopClient(shopClientOptions(shopConfigSchema.parse({ baseUrl: url, token })));
  const state = await openState(join(dir, 'state.db'));
  const mapping = await loadMapping(writeCatalogMapping(dir));
  const source = () => createSource({ kind: 'sqlite', path: erpFile }, catalogSource(), { logger: silentLogger, baseDir: dir });
  return { shop, state, deps: { state, shop, mapping, source } };
}

async function setup(n: number, erpFile: string, url: string, token: string, dir: string): Promise<Record<string, number>> {
  const { shop, state, deps } = await open(erpFile, url, token, dir);
  try {
    const t = performance.now();
    const first = await runPipeline(def, deps);
    if (first.counts.created !== n) throw new Error(`push of ${n}: ${JSON.stringify(first.counts)}`);
    const pushMs = performance.now() - t;
    const erp = new Database(erpFile);
    erp.transaction(() => {
      for (let i = 1; i <= DRIFT; i++) erp.prepare("UPDATE products SET name_de = name_de || ' (neu)' WHERE sku = ?").run(skuOf(i * 10));
      for (let i = 1; i <= DRIFT; i++) erp.prepare("INSERT INTO products VALUES (?, 'Neu', 'New', '9.99', 1, '2026-06-01 00:00:00')").run(skuOf(n + i));
    })();
    erp.close();
    const ids = await state.refs.getMany('products', Array.from({ length: DRIFT }, (_, i) => skuOf(i * 10 + 5)));
    const edits = [...ids.values()].map((id) => ({ products_id: id, products_price: '0.01' }));
    if ((await shop.update('products', edits)).outcomes.some((o) => !o.ok)) throw new Error('shop edits failed');
    const hand = Array.from({ length: DRIFT }, (_, i) => ({ products_model: `HAND-${i}`, products_price: '1.00', products_status: 1, languages: { de: { products_name: `Hand ${i}` } } }));
    if ((await shop.create('products', hand)).outcomes.some((o) => !o.ok)) throw new Error('shop creates failed');
    return { n, pushMs };
  } finally {
    await shop.close();
    await state.close();
  }
}

async function reconcile(erpFile: string, url: string, token: string, dir: string): Promise<Record<string, number>> {
  const { shop, state, deps } = await open(erpFile, url, token, dir);
  try {
    const t = performance.now();
    const report = await reconcilePipeline(def, deps, { reports: new ReportStore(join(dir, 'reconcile')) });
    const ms = performance.now() - t;
    return { ms, peakRssMb: peakRssMb(), erpMs: report.phases?.erpMs ?? -1, shopMs: report.phases?.shopMs ?? -1, ...report.counts, drift: report.drift };
  } finally {
    await shop.close();
    await state.close();
  }
}

const [mode, ...args] = process.argv.slice(2);
const result = mode === 'setup' ? await setup(Number(args[0]), args[1]!, args[2]!, args[3]!, args[4]!) : await reconcile(args[0]!, args[1]!, args[2]!, args[3]!);
process.stdout.write(`${JSON.stringify(result)}\n`);
