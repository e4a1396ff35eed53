/**
 * Reconcile compares decimals as the shop stores them (issue 40, item 3): a shop holding 0.3 and
 * 12.345 (what its decimal columns keep) does not differ from an ERP whose float sum is
 * 0.30000000000000004 and whose price text is 12.3450, because both sides are compared after the
 * mapping fitted them to the field's scale, by exact decimal value.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { clientFor, mappingFile, PRODUCT_MAPPING, sqliteSource, tempDir } from '../pipeline/support.js';

let dir: string;
let sandbox: SandboxHandle;
let shop: ShopClient;
let state: StateStore;
beforeEach(async () => {
  dir = tempDir('shopsync-reconcile-dec-');
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  shop = clientFor(sandbox);
  state = await openState(join(dir, 'state.db'));
});
afterEach(async () => {
  await shop.close();
  await state.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

it('finds no difference between float noise or trailing zeros in the ERP and the value the shop stores', async () => {
  const erpFile = join(dir, 'erp.sqlite');
  const erp = new Database(erpFile);
  erp.exec("CREATE TABLE parts (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty_a REAL, qty_b REAL, updated_at TEXT DEFAULT '2026-01-01 00:00:00')");
  erp.prepare('INSERT INTO parts (sku, name, price, qty_a, qty_b) VALUES (?, ?, ?, ?, ?)').run('R-1', 'Schraube', '12.3450', 0.1, 0.2);
  erp.close();
  // The shop already holds the article as its columns store it (another tool, or an earlier sync).
  await shop.create('products', [{ products_model: 'R-1', products_price: '12.345', products_quantity: '0.30000000', products_status: 1, languages: { de: { products_name: 'Schraube' } } }]);
  const mapping = await mappingFile(dir, 'p', PRODUCT_MAPPING);
  const def = { name: 'parts', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };
  const source = sqliteSource(erpFile, { query: 'SELECT sku, name, price, qty_a + qty_b AS qty, updated_at FROM parts', cursor: 'updated_at', key: 'sku' });
  const report = await reconcilePipeline(def, { state, shop, mapping, source }, { reports: new ReportStore(join(dir, 'reports')) });
  expect(report.counts).toMatchObject({ erp: 1, shop: 1, matched: 1, different: 0 });
  expect(report.different).toEqual([]);
});
