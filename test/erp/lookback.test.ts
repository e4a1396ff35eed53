/**
 * A row committed late carries a cursor value older than the stored cursor: a long ERP transaction
 * stamps `changed` at its start, an application server's clock runs behind. A read strictly after
 * the cursor skips it for good; a read with `lookback` delivers it, and the rows read again
 * unchanged cost no shop request.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { durationSchema, lookedBack } from '../../src/erp/sql/lookback.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, sqliteSource, type PushFixture } from '../pipeline/support.js';

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec('CREATE TABLE art (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INTEGER, changed TEXT NOT NULL)');
});
afterEach(async () => {
  await f.close();
});

const def = (name: string) => ({ name, direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' });
const put = (sku: string, price: string, changed: string) => f.erp.prepare('INSERT OR REPLACE INTO art VALUES (?, ?, ?, 1, ?)').run(sku, `Artikel ${sku}`, price, changed);
async function requests(): Promise<number> {
  const res = await fetch(`${f.sandbox.url}/sandbox/traffic`, { headers: { authorization: `Bearer ${f.sandbox.token}` } });
  return ((await res.json()) as { requests: number }).requests;
}

describe('lookback on an incremental SQL read', () => {
  it('delivers a row stamped before the stored cursor (a late commit, a clock 90 s behind) once, by default, with no request for the unchanged rows around it; with lookback 0 it is skipped', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    for (const [name, lookback] of [['with', undefined], ['without', 0]] as const) {
      f.erp.exec('DELETE FROM art');
      const prefix = `${name}-`;
      put(`${prefix}L-2`, '2.00', '2026-11-26 12:00:30');
      put(`${prefix}L-3`, '3.00', '2026-11-26 12:01:00');
      const source = sqliteSource(f.erpFile, { query: 'SELECT * FROM art', cursor: 'changed', key: 'sku', ...(lookback !== undefined ? { lookback } : {}) });
      const first = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
      expect(first.counts).toMatchObject({ created: 2 });
      // Committed now, stamped 90 s before the cursor (12:01:00): a long transaction, or a clock behind.
      put(`${prefix}L-1`, '1.00', '2026-11-26 11:59:30');
      const before = await requests();
      const second = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
      const shop = new Set((await shopRecords(f.shop, 'products')).map((p) => String(p.products_model)));
      if (lookback === undefined) {
        // The default window (5 minutes): L-2 and L-3 are read again, settled quietly by their source hash; only L-1 counts.
        expect(second.counts).toMatchObject({ read: 1, created: 1, unchanged: 0, updated: 0 });
        expect(shop.has(`${prefix}L-1`)).toBe(true);
        // One request: the create of L-1 (its lookup and the batch); nothing for L-2 and L-3.
        expect((await requests()) - before).toBeLessThanOrEqual(2);
        const third = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
        expect(third.counts).toMatchObject({ read: 0, created: 0, updated: 0, unchanged: 0 });
      } else {
        expect(second.counts).toMatchObject({ read: 0, created: 0 });
        expect(shop.has(`${prefix}L-1`)).toBe(false);
      }
    }
  });

  it('leaves a dead-lettered row read again unchanged as it is: the next run succeeds, its letter counts no new attempt; once fixed in the window it is delivered', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    const source = sqliteSource(f.erpFile, { query: 'SELECT * FROM art', cursor: 'changed', key: 'sku' });
    put('G-1', '1.00', '2026-11-26 12:00:00');
    put('B-1', 'one euro', '2026-11-26 12:00:10');
    const first = await runPipeline(def('letters'), { state: f.state, shop: f.shop, mapping, source });
    expect(first).toMatchObject({ status: 'partial', counts: { created: 1, failed: 1 } });
    const again = await runPipeline(def('letters'), { state: f.state, shop: f.shop, mapping, source });
    expect(again).toMatchObject({ status: 'succeeded', counts: { read: 0, failed: 0, deadLettered: 0, unchanged: 0 } });
    expect((await f.state.deadLetters.getByKey('letters', 'B-1'))?.attempts).toBe(1);
    // Fixed without touching `changed` (a correction inside the window): the changed record is no longer the letter's.
    put('B-1', '1.50', '2026-11-26 12:00:10');
    const fixed = await runPipeline(def('letters'), { state: f.state, shop: f.shop, mapping, source });
    expect(fixed).toMatchObject({ status: 'succeeded', counts: { read: 1, created: 1, failed: 0 } });
    expect(await f.state.deadLetters.getByKey('letters', 'B-1')).toBeUndefined();
  });

  it('takes a duration with a unit, or milliseconds as a number or as text (a ${VAR} setting)', () => {
    expect(['5m', '90s', '1h', '500ms', 0, '0', '300000', 300000].map((d) => durationSchema.parse(d))).toEqual([300_000, 90_000, 3_600_000, 500, 0, 0, 300_000, 300_000]);
    expect(durationSchema.safeParse('5 minutes').success).toBe(false);
  });

  it('starts the window before the cursor as the source writes its values', () => {
    expect(lookedBack({ value: '2026-11-26 12:01:00', key: 'A' }, 300_000)).toEqual({ value: '2026-11-26 11:56:00', key: null });
    expect(lookedBack({ value: '2026-11-26T00:02:00.000Z', key: 'A' }, 300_000)).toEqual({ value: '2026-11-25T23:57:00.000Z', key: null });
    expect(lookedBack({ value: '2026-11-26 00:01', key: 'A' }, 120_000)).toEqual({ value: '2026-11-25 23:59', key: null });
    expect(lookedBack({ value: '2026-11-26 12:00:00.123456', key: 'A' }, 1000)).toEqual({ value: '2026-11-26 11:59:59.123456', key: null });
    expect(lookedBack({ value: '2026-11-26', key: 'A' }, 300_000)).toEqual({ value: '2026-11-26', key: null });
    // An offset stays the offset it was written in, digits as many as written: text order stays time order.
    expect(lookedBack({ value: '2026-11-26T12:01:00-05:00', key: 'A' }, 300_000)).toEqual({ value: '2026-11-26T11:56:00-05:00', key: null });
    expect(lookedBack({ value: '2026-11-26T12:01:00.123456Z', key: 'A' }, 300_000)).toEqual({ value: '2026-11-26T11:56:00.123456Z', key: null });
    // PostgreSQL's text output of a timestamptz (`now()::text` kept in a TEXT column): space, short offset.
    expect(lookedBack({ value: '2026-11-26 00:01:00.5+01', key: 'A' }, 120_000)).toEqual({ value: '2026-11-25 23:59:00.5+01', key: null });
    expect(lookedBack({ value: 4711, key: 'A' }, 300_000)).toBeUndefined();
    expect(lookedBack({ value: '2026-11-26 12:01:00', key: 'A' }, 0)).toBeUndefined();
  });
});
