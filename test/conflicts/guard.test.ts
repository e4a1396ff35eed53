/**
 * Who owns a field (issue 46), on the sandbox over HTTP with a SQLite state: a description edited in
 * the shop (through the shop's API, as its people would) survives the next ERP push when the field is
 * `owner: guard`, is reported as a conflict with its three values, and taking the ERP's or keeping
 * the shop's value resolves it; with the default `owner: erp` the edit is overwritten, as always; an
 * `owner: shop` field is sent on create only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConflicts } from '../../src/conflicts/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { articlesMapping } from './support.js';
import { mappingFile, pushFixture, setFaults, sqliteSource, type PushFixture } from '../pipeline/support.js';

const def = { name: 'articles', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'articles.yaml', resource: 'products', batchSize: 10 };


let f: PushFixture;
let mapping: CompiledMapping;
let tick = 0;

/** Change an article in the ERP (its change time moves on, so an incremental sync reads it). */
function erpChange(sku: string, set: Record<string, string>): void {
  tick++;
  const cols = Object.keys(set).map((c) => `${c} = @${c}`).join(', ');
  f.erp.prepare(`UPDATE articles SET ${cols}, updated_at = @at WHERE sku = @sku`).run({ ...set, sku, at: `2026-01-01 00:00:${String(tick).padStart(2, '0')}` });
}

const deps = () => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, { query: 'SELECT * FROM articles', cursor: 'updated_at', key: 'sku' }) });
const sync = () => runPipeline(def, deps());

async function shopProduct(sku: string): Promise<Record<string, unknown>> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === sku) return p;
  throw new Error(`${sku} is not in the shop`);
}
const description = async (sku: string) => ((await shopProduct(sku)).languages as Record<string, Record<string, unknown>>).de!.products_description;

/** What the shop's content team does: edit the description in the shop's administration (its API). */
async function editInShop(sku: string, text: string): Promise<void> {
  const p = await shopProduct(sku);
  const result = await f.shop.update('products', [{ products_id: p.products_id, languages: { de: { products_description: text } } }]);
  expect(result.outcomes.every((o) => o.ok)).toBe(true);
}

beforeEach(async () => {
  f = await pushFixture();
  tick = 0;
  f.erp.exec('CREATE TABLE articles (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, ean TEXT, description TEXT, updated_at TEXT NOT NULL)');
  const insert = f.erp.prepare("INSERT INTO articles VALUES (?, ?, ?, ?, ?, '2026-01-01 00:00:00')");
  insert.run('A-1', 'Kettle', '19.90', '4006381333931', 'ERP text v1');
  insert.run('A-2', 'Mug', '4.50', '4006381333948', 'Mug from the ERP');
});
afterEach(async () => {
  await f.close();
});

