/**
 * Duplicate keys in a file source (issue 40, item 1): a file source cannot be asked which rows the
 * ERP holds, so it is judged on what it delivered. Within one file, two different rows of one key
 * are refused together; two files are two deliveries, and the later one's row is the newer version.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { dropFile } from '../support/files.js';
import { mappingFile, pushFixture, shopRecords, type PushFixture } from './support.js';

const MAPPING = `
name: articles
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: code
shop_key: products_model
fields:
  products_model: code
  languages.de.products_name: name
  products_price: { from: price, type: decimal, locale: point }
  products_quantity: { value: 1 }
`;
const def = { name: 'articles', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'articles.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  mkdirSync(path.join(f.dir, 'inbox'));
});
afterEach(async () => {
  await f.close();
});

const put = (name: string, content: string) => dropFile(path.join(f.dir, 'inbox', name), content);
const source = () => createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', key: 'code', stability: { mode: 'settle', settleMs: 0 } } as never, { logger: silentLogger, baseDir: f.dir });
const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'articles', MAPPING), source });
const names = async () => Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [p.products_model, (p.languages as { de?: { products_name?: unknown } }).de?.products_name]));

describe('duplicate keys in a file source', () => {
  it('refuses two different rows of one key in one file together and delivers the rest', async () => {
    await put('articles.csv', 'code,name,price\nART-1,Old kettle,9.00\nART-2,Teapot,5.00\nART-1,New kettle,12.00\n');
    const summary = await run();
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 2 } });
    expect(await names()).toEqual({ 'ART-2': 'Teapot' });
    const [letter] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letter).toMatchObject({ erpKey: 'ART-1', code: 'SOURCE_DUPLICATE_KEY' });
    expect(letter?.reason).toContain('ERP key ART-1: this read brought 2 different rows (row 1: name "Old kettle", price "9.00"; row 2: name "New kettle", price "12.00")');
  });

  it('takes the same key in two files as two deliveries: the later file wins', async () => {
    await put('a.csv', 'code,name,price\nART-1,Kettle,9.00\n');
    await put('b.csv', 'code,name,price\nART-1,Kettle,11.00\n');
    expect((await run()).status).toBe('succeeded');
    const [p] = await shopRecords(f.shop, 'products');
    expect(Number(p?.products_price)).toBe(11);
  });
});
