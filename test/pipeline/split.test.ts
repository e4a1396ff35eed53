/**
 * A shop that refuses a whole request without naming the record (HTTP 400, no index): a wire-level
 * case the sandbox does not produce, so nock plays the shop here. The pipeline must split the
 * batch until the bad record is alone, deliver every other record and dead-letter only that one.
 */
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { createErp, mappingFile, PRODUCT_MAPPING, sku, sqliteSource, tempDir, upsertProducts } from './support.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { join } from 'node:path';
import { rmSync } from 'node:fs';

const BASE = 'http://shop.split.test';
let dir: string;
let state: StateStore;
let mapping: CompiledMapping;

beforeEach(async () => {
  dir = tempDir();
  state = await openState(join(dir, 'state.db'));
  mapping = await mappingFile(dir, 'products', PRODUCT_MAPPING);
});
afterEach(async () => {
  nock.cleanAll();
  await state.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('batch splitting', () => {
  it('isolates the record that makes the shop reject a whole request; the others still land', async () => {
    const erpFile = join(dir, 'erp.sqlite');
    const erp = createErp(erpFile);
    upsertProducts(erp, 1, 16);
    erp.prepare("UPDATE products SET name = 'POISON' WHERE sku = ?").run(sku(11));
    erp.close();
    const stored: string[] = [];
    let nextId = 1;
    let requests = 0;
    nock(BASE)
      .persist()
      .post('/import/json/products')
      .reply(async (request) => {
        requests++;
        const data = ((await request.json()) as { data: { products_model: string; languages?: { de?: { products_name?: string } } }[] }).data;
        if (data.some((r) => r.languages?.de?.products_name === 'POISON')) {
          return [400, { success: false, api_version: '2.32.0', error: { code: 'INVALID_PAYLOAD', message: 'request body could not be processed' } }];
        }
        stored.push(...data.map((r) => r.products_model));
        return [200, { success: true, api_version: '2.32.0', type: 'products', operation: 'create', data: data.map((r, index) => ({ index, products_id: nextId++, products_model: r.products_model })), warnings: [], errors: [] }];
      });
    const shop = createShopClient({ baseUrl: BASE, auth: { kind: 'token', token: 't' }, retry: { retries: 0 } });
    const events = new SyncEvents();
    const splits: number[] = [];
    events.on('batch-split', (e) => splits.push(e.size));
    const summary = await runPipeline(
      { name: 'products', direction: 'push', source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 16 },
      { state, shop, mapping, source: sqliteSource(erpFile), events },
    );
    await shop.close();
    expect(summary.error).toBeUndefined();
    expect(summary.status).toBe('partial');
    expect(summary.counts).toMatchObject({ created: 15, deadLettered: 1 });
    expect(stored.sort()).toEqual(Array.from({ length: 16 }, (_, i) => sku(i + 1)).filter((s) => s !== sku(11)));
    expect(splits).toEqual([16, 8, 4, 2]);
    expect(requests).toBe(1 + 2 + 2 + 2 + 2);
    const [letter] = await state.deadLetters.list({ pipeline: 'products' });
    expect(letter).toMatchObject({ erpKey: sku(11), code: 'INVALID_PAYLOAD' });
    expect((await state.cursors.get('products'))?.key).toBe(sku(16));
  });
});
