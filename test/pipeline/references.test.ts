/**
 * Records that refer to a record created in the same run (a sub-category read before its parent):
 * the push maps them again once the parent has settled, instead of dead-lettering them.
 */
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { retryDeadLetters, runPipeline, SyncEvents, type SyncEvent } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

const def = { name: 'categories', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'categories.yaml', resource: 'categories', batchSize: 2 };
const SOURCE = { query: 'SELECT * FROM warengruppen', cursor: 'Geaendert', key: 'WGR' };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  // The shipped categories mapping: parent_id is a lookup of the parent's reference, without a default.
  mapping = await loadMapping(resolve(import.meta.dirname, '..', '..', 'mappings', 'categories.yaml'));
  f.erp.exec('CREATE TABLE warengruppen (WGR TEXT PRIMARY KEY, Ueber_WGR TEXT, Bezeichnung TEXT NOT NULL, Aktiv TEXT, Sortierung INTEGER, Geaendert TEXT NOT NULL)');
});
afterEach(async () => {
  await f.close();
});

/** Add Warengruppen as [key, parent, name, changed at]. */
function groups(rows: readonly (readonly [string, string | null, string, string])[]): void {
  const insert = f.erp.prepare("INSERT OR REPLACE INTO warengruppen (WGR, Ueber_WGR, Bezeichnung, Aktiv, Sortierung, Geaendert) VALUES (?, ?, ?, 'J', 1, ?)");
  for (const r of rows) insert.run(...r);
}

async function shopCategories(): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const c of f.shop.exportAll('categories')) out.push(c);
  return out;
}

const deps = (events?: SyncEvents) => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE), ...(events ? { events } : {}) });

describe('references to records created in the same run', () => {
  it('lands a sub-category read before its parent under that parent, without a dead letter', async () => {
    groups([
      ['W-CHILD', 'W-PARENT', 'Akkuschrauber', '2026-01-01 00:00:00'],
      ['W-OTHER-1', null, 'Garten', '2026-01-01 00:00:01'],
      ['W-OTHER-2', null, 'Haushalt', '2026-01-01 00:00:02'],
      ['W-PARENT', null, 'Werkzeug', '2026-01-01 00:00:03'],
    ]);
    const events = new SyncEvents();
    const seen: SyncEvent[] = [];
    events.onAny((e) => seen.push(e));
    const summary = await runPipeline(def, deps(events));
    expect(summary).toMatchObject({ status: 'succeeded', counts: { read: 4, created: 4, deadLettered: 0, failed: 0 } });
    expect(await f.state.deadLetters.list({ pipeline: 'categories' })).toEqual([]);

    const parentId = (await f.state.refs.get('categories', 'W-PARENT'))!.shopId;
    const childId = (await f.state.refs.get('categories', 'W-CHILD'))!.shopId;
    const child = (await shopCategories()).find((c) => c.categories_id === childId);
    expect(child?.parent_id).toBe(parentId);

    // The child was read first: no checkpoint may come before it settled (it was in flight while it waited).
    const childSettled = seen.findIndex((e) => e.type === 'record-settled' && e.erpKey === 'W-CHILD');
    const firstCheckpoint = seen.findIndex((e) => e.type === 'checkpoint');
    expect(childSettled).toBeGreaterThanOrEqual(0);
    expect(firstCheckpoint).toBeGreaterThan(childSettled);
    expect(await f.state.cursors.get('categories')).toMatchObject({ value: '2026-01-01 00:00:03', key: 'W-PARENT' });

    // Nothing changed: the next run sends nothing.
    expect((await runPipeline(def, deps())).counts).toMatchObject({ read: 0, requests: 0 });
  });

  it('resolves a tree three levels deep read leaves first', async () => {
    groups([
      ['W-3', 'W-2', 'Bits', '2026-01-01 00:00:00'],
      ['W-2', 'W-1', 'Akkuschrauber', '2026-01-01 00:00:01'],
      ['W-1', null, 'Werkzeug', '2026-01-01 00:00:02'],
    ]);
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'succeeded', counts: { created: 3, deadLettered: 0 } });
    const byId = new Map((await shopCategories()).map((c) => [c.categories_id, c]));
    const id = async (k: string) => (await f.state.refs.get('categories', k))!.shopId;
    expect(byId.get(await id('W-3'))?.parent_id).toBe(await id('W-2'));
    expect(byId.get(await id('W-2'))?.parent_id).toBe(await id('W-1'));
    expect(byId.get(await id('W-1'))?.parent_id).toBe(0);
  });

  it('dead-letters a record whose parent is not in the run either, with the lookup reason, and delivers it once the parent comes', async () => {
    groups([
      ['W-ORPHAN', 'W-MISSING', 'Waise', '2026-01-01 00:00:00'],
      ['W-ROOT', null, 'Werkzeug', '2026-01-01 00:00:01'],
    ]);
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 1 } });
    const [letter] = await f.state.deadLetters.list({ pipeline: 'categories' });
    expect(letter).toMatchObject({ erpKey: 'W-ORPHAN', code: 'MAPPING_LOOKUP' });
    expect(letter!.reason).toContain('W-MISSING');
    // The orphan settled (dead-lettered), so the cursor moved past it.
    expect(await f.state.cursors.get('categories')).toMatchObject({ key: 'W-ROOT' });

    // The next run that brings the parent also tries the waiting letter again: both land, no manual retry needed.
    groups([['W-MISSING', null, 'Zubehör', '2026-01-01 00:00:02']]);
    expect((await runPipeline(def, deps())).counts).toMatchObject({ created: 2, deadLettered: 0 });
    expect(await f.state.deadLetters.list({ pipeline: 'categories' })).toHaveLength(0);
    expect((await retryDeadLetters(def, deps())).counts).toMatchObject({ read: 0 });
    const orphanId = (await f.state.refs.get('categories', 'W-ORPHAN'))!.shopId;
    const orphan = (await shopCategories()).find((c) => c.categories_id === orphanId);
    expect(orphan?.parent_id).toBe((await f.state.refs.get('categories', 'W-MISSING'))!.shopId);
  });

  it('still plans a dry run without waiting (it creates no parent)', async () => {
    groups([
      ['W-CHILD', 'W-PARENT', 'Akkuschrauber', '2026-01-01 00:00:00'],
      ['W-PARENT', null, 'Werkzeug', '2026-01-01 00:00:01'],
    ]);
    const summary = await runPipeline(def, deps(), { mode: 'dry-run' });
    expect(summary.plan?.map((p) => [p.erpKey, p.action])).toEqual([
      ['W-CHILD', 'fail'],
      ['W-PARENT', 'create'],
    ]);
  });
});

describe('the run\'s reference cache', () => {
  it('keeps the references of the batch being read when it passes its limit, so a known record is never taken for a new one', async () => {
    const { BatchState, ReferenceCache } = await import('../../src/pipeline/references.js');
    await f.state.write((tx) => {
      for (let i = 0; i < 30; i++) tx.refs.put('products', `P${i}`, 1000 + i);
    });
    const cache = new ReferenceCache(f.state, 10);
    const batch = new BatchState(f.state, cache, 'products-push', 'products');
    for (const keys of [['P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7'], ['P8', 'P9', 'P10', 'P11', 'P12', 'P13'], ['P2', 'P20', 'P21', 'P22', 'P23', 'P24', 'P25', 'P26']]) {
      await batch.load(keys, keys);
      // Another batch settling meanwhile remembers references of its own.
      cache.remember('products', 'OTHER', 1);
      for (const k of keys) expect(await batch.reference(k)).toBe(1000 + Number(k.slice(1)));
    }
  });
});