describe('owner: guard', () => {
  beforeEach(async () => {
    mapping = await mappingFile(f.dir, 'articles', articlesMapping({ description: 'guard' }));
    expect(await sync()).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    await editInShop('A-1', 'Shop text, rewritten by the content team');
  });

  it('keeps a description edited in the shop on the next ERP push, writes the rest of the record, and reports a conflict with the three values', async () => {
    erpChange('A-1', { description: 'ERP text v2', price: '21.90' });
    const run = await sync();
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 1, updated: 1, conflicts: 1 } });
    expect(await description('A-1')).toBe('Shop text, rewritten by the content team');
    expect((await shopProduct('A-1')).products_price).toBe(21.9);

    const [conflict, ...more] = await f.state.conflicts.list({ pipeline: 'articles' });
    expect(more).toEqual([]);
    expect(conflict).toMatchObject({
      erpKey: 'A-1',
      field: 'languages.de.products_description',
      erpValue: 'ERP text v2',
      sentValue: 'ERP text v1',
      shopValue: 'Shop text, rewritten by the content team',
      status: 'open',
      shopId: (await shopProduct('A-1')).products_id,
      runId: run.runId,
    });
    expect(conflict?.resolution).toBeUndefined();
    // The record's event says it too, next to the payload that went out without the description.
    const [event] = await f.state.events.list({ runId: run.runId, outcome: 'updated' });
    expect(event?.warnings).toEqual([expect.objectContaining({ code: 'FIELD_CONFLICT', message: expect.stringContaining('shopsync conflicts resolve articles A-1 languages.de.products_description --take erp') })]);
    expect(event?.payload).toMatchObject({ products_price: '21.90', languages: { de: { products_name: 'Kettle' } } });
    expect(JSON.stringify(event?.payload)).not.toContain('ERP text v2');
    expect((await f.state.runs.get(run.runId))?.counts.conflicts).toBe(1);
  });

  it('sends the ERP value once "take ERP" is chosen, on the next run, and closes the conflict', async () => {
    erpChange('A-1', { description: 'ERP text v2' });
    await sync();
    const decided = await resolveConflicts(f.state, { pipeline: 'articles', erpKey: 'A-1' }, 'erp');
    expect(decided).toMatchObject([{ status: 'open', resolution: 'erp' }]);
    // Nothing changed in the ERP: the run still sends the taken value (an incremental read would not read A-1 again).
    const next = await sync();
    expect(next).toMatchObject({ status: 'succeeded', counts: { read: 0, updated: 1 } });
    expect(await description('A-1')).toBe('ERP text v2');
    expect(await f.state.conflicts.list({ pipeline: 'articles', status: 'open' })).toEqual([]);
    expect(await f.state.conflicts.list({ pipeline: 'articles' })).toMatchObject([{ status: 'resolved', resolution: 'erp', resolvedAt: expect.any(String) }]);
    // Once: the run after it has nothing to do.
    expect((await sync()).counts).toMatchObject({ updated: 0, requests: 0 });
    // And the ERP's next change reaches the shop again, the shop holding what was last sent.
    erpChange('A-1', { description: 'ERP text v3' });
    expect((await sync()).counts).toMatchObject({ updated: 1 });
    expect(await description('A-1')).toBe('ERP text v3');
  });

  it('accepts the shop\'s value as the last sent on "keep shop": no conflict and no request until the ERP changes the field again', async () => {
    erpChange('A-1', { description: 'ERP text v2' });
    await sync();
    expect(await resolveConflicts(f.state, { pipeline: 'articles', erpKey: 'A-1', field: 'languages.de.products_description' }, 'shop')).toMatchObject([{ status: 'resolved', resolution: 'shop' }]);
    expect((await sync()).counts).toMatchObject({ updated: 0, requests: 0 });
    erpChange('A-1', { price: '22.90' });
    expect((await sync()).counts).toMatchObject({ updated: 1 });
    expect(await description('A-1')).toBe('Shop text, rewritten by the content team');
    expect(await f.state.conflicts.list({ pipeline: 'articles', status: 'open' })).toEqual([]);
    // The shop holds what counts as last sent now: the ERP's next description goes out.
    erpChange('A-1', { description: 'ERP text v3' });
    const run = await sync();
    expect(run.counts).toMatchObject({ updated: 1 });
    expect(run.counts.conflicts).toBeUndefined();
    expect(await description('A-1')).toBe('ERP text v3');
  });

  it('ends an open conflict as agreed when the ERP comes to the shop\'s value', async () => {
    erpChange('A-1', { description: 'ERP text v2' });
    await sync();
    erpChange('A-1', { description: 'Shop text, rewritten by the content team' });
    await sync();
    expect(await f.state.conflicts.list({ pipeline: 'articles' })).toMatchObject([{ status: 'resolved', resolution: 'agreed' }]);
    expect((await f.state.sentValues.get('articles', ['A-1'])).get('A-1')?.get('languages.de.products_description')).toStrictEqual({ value: 'Shop text, rewritten by the content team' });
  });

  it('shows in a dry run the field it would hold, and records no conflict', async () => {
    erpChange('A-1', { description: 'ERP text v2', price: '21.90' });
    const dry = await runPipeline(def, deps(), { mode: 'dry-run' });
    expect(dry.counts).toMatchObject({ updated: 1, conflicts: 1 });
    const planned = dry.plan?.find((p) => p.erpKey === 'A-1');
    expect(planned).toMatchObject({ action: 'update', payload: { products_price: '21.90' }, warnings: [expect.objectContaining({ code: 'FIELD_CONFLICT' })] });
    expect(JSON.stringify(planned?.payload)).not.toContain('ERP text v2');
    expect(await f.state.conflicts.list({})).toEqual([]);
  });

  it('writes the ERP\'s change of a guarded field the shop did not touch, as any other field', async () => {
    erpChange('A-2', { description: 'Mug, now dishwasher-safe' });
    const run = await sync();
    expect(run.counts).toMatchObject({ updated: 1 });
    expect(run.counts.conflicts).toBeUndefined();
    expect(await description('A-2')).toBe('Mug, now dishwasher-safe');
  });

  it('holds the field and says so when the shop\'s record cannot be read, and compares again when the record is read next', async () => {
    erpChange('A-1', { description: 'ERP text v2', price: '21.90' });
    // Every second request refused: a throwaway one first, so the guard's read is refused and the update after it goes through.
    await setFaults(f.sandbox, { error_rate: 0.5, error_status: 403 });
    await f.shop.exportPages('products', { pageSize: 1 })[Symbol.asyncIterator]().next();
    const run = await sync();
    await setFaults(f.sandbox, { error_rate: 0 });
    expect(run).toMatchObject({ status: 'succeeded', counts: { updated: 1, conflicts: 1 } });
    expect((await shopProduct('A-1')).products_price).toBe(21.9);
    expect(await description('A-1')).toBe('Shop text, rewritten by the content team');
    const [event] = await f.state.events.list({ runId: run.runId, outcome: 'updated' });
    expect(event?.warnings).toEqual([expect.objectContaining({ code: 'GUARD_FIELD_UNREAD', message: expect.stringContaining("the shop's current value could not be read") })]);
    // Not compared is not a conflict; its hash was not stored, so the next read of the record compares it.
    expect(await f.state.conflicts.list({ pipeline: 'articles' })).toEqual([]);
    erpChange('A-1', { name: 'Kettle' });
    expect((await sync()).counts).toMatchObject({ updated: 1, conflicts: 1 });
    expect(await f.state.conflicts.list({ pipeline: 'articles', status: 'open' })).toMatchObject([{ erpKey: 'A-1', erpValue: 'ERP text v2', sentValue: 'ERP text v1' }]);
  });
});

