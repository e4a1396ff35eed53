/**
 * Reconcile and `owner: guard` (issue 46), on the sandbox over HTTP with a SQLite state: a guarded
 * description the shop's people edited is reported (and recorded) as a conflict, not as drift, and
 * `--repair` leaves it as the shop has it while it repairs the real drift; after "keep shop" it is
 * no difference at all.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConflicts } from '../../src/conflicts/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { reconcilePipeline, ReportStore } from '../../src/reconcile/index.js';
import { articlesMapping } from './support.js';
import { mappingFile, pushFixture, sqliteSource, type PushFixture } from '../pipeline/support.js';

const def = { name: 'articles', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'articles.yaml', resource: 'products' };

let f: PushFixture;
let mapping: CompiledMapping;
let reports: ReportStore;
const deps = () => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, { query: 'SELECT * FROM articles', cursor: 'updated_at', key: 'sku' }) });

async function shopProduct(sku: string): Promise<Record<string, unknown>> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === sku) return p;
  throw new Error(`${sku} is not in the shop`);
}
const description = async (sku: string) => ((await shopProduct(sku)).languages as Record<string, Record<string, unknown>>).de!.products_description;

async function inShop(sku: string, change: Record<string, unknown>): Promise<void> {
  const result = await f.shop.update('products', [{ products_id: (await shopProduct(sku)).products_id, ...change }]);
  expect(result.outcomes.every((o) => o.ok)).toBe(true);
}

beforeEach(async () => {
  f = await pushFixture();
  reports = new ReportStore(join(f.dir, 'reconcile'));
  mapping = await mappingFile(f.dir, 'articles', articlesMapping({ description: 'guard', ean: false }));
  f.erp.exec('CREATE TABLE articles (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, description TEXT, updated_at TEXT NOT NULL)');
  const insert = f.erp.prepare("INSERT INTO articles VALUES (?, ?, ?, ?, '2026-01-01 00:00:00')");
  insert.run('A-1', 'Kettle', '19.90', 'Kettle from the ERP');
  insert.run('A-2', 'Mug', '4.50', 'Mug from the ERP');
  expect((await runPipeline(def, deps())).counts.created).toBe(2);
  // The content team rewrites A-1's description in the shop; A-2 drifts the ordinary way (price edited, ERP text changed unpushed).
  await inShop('A-1', { languages: { de: { products_description: 'Kettle, as the content team writes it' } } });
  await inShop('A-2', { products_price: '9.99' });
  f.erp.prepare("UPDATE articles SET description = 'Mug, now dishwasher-safe' WHERE sku = 'A-2'").run();
});
afterEach(async () => {
  await f.close();
});

describe('reconcile with guarded fields', () => {
  it('reports a guarded field edited in the shop as a conflict with its three values, not as drift, and records it', async () => {
    const report = await reconcilePipeline(def, deps(), { reports });
    expect(report.counts).toMatchObject({ matched: 2, different: 1, conflicts: 1 });
    expect(report.drift).toBe(1);
    expect(report.different.map((d) => [d.erpKey, d.fields.map((x) => x.field).sort()])).toEqual([['A-2', ['languages.de.products_description', 'products_price']]]);
    expect(report.conflicts).toEqual([{ erpKey: 'A-1', shopId: (await shopProduct('A-1')).products_id, field: 'languages.de.products_description', erp: 'Kettle from the ERP', sent: 'Kettle from the ERP', shop: 'Kettle, as the content team writes it' }]);
    expect(await f.state.conflicts.list({ pipeline: 'articles', status: 'open' })).toMatchObject([{ erpKey: 'A-1', field: 'languages.de.products_description', shopValue: 'Kettle, as the content team writes it' }]);
  });

  it('repairs the drift and leaves the conflicting field as the shop has it', async () => {
    const report = await reconcilePipeline(def, deps(), { reports, repair: true });
    expect(report.repair).toMatchObject({ status: 'succeeded', pushed: 1, updated: 1 });
    expect(await description('A-1')).toBe('Kettle, as the content team writes it');
    expect(await description('A-2')).toBe('Mug, now dishwasher-safe');
    expect((await shopProduct('A-2')).products_price).toBe(4.5);
    const again = await reconcilePipeline(def, deps(), { reports });
    expect(again.drift).toBe(0);
    expect(again.counts.conflicts).toBe(1);
  });

  it('finds no difference in a field whose shop value a person kept, and ends a conflict the two sides agree on again', async () => {
    await reconcilePipeline(def, deps(), { reports });
    await resolveConflicts(f.state, { pipeline: 'articles', erpKey: 'A-1' }, 'shop');
    const kept = await reconcilePipeline(def, deps(), { reports });
    expect(kept.counts).toMatchObject({ different: 1, conflicts: 0 });
    expect(kept.different.map((d) => d.erpKey)).toEqual(['A-2']);

    await inShop('A-1', { languages: { de: { products_description: 'Edited once more' } } });
    expect((await reconcilePipeline(def, deps(), { reports })).counts.conflicts).toBe(1);
    f.erp.prepare("UPDATE articles SET description = 'Edited once more' WHERE sku = 'A-1'").run();
    expect((await reconcilePipeline(def, deps(), { reports })).counts.conflicts).toBe(0);
    expect(await f.state.conflicts.list({ pipeline: 'articles', erpKey: 'A-1' })).toMatchObject([{ status: 'resolved', resolution: 'agreed' }]);
  });
});
