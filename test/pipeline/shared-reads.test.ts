/**
 * Read once, fan out, as the daemon's clock does it: three shops (de, at, ch, each a sandbox shop of
 * its own) have a products pipeline over the same ERP query, and a tick starts the three runs at
 * once in one process. The ERP answers each page once; every shop still receives every product.
 * The first tick only warms up (each pipeline's first run loads its mapping and shop client, which
 * staggers the runs by more than they take to read 300 rows); the ERP then changes every product,
 * and the second tick is the one measured.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { useSandbox } from '../support/sandbox.js';
import { clientFor, createErp, PRODUCT_MAPPING, shopRecords, tempDir, upsertProducts } from './support.js';

const PRODUCTS = 300;
const PAGE = 50;
const SHOPS = { de: useSandbox(), at: useSandbox(), ch: useSandbox() };

/** `shopsync_erp_queries_total` of a connection, from /metrics' text. */
function queries(text: string, connection: string): { own: number; shared: number } {
  const value = (shared: boolean) => Number(new RegExp(`^shopsync_erp_queries_total\\{[^}]*connection="${connection}"[^}]*shared="${shared}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { own: value(false), shared: value(true) };
}

describe('three shops reading the same ERP query in the same tick', () => {
  let runtime: Runtime;
  let dir: string;
  const erp = () => createErp(join(dir, 'erp.sqlite'));
  beforeAll(async () => {
    dir = tempDir('shopsync-shared-reads-');
    const db = erp();
    upsertProducts(db, 1, PRODUCTS);
    db.close();
    writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
    const shops = Object.fromEntries(Object.keys(SHOPS).map((s) => [s, { baseUrl: `\${SHOP_${s.toUpperCase()}_URL}`, token: `\${SHOP_${s.toUpperCase()}_TOKEN}` }]));
    const pipelines = Object.keys(SHOPS).map((shop) => ({ name: `products-${shop}`, shop, direction: 'push', resource: 'products', mapping: 'products.yaml', source: { connection: 'erp', query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }, options: { pageSize: PAGE } }));
    const file = join(dir, 'shopsync.yaml');
    writeFileSync(file, stringify({ shops, connections: { erp: { kind: 'sqlite', path: 'erp.sqlite' } }, pipelines, state: { kind: 'sqlite', path: 'state.db' } }));
    const env = Object.fromEntries(Object.entries(SHOPS).flatMap(([s, sandbox]) => [[`SHOP_${s.toUpperCase()}_URL`, sandbox.url], [`SHOP_${s.toUpperCase()}_TOKEN`, sandbox.token]]));
    runtime = await openRuntime(await loadConfig(file, { env }), { logger: silentLogger });
  });
  afterAll(async () => {
    await runtime?.close();
  });

  it('answers each page once for the three runs and delivers every product to every shop', async () => {
    const tick = () => Promise.all(Object.keys(SHOPS).map((shop) => runtime.run(`products-${shop}`)));
    const first = await tick();
    expect(first.map((s) => [s.pipeline, s.status, s.counts.created])).toEqual(Object.keys(SHOPS).map((shop) => [`products-${shop}`, 'succeeded', PRODUCTS]));
    const before = queries(await runtime.metrics.render(), 'erp');
    const db = erp();
    upsertProducts(db, 1, PRODUCTS, 2, '2026-01-02 00:00:00');
    db.close();
    const second = await tick();
    expect(second.map((s) => [s.pipeline, s.status, s.counts.updated])).toEqual(Object.keys(SHOPS).map((shop) => [`products-${shop}`, 'succeeded', PRODUCTS]));
    const after = queries(await runtime.metrics.render(), 'erp');
    const own = after.own - before.own;
    const shared = after.shared - before.shared;
    // One shop alone needs PRODUCTS / PAGE full pages and the short one that ends the read (fewer if pages grew).
    expect(own).toBeLessThanOrEqual(PRODUCTS / PAGE + 1);
    expect(shared).toBe(2 * own);
    for (const [shop, sandbox] of Object.entries(SHOPS)) {
      const client = clientFor(sandbox);
      const products = await shopRecords(client, 'products');
      expect(products.length, `products in shop ${shop}`).toBe(PRODUCTS);
      expect(products.filter((p) => !String((p.languages as Record<string, { products_name: string }>).de?.products_name).endsWith(' v2')), `stale products in shop ${shop}`).toEqual([]);
      await client.close();
    }
  }, 120_000);
});
