import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, setFaults, shopRecords, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', options: { maxAttempts: 2 } };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture({ retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
});
afterEach(async () => {
  await f.close();
});

describe('a sync that cannot go on never stops silently', () => {
  it('marks a run failed with its reason when the shop stays unreachable, keeps the cursor, and the next run delivers everything', async () => {
    const mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    upsertProducts(f.erp, 1, 5);
    await setFaults(f.sandbox, { error_rate: 1 });
    const failed = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) });
    await setFaults(f.sandbox, { error_rate: 0 });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: expect.any(String), message: expect.stringMatching(/attempts/) });
    const row = (await f.state.runs.list({ pipeline: 'products' }))[0]!;
    expect(row).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(row)).toMatch(/attempts/);
    expect(await f.state.cursors.get('products')).toBeUndefined();
    expect(await f.state.deadLetters.list({ pipeline: 'products' })).toHaveLength(0);

    const next = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) });
    expect(next).toMatchObject({ status: 'succeeded', counts: { created: 5 } });
    expect(await shopRecords(f.shop, 'products')).toHaveLength(5);
  });

  it('marks a run failed when the ERP source cannot be read, and moves nothing', async () => {
    const mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
    const broken = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, { query: 'SELECT * FROM artikel_missing', cursor: 'updated_at', key: 'sku' }) });
    expect(broken.status).toBe('failed');
    expect(broken.error?.code).toMatch(/^CONNECTOR_/);
    expect((await f.state.runs.list({ pipeline: 'products' }))[0]).toMatchObject({ status: 'failed' });
    expect(await f.state.cursors.get('products')).toBeUndefined();
  });
});
