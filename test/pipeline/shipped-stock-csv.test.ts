import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, type PushFixture } from './support.js';

// The shipped flat stock mapping fed by a Windows-1252 ';' CSV drop: one row per article and Lager.
const def = { name: 'stock-files', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'stock-per-warehouse.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  mkdirSync(path.join(f.dir, 'inbox'));
  const p = await f.shop.create('products', [
    { products_model: 'ART-1', products_price: '10.00', languages: { de: { products_name: 'Eins' } }, storages: [{ storages_id: 1, products_quantity: 12, products_safe_quantity: 2 }, { storages_id: 3, products_quantity: 4, products_safe_quantity: 1 }] },
  ]);
  expect(p.outcomes[0]!.error).toBeUndefined();
});
afterEach(async () => {
  await f.close();
});

const drop = (name: string, text: string) => writeFileSync(path.join(f.dir, 'inbox', name), iconv.encode(text.replace(/\n/g, '\r\n'), 'win1252'));
const source = () => createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' }, key: 'ARTNR', stability: { mode: 'settle', settleMs: 0 } } as never, { logger: silentLogger, baseDir: f.dir });
const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/stock-per-warehouse.yaml')), source });
async function stock(): Promise<Record<number, number>> {
  const p = (await f.shop.exportOne('products', 1))!;
  return Object.fromEntries((p.storages as { storages_id: number; products_quantity: unknown }[]).map((s) => [s.storages_id, Number(s.products_quantity)]));
}

describe('shipped flat stock mapping from a CSV drop', () => {
  it('applies both warehouse rows of one article, reads 50,5 as 50.5, and refuses a row with an empty stock cell', async () => {
    drop('lager-1.csv', 'ARTNR;Lager;Bestand;Mindestbestand;Lagerplatz\nART-1;1;50,5;2;Regal Ä1\nART-1;2;7;1;Süd\n');
    expect((await run()).counts).toMatchObject({ updated: 2, deadLettered: 0 });
    expect(await stock()).toEqual({ 1: 50.5, 3: 7 });

    drop('lager-2.csv', 'ARTNR;Lager;Bestand;Mindestbestand;Lagerplatz\nART-1;1;;2;Regal Ä1\nART-1;2;1.234;1;Süd\n');
    expect((await run()).counts).toMatchObject({ updated: 1, deadLettered: 1 });
    expect(await stock()).toEqual({ 1: 50.5, 3: 1234 });
  });

  it('keeps the letter of a refused warehouse row when another row of the same article lands, and a hash per row', async () => {
    drop('lager-1.csv', 'ARTNR;Lager;Bestand;Mindestbestand;Lagerplatz\nART-1;1;;2;Regal\nART-1;2;7;1;Süd\n');
    expect((await run()).counts).toMatchObject({ updated: 1, deadLettered: 1 });
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([expect.objectContaining({ erpKey: 'ART-1 [1]', code: 'MAPPING_REQUIRED' })]);
    expect(await stock()).toEqual({ 1: 12, 3: 7 });

    // The Lager 1 row fixed, the Lager 2 row unchanged: only the fixed row goes out, and its letter is resolved.
    drop('lager-2.csv', 'ARTNR;Lager;Bestand;Mindestbestand;Lagerplatz\nART-1;1;9;2;Regal\nART-1;2;7;1;Süd\n');
    expect((await run()).counts).toMatchObject({ updated: 1, unchanged: 1, deadLettered: 0 });
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);
    expect(await stock()).toEqual({ 1: 9, 3: 7 });
  });
});