describe('owner: erp (the default)', () => {
  it('overwrites a description edited in the shop with the ERP\'s on the next push that carries it, as it always did', async () => {
    mapping = await mappingFile(f.dir, 'articles', articlesMapping());
    await sync();
    await editInShop('A-1', 'Shop text, rewritten by the content team');
    erpChange('A-1', { price: '21.90' });
    const run = await sync();
    expect(run.counts).toMatchObject({ updated: 1 });
    expect(run.counts.conflicts).toBeUndefined();
    expect(await description('A-1')).toBe('ERP text v1');
    expect(await f.state.conflicts.list({})).toEqual([]);
  });
});

describe('owner: shop', () => {
  beforeEach(async () => {
    mapping = await mappingFile(f.dir, 'articles', articlesMapping({ ean: 'shop' }));
    await sync();
  });

  it('sends the field on create only', async () => {
    expect((await shopProduct('A-1')).products_ean).toBe('4006381333931');
  });

  it('makes no request when the ERP changes only that field, and leaves the shop\'s value', async () => {
    erpChange('A-1', { ean: '4006381999999' });
    const run = await sync();
    expect(run.counts).toMatchObject({ read: 1, unchanged: 1, updated: 0, requests: 0 });
    expect((await shopProduct('A-1')).products_ean).toBe('4006381333931');
  });

  it('leaves the field out of an update for another change, whatever the shop has made of it', async () => {
    await f.shop.update('products', [{ products_id: (await shopProduct('A-1')).products_id, products_ean: '4006381000000' }]);
    erpChange('A-1', { ean: '4006381999999', price: '21.90' });
    const run = await sync();
    expect(run.counts).toMatchObject({ updated: 1 });
    const p = await shopProduct('A-1');
    expect(p.products_price).toBe(21.9);
    expect(p.products_ean).toBe('4006381000000');
    const [event] = await f.state.events.list({ runId: run.runId, outcome: 'updated' });
    expect(event?.payload).not.toHaveProperty('products_ean');
  });
});
