import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';
import { dropFile } from '../support/files.js';

let root: string;
let inbox: string;
const open = (cfg: Partial<FileSourceConfig> & Pick<FileSourceConfig, 'format'>) =>
  createSource({ kind: 'files', folder: root }, { folder: 'inbox', stability: { mode: 'settle', settleMs: 0 }, ...cfg }, { logger: silentLogger, baseDir: root });
const put = (name: string, content: string | Buffer) => dropFile(path.join(inbox, name), content);
const failed = () => readdirSync(path.join(inbox, 'failed')).sort();

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-formats-'));
  inbox = path.join(root, 'inbox');
  mkdirSync(inbox);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('JSON, NDJSON and XML inbox sources', () => {
  it('streams a large top-level JSON array element by element, whatever characters the strings hold', async () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({ id: i + 1, note: `a "quoted" [tricky], {value} \\ ${'x'.repeat(i % 97)}`, nested: { list: [i, [i + 1]], empty: {} } }));
    put('big.json', JSON.stringify(records, null, 1));
    const items = await collect(await open({ format: 'json', key: 'id' }), {});
    expect(items.map((i) => i.record)).toEqual(records);
    expect(items.at(-1)?.position).toEqual({ value: '0000000001~big.json', key: '0000005000' });
  });

  it('reads the records array at recordsPath inside a JSON object', async () => {
    put('export.json', JSON.stringify({ meta: { count: 2 }, data: { items: [{ sku: 'A' }, { sku: 'B' }] } }));
    const items = await collect(await open({ format: 'json', recordsPath: 'data.items', key: 'sku' }), {});
    expect(items.map((i) => i.key)).toEqual(['A', 'B']);
  });

  it('reads a single top-level JSON object as one record', async () => {
    put('one.json', '  {"id": "X-1", "lines": [1, 2]}\n');
    expect((await collect(await open({ format: 'json', key: 'id' }), {})).map((i) => i.record)).toEqual([{ id: 'X-1', lines: [1, 2] }]);
  });

  it('refuses to read whole a JSON file above maxWholeFileBytes, hands the file out as one unreadable item, and says how to fix it', async () => {
    put('huge.json', JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i })) }));
    const source = await open({ format: 'json', recordsPath: 'data', maxWholeFileBytes: 1000 });
    const items = await collect(source, {});
    expect(items.map((i) => [i.key, i.refused?.code])).toEqual([['huge.json', 'FILE_UNREADABLE']]);
    await source.commit?.(items[0]?.position as (typeof items)[number]['position']);
    expect(failed()).toEqual(['huge.json', 'huge.json.error.txt']);
    const report = readFileSync(path.join(inbox, 'failed', 'huge.json.error.txt'), 'utf8');
    expect(report).toContain('raise maxWholeFileBytes');
  });

  it('hands out the records of a truncated JSON array, then the file as unreadable, and moves it to failed/', async () => {
    put('cut.json', '[{"id": 1}, {"id": 2');
    const source = await open({ format: 'json', key: 'id' });
    const items = await collect(source, {});
    expect(items.map((i) => [i.key, i.refused?.code])).toEqual([['1', undefined], ['cut.json', 'FILE_UNREADABLE']]);
    expect(items[1]?.refused?.message).toMatch(/after record 1.*truncated/);
    await source.commit?.(items[1]?.position as (typeof items)[number]['position']);
    expect(failed()).toEqual(['cut.json', 'cut.json.error.txt']);
  });

  it('reads NDJSON line by line, skipping blank lines; a line that does not parse is refused with its line and text, and the lines after it are read', async () => {
    put('a.ndjson', '{"id":1,"name":"Ä"}\r\n\r\n{"id":2,"name":"B"}\n');
    put('b.ndjson', '{"id":3}\n{"id":4,,}\n{"id":5}\n');
    const source = await open({ format: 'ndjson', key: 'id' });
    const items = await collect(source, {});
    expect(items.map((i) => i.key)).toEqual(['1', '2', '3', 'b.ndjson#line 2', '5']);
    expect(items[3]).toMatchObject({ refused: { code: 'SOURCE_BAD_JSON' }, origin: { file: 'b.ndjson', line: 2, raw: '{"id":4,,}' } });
    expect(items[3]?.refused?.message).toMatch(/^b\.ndjson line 2: not valid JSON/);
    await source.commit?.(items[4]?.position as (typeof items)[number]['position']);
    expect(readdirSync(path.join(inbox, 'archive')).sort()).toEqual(['a.ndjson', 'b.ndjson']);
  });

  it('refuses a JSON array element that is not an object or has no key, and reads the elements after it', async () => {
    put('list.json', '[{"id": 1}, 42, {"name": "no key"}, {"id": 4}]');
    const items = await collect(await open({ format: 'json', key: 'id' }), {});
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok'])).toEqual([
      ['1', 'ok'],
      ['list.json#record 2', 'SOURCE_NOT_AN_OBJECT'],
      ['list.json#record 3', 'SOURCE_KEY_MISSING'],
      ['4', 'ok'],
    ]);
    expect(items[2]).toMatchObject({ record: { name: 'no key' }, origin: { file: 'list.json', element: 3 } });
  });

  it('streams XML records at a path with attributes, CDATA, comments and repeated children kept as strings', async () => {
    const xml = `<?xml version="1.0" encoding="windows-1252"?>
<!-- export from the ERP -->
<Export><Header><Order no="ignored"/></Header>
<Orders>
  <Order no="1001" status="open"><Customer>Müller &amp; Söhne</Customer><Total>12,50</Total><Line sku="A" qty="1"/></Order>
  <Order no="1002"><Customer><![CDATA[<b>Jürgen</b>]]></Customer><Total>0042</Total><Line sku="B" qty="2"/><Line sku="C" qty="3"/></Order>
</Orders></Export>`;
    put('orders.xml', iconv.encode(xml, 'windows-1252'));
    const items = await collect(await open({ format: 'xml', encoding: 'windows-1252', recordPath: 'Export.Orders.Order', xmlArrays: ['Line'], key: '@no' }), {});
    expect(items.map((i) => i.key)).toEqual(['1001', '1002']);
    expect(items[0]?.record).toEqual({ '@no': '1001', '@status': 'open', Customer: 'Müller & Söhne', Total: '12,50', Line: [{ '@sku': 'A', '@qty': '1' }] });
    expect(items[1]?.record).toMatchObject({ Customer: '<b>Jürgen</b>', Total: '0042', Line: [{ '@sku': 'B' }, { '@sku': 'C' }] });
  });

  it('streams XML records split across read chunks', async () => {
    const body = Array.from({ length: 4000 }, (_, i) => `<Item id="${i}" note='a > b'><Name>${'n'.repeat(i % 50)}</Name></Item>`).join('\n');
    put('items.xml', `<Items>${body}</Items>`);
    const items = await collect(await open({ format: 'xml', recordPath: 'Items/Item', key: '@id' }), {});
    expect(items).toHaveLength(4000);
    expect(items[3999]?.record).toEqual({ '@id': '3999', '@note': 'a > b', Name: 'n'.repeat(3999 % 50) });
  });

  it('hands out the records of an XML file that ends inside a record, then the file as unreadable', async () => {
    put('cut.xml', '<Items><Item id="1"/><Item id="2"><Name>x</Name>');
    expect((await collect(await open({ format: 'xml', recordPath: 'Items.Item', key: '@id' }), {})).map((i) => [i.key, i.refused?.code])).toEqual([
      ['1', undefined],
      ['cut.xml', 'FILE_UNREADABLE'],
    ]);
  });

  it('refuses a malformed XML record element with its number and text, and reads the elements after it', async () => {
    put('items.xml', '<Items><Item id="1"><Name>a</Name></Item><Item id="2"><Name>b</Nme></Item><Item id="3"><Name>c</Name></Item></Items>');
    const items = await collect(await open({ format: 'xml', recordPath: 'Items.Item', key: '@id' }), {});
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok'])).toEqual([
      ['1', 'ok'],
      ['items.xml#record 2', 'SOURCE_BAD_XML'],
      ['3', 'ok'],
    ]);
    expect(items[1]?.origin).toMatchObject({ file: 'items.xml', element: 2, raw: '<Item id="2"><Name>b</Nme></Item>' });
  });

  it('refuses an XML source without recordPath at configuration time', async () => {
    await expect(open({ format: 'xml' })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});
