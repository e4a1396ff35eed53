import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Source } from '../../src/erp/types.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline, type PipelineDefinitionInput } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { clientFor, createErp, mappingFile, sku, sqliteSource, tempDir, upsertProducts } from './support.js';
import { PRODUCT_MAPPING } from './support.js';

// Records that left the ERP: decided only from a complete read, deactivated (products_status 0) or
// deleted through the registry, behind the mass-deletion guard; end to end against the sandbox.

interface Fixture {
  dir: string;
  erpFile: string;
  erp: Database.Database;
  sandbox: SandboxHandle;
  shop: ShopClient;
  state: StateStore;
  mapping: CompiledMapping;
}

let f: Fixture;
beforeEach(async () => {
  const dir = tempDir('shopsync-missing-');
  const erpFile = join(dir, 'erp.sqlite');
  const erp = createErp(erpFile);
  const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  f = { dir, erpFile, erp, sandbox, shop: clientFor(sandbox), state: await openState(join(dir, 'state.db')), mapping: await mappingFile(dir, 'erp-products', PRODUCT_MAPPING) };
});
afterEach(async () => {
  await f.shop.close();
  await f.state.close();
  await f.sandbox.close();
  f.erp.close();
  rmSync(f.dir, { recursive: true, force: true });
});

function pipeline(options: Record<string, unknown> = {}): PipelineDefinitionInput {
  return { name: 'catalog', direction: 'push', source: { connection: 'erp' }, mapping: 'erp-products.yaml', resource: 'products', options: { onMissing: 'deactivate', ...options } };
}

function run(def: PipelineDefinitionInput, options: Parameters<typeof runPipeline>[2] = {}, source: () => Promise<Source> = sqliteSource(f.erpFile)) {
  return runPipeline(def, { state: f.state, shop: f.shop, mapping: f.mapping, source }, options);
}

/** products_status of every shop product, by model. */
async function statuses(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const p of f.shop.exportAll('products')) out[String(p.products_model)] = p.products_status;
  return out;
}

function removeFromErp(...numbers: number[]): void {
  for (const n of numbers) f.erp.prepare('DELETE FROM products WHERE sku = ?').run(sku(n));
}

describe('records gone from the ERP (onMissing)', () => {
  it('deactivates only after a complete read, once, and a record that comes back is active again', async () => {
    upsertProducts(f.erp, 1, 20);
    const first = await run(pipeline());
    expect(first.counts.created).toBe(20);
    expect(first.missing).toMatchObject({ decided: true, candidates: 0, total: 20 });
    removeFromErp(7);

    // An incremental read (the cursor is stored) never calls anything missing.
    const delta = await run(pipeline());
    expect(delta.missing).toMatchObject({ decided: false, candidates: 0 });
    expect(delta.missing?.why).toContain('incremental');
    expect((await statuses())[sku(7)]).toBe(1);

    const complete = await run(pipeline(), { complete: true });
    expect(complete.status).toBe('succeeded');
    expect(complete.missing).toMatchObject({ decided: true, action: 'deactivate', candidates: 1, total: 20, deactivated: 1, failed: 0 });
    const after = await statuses();
    expect(after[sku(7)]).toBe(0);
    expect(Object.values(after).filter((s) => s === 1)).toHaveLength(19);
    const events = await f.state.events.list({ runId: complete.runId, outcome: 'deactivated' });
    expect(events).toMatchObject([{ erpKey: sku(7), outcome: 'deactivated', payload: { products_status: 0 } }]);
    // The reference stays: the article is still in the shop, with its id.
    expect(await f.state.refs.get('products', sku(7))).toBeDefined();

    const again = await run(pipeline(), { complete: true });
    expect(again.missing).toMatchObject({ candidates: 0, deactivated: 0 });
    expect(again.counts.requests).toBe(0);

    upsertProducts(f.erp, 7, 7, 1, '2026-02-01 00:00:00');
    const back = await run(pipeline());
    expect(back.counts).toMatchObject({ updated: 1 });
    expect((await statuses())[sku(7)]).toBe(1);
  });

  it('refuses a mass deactivation whole, records why, and does it when allowed', async () => {
    upsertProducts(f.erp, 1, 40);
    await run(pipeline());
    removeFromErp(...Array.from({ length: 12 }, (_, i) => i + 1));

    const refused = await run(pipeline(), { complete: true });
    expect(refused.status).toBe('partial');
    expect(refused.error?.code).toBe('MASS_DELETE_REFUSED');
    expect(refused.error?.message).toContain('--allow-mass-delete');
    expect(refused.missing).toMatchObject({ decided: true, candidates: 12, total: 40, deactivated: 0, refused: { code: 'MASS_DELETE_REFUSED' } });
    expect(Object.values(await statuses()).every((s) => s === 1)).toBe(true);
    expect((await f.state.runs.get(refused.runId))?.error).toMatchObject({ code: 'MASS_DELETE_REFUSED' });

    // The guard asks again every run until someone allows it.
    expect((await run(pipeline(), { complete: true })).missing?.refused).toBeDefined();

    const allowed = await run(pipeline(), { allowMassDelete: true });
    expect(allowed.status).toBe('succeeded');
    expect(allowed.missing).toMatchObject({ candidates: 12, deactivated: 12 });
    expect(Object.values(await statuses()).filter((s) => s === 0)).toHaveLength(12);
  });

  it('deletes through the registry when onMissing is delete, and forgets the references', async () => {
    upsertProducts(f.erp, 1, 30);
    await run(pipeline({ onMissing: 'delete', massDelete: { maxShare: 0.5, maxCount: 5 } }));
    removeFromErp(3, 4, 5, 6, 7, 8);
    const refused = await run(pipeline({ onMissing: 'delete', massDelete: { maxShare: 0.5, maxCount: 5 } }), { complete: true });
    expect(refused.missing?.refused?.message).toContain('more than 5 record(s)');
    expect(Object.keys(await statuses())).toHaveLength(30);

    const allowed = await run(pipeline({ onMissing: 'delete', massDelete: { maxShare: 0.5, maxCount: 5 } }), { allowMassDelete: true });
    expect(allowed.missing).toMatchObject({ candidates: 6, deleted: 6, failed: 0 });
    const left = Object.keys(await statuses());
    expect(left).toHaveLength(24);
    expect(left).not.toContain(sku(3));
    expect(await f.state.refs.get('products', sku(3))).toBeUndefined();
    expect(await f.state.refs.count('products')).toBe(24);
    expect((await f.state.events.list({ runId: allowed.runId, outcome: 'deleted' })).map((e) => e.erpKey).sort()).toEqual([3, 4, 5, 6, 7, 8].map(sku));
  });

  it('holds back records flagged inactive and deactivates them even in an incremental run', async () => {
    f.erp.exec('ALTER TABLE products ADD COLUMN active TEXT NOT NULL DEFAULT \'J\'');
    upsertProducts(f.erp, 1, 25);
    const def = pipeline({ inactiveWhen: { field: 'active', values: ['N'] } });
    await run(def);
    f.erp.prepare("UPDATE products SET active = 'N', name = 'changed', updated_at = '2026-03-01 00:00:00' WHERE sku = ?").run(sku(2));
    const delta = await run(def);
    expect(delta.counts).toMatchObject({ read: 1, updated: 0 });
    expect(delta.missing).toMatchObject({ decided: false, candidates: 1, deactivated: 1 });
    const shop = await statuses();
    expect(shop[sku(2)]).toBe(0);
  });

  it('decides nothing from a read that failed, and plans deactivations in a dry run', async () => {
    upsertProducts(f.erp, 1, 20);
    await run(pipeline());
    removeFromErp(20);
    // The source breaks after five records: the other fourteen are not "gone".
    const broken = async (): Promise<Source> => {
      const inner = await sqliteSource(f.erpFile)();
      return {
        kind: 'sqlite',
        readsAll: true,
        async *read(options) {
          let n = 0;
          for await (const item of inner.read(options)) {
            if (++n > 5) throw new Error('connection reset by the ERP');
            yield item;
          }
        },
        close: () => inner.close(),
      };
    };
    const failed = await run(pipeline(), { complete: true }, broken);
    expect(failed.status).toBe('failed');
    expect(failed.missing).toBeUndefined();
    expect(Object.values(await statuses()).every((s) => s === 1)).toBe(true);

    const dry = await run(pipeline(), { mode: 'dry-run', complete: true });
    expect(dry.missing).toMatchObject({ decided: true, candidates: 1, deactivated: 0 });
    expect(dry.plan?.filter((p) => p.action === 'deactivate')).toMatchObject([{ erpKey: sku(20), reason: expect.stringContaining('gone from the ERP'), payload: { products_status: 0 } }]);
    expect((await statuses())[sku(20)]).toBe(1);
  });

  it('refuses onMissing: deactivate when the mapping does not write the status back', async () => {
    upsertProducts(f.erp, 1, 2);
    f.mapping = await mappingFile(f.dir, 'no-status', PRODUCT_MAPPING.replace('  products_status: { value: 1 }\n', '').replace('name: erp-products', 'name: no-status'));
    const summary = await run(pipeline());
    expect(summary.status).toBe('failed');
    expect(summary.error?.message).toContain('does not write products_status');
  });
});
