import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig, type SourceItem } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';
import { dropFile } from '../support/files.js';

let root: string;
let inbox: string;
const conn = () => ({ kind: 'files' as const, folder: root });
const ctx = () => ({ logger: silentLogger, baseDir: root });
const now = { mode: 'settle' as const, settleMs: 0 };
type Input = Partial<Omit<FileSourceConfig, 'csv'>> & { csv?: Partial<FileSourceConfig['csv']> };
const open = (cfg: Input = {}) => createSource(conn(), { folder: 'inbox', format: 'csv', stability: now, ...cfg }, ctx());
const put = (name: string, content: string | Buffer) => dropFile(path.join(inbox, name), content);
const ls = (sub = '') => readdirSync(path.join(inbox, sub)).sort();

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-files-'));
  inbox = path.join(root, 'inbox');
  mkdirSync(inbox);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('CSV inbox source', () => {
  it('reads a Windows-1252 CSV with umlauts and decimal commas intact, values as written', async () => {
    put('prices.csv', iconv.encode('sku;name;price\r\nA-1;Kühlschrank "Öko";12,50\r\nA-2;"Straße; groß";1.234,00\r\n', 'windows-1252'));
    const source = await open({ encoding: 'windows-1252', csv: { delimiter: ';' }, key: 'sku' });
    const items = await collect(source, {});
    expect(items.map((i) => i.record)).toEqual([
      { sku: 'A-1', name: 'Kühlschrank "Öko"', price: '12,50' },
      { sku: 'A-2', name: 'Straße; groß', price: '1.234,00' },
    ]);
    expect(items.map((i) => i.key)).toEqual(['A-1', 'A-2']);
    // The file was claimed as its first arrival: positions name the delivery, not the file name.
    expect(items[1]?.position).toEqual({ value: '0000000001~prices.csv', key: '0000000002' });
  });

  it('reads ISO-8859-1 and UTF-8 with a byte-order mark without mangling the first column name', async () => {
    put('a.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,city\n1,Zürich\n', 'utf8')]));
    const utf = await collect(await open(), {});
    expect(utf[0]?.record).toEqual({ id: '1', city: 'Zürich' });
    rmSync(path.join(inbox, 'processing'), { recursive: true }); // a.csv was claimed, never committed
    put('b.csv', iconv.encode('id,city\n2,Genève\n', 'iso-8859-1'));
    const latin = await collect(await open({ encoding: 'iso-8859-1' }), {});
    expect(latin[0]?.record).toEqual({ id: '2', city: 'Genève' });
  });

  it('keeps quoted newlines inside a field and names columns when there is no header', async () => {
    put('n.csv', '1,"line one\nline two"\n2,plain\n');
    const items = await collect(await open({ csv: { header: false, columns: ['id', 'note'] }, key: 'id' }), {});
    expect(items.map((i) => i.record)).toEqual([{ id: '1', note: 'line one\nline two' }, { id: '2', note: 'plain' }]);
  });

  it('reads files in name order and archives each only once its last record is committed', async () => {
    put('2026-11-02.csv', 'id\n3\n');
    put('2026-11-01.csv', 'id\n1\n2\n');
    const source = await open({ key: 'id' });
    const items = await collect(source, {});
    expect(items.map((i) => i.key)).toEqual(['1', '2', '3']);
    // Both were claimed, in name order, before the first record was handed out.
    expect(ls()).toEqual(['processing']);
    await source.commit?.(items[0]?.position as SourceItem['position']);
    expect(ls('processing')).toEqual(['0000000001~2026-11-01.csv', '0000000002~2026-11-02.csv']); // record 2 not yet settled
    await source.commit?.(items[1]?.position as SourceItem['position']);
    expect(ls('processing')).toEqual(['0000000002~2026-11-02.csv']);
    expect(ls('archive')).toEqual(['2026-11-01.csv']);
    await source.commit?.(items[2]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['2026-11-01.csv', '2026-11-02.csv']);
  });

  it('after a crash before archiving, re-reads the file but skips records at or before the committed position', async () => {
    put('orders.csv', 'id\n1\n2\n3\n4\n');
    const first = await open({ key: 'id' });
    const before = await collect(first, {}, 2); // the pipeline made records 1 and 2 durable, then crashed
    const restarted = await open({ key: 'id' });
    const after = await collect(restarted, { after: before[1]?.position });
    expect(after.map((i) => i.key)).toEqual(['3', '4']);
    await restarted.commit?.(after[1]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['orders.csv']);
  });

  it('archives a file whose records were all committed before a crash as soon as it is read again', async () => {
    put('done.csv', 'id\n1\n2\n');
    const first = await collect(await open(), {}); // read and committed, then the process died before the archive step
    const source = await open();
    expect(await collect(source, { after: first[1]?.position })).toEqual([]);
    expect(ls('archive')).toEqual(['done.csv']);
  });

  it('reads a file in full under a cursor written before claims (a plain file name): a new delivery is never skipped into', async () => {
    put('artikel.csv', 'id\n1\n2\n3\n4\n5\n');
    const items = await collect(await open({ key: 'id' }), { after: { value: 'artikel.csv', key: '0000000003' } });
    expect(items.map((i) => i.key)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('claims the next file of a name as the next arrival while the last one still waits in processing', async () => {
    put('artikel.csv', 'id\n1\n');
    const first = await collect(await open({ key: 'id' }), {});
    put('artikel.csv', 'id\n2\n');
    const source = await open({ key: 'id' });
    const both = await collect(source, { after: first[0]?.position });
    // The first delivery was settled up to its end (archived on this read), the second is read in full.
    expect(both.map((i) => [i.position.value, i.key])).toEqual([['0000000002~artikel.csv', '2']]);
    await source.commit?.(both[0]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['artikel.1.csv', 'artikel.csv']);
  });

  it('refuses a row with an unclosed quote on its own line and reads the rows after it', async () => {
    put('a-bad.csv', 'id,name\n1,fine\n2,"unclosed\n3,after\n');
    put('b-good.csv', 'id,name\n4,fine\n');
    const source = await open({ key: 'id' });
    const items = await collect(source, {});
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok'])).toEqual([
      ['1', 'ok'],
      ['a-bad.csv#line 3', 'SOURCE_BAD_ROW'],
      ['3', 'ok'],
      ['4', 'ok'],
    ]);
    expect(items[1]).toMatchObject({ origin: { file: 'a-bad.csv', line: 3, raw: '2,"unclosed' } });
    expect(items[1]?.refused?.message).toMatch(/^a-bad\.csv line 3: .*quote/i);
    expect(items[2]).toMatchObject({ record: { id: '3', name: 'after' }, origin: { line: 4 } });
    await source.commit?.(items[3]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['a-bad.csv', 'b-good.csv']);
  });

  it('refuses a row with too few or too many columns under its key, and reads on', async () => {
    put('half.csv', 'id,name\n1,ok\n2,ok,extra\n3\n4,ok\n');
    const source = await open({ key: 'id' });
    const items = await collect(source, {});
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok', i.origin?.line])).toEqual([
      ['1', 'ok', 2],
      ['2', 'SOURCE_BAD_ROW', 3],
      ['3', 'SOURCE_BAD_ROW', 4],
      ['4', 'ok', 5],
    ]);
    expect(items[1]?.refused?.message).toMatch(/half\.csv line 3: the row does not have the header's 2 columns/);
  });

  it('refuses a row without a key value under its place in the file, and reads on', async () => {
    put('keys.csv', 'id,name\n1,a\n,b\n3,c\n');
    const items = await collect(await open({ key: 'id' }), {});
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok'])).toEqual([['1', 'ok'], ['keys.csv#line 3', 'SOURCE_KEY_MISSING'], ['3', 'ok']]);
    expect(items[1]).toMatchObject({ record: { id: '', name: 'b' } });
  });

  it('with onBadRecord reject_file hands out nothing of a file with a bad row, moves it to failed/ and fails the read after the other files', async () => {
    put('a-snapshot.csv', 'id,name\n1,a\n2,b,extra\n3,c\n');
    put('b-fine.csv', 'id,name\n4,d\n');
    const source = await open({ key: 'id', onBadRecord: 'reject_file' });
    const seen: string[] = [];
    await expect((async () => {
      for await (const it of source.read({})) seen.push(it.key);
    })()).rejects.toMatchObject({ code: 'FILE_REJECTED', message: expect.stringMatching(/a-snapshot\.csv.*1 bad record.*line 3/) });
    expect(seen).toEqual(['4']);
    expect(ls('failed')).toEqual(['a-snapshot.csv', 'a-snapshot.csv.error.txt']);
  });

  it('read-only (dry runs, previews) moves no file: an empty file stays, a file refused whole is one refused item and stays', async () => {
    put('a-snapshot.csv', 'id,name\n1,a\n2,b,extra\n');
    put('b-empty.csv', 'id,name\n');
    put('c-fine.csv', 'id,name\n4,d\n');
    const source = await open({ key: 'id', onBadRecord: 'reject_file' });
    const items = await collect(source, { readOnly: true });
    expect(items.map((i) => [i.key, i.refused?.code ?? 'ok'])).toEqual([['a-snapshot.csv', 'FILE_REJECTED'], ['4', 'ok']]);
    expect(items[0]?.refused?.message).toMatch(/a-snapshot\.csv refused whole.*line 3/);
    expect(ls()).toEqual(['a-snapshot.csv', 'b-empty.csv', 'c-fine.csv']);
  });

  it('hands out a file that cannot be read in its format at all as one unreadable item', async () => {
    put('gone.csv', 'id,name\n1,a\n');
    const source = await open({ key: 'id', format: 'json' as never, pattern: '*.csv' });
    const items = await collect(source, {});
    expect(items.map((i) => [i.key, i.refused?.code])).toEqual([['gone.csv', 'FILE_UNREADABLE']]);
  });

  it('leaves files alone while they are still being written', async () => {
    writeFileSync(path.join(inbox, 'fresh.csv'), 'id\n1\n');
    put('.hidden.csv', 'id\n2\n');
    put('upload.csv.part', 'id\n3\n');
    const old = new Date(Date.now() - 60_000);
    put('old.csv', 'id\n4\n');
    utimesSync(path.join(inbox, 'old.csv'), old, old);
    const items = await collect(await open({ key: 'id', stability: { mode: 'settle', settleMs: 30_000 } }), {});
    expect(items.map((i) => i.key)).toEqual(['4']);
  });

  it('waits for a marker file when configured and archives the marker with the file', async () => {
    put('x.csv', 'id\n1\n');
    const cfg: Input = { key: 'id', stability: { mode: 'marker', markerSuffix: '.done' } };
    expect(await collect(await open(cfg), {})).toEqual([]);
    put('x.csv.done', '');
    const source = await open(cfg);
    const items = await collect(source, {});
    expect(items.map((i) => i.key)).toEqual(['1']);
    await source.commit?.(items[0]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['x.csv', 'x.csv.done']);
  });

  it('reads only files up to an inclusive until file name', async () => {
    put('a.csv', 'id\n1\n');
    put('b.csv', 'id\n2\n');
    put('c.csv', 'id\n3\n');
    const items = await collect(await open({ key: 'id' }), { until: 'b.csv' });
    expect(items.map((i) => i.key)).toEqual(['1', '2']);
  });

  it('keeps an archived name free by numbering a second file of the same name', async () => {
    mkdirSync(path.join(inbox, 'archive'));
    put('archive/same.csv', 'id\n0\n');
    put('same.csv', 'id\n1\n');
    const source = await open({ key: 'id' });
    const items = await collect(source, {});
    await source.commit?.(items[0]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['same.1.csv', 'same.csv']);
  });

  it('reports a missing inbox folder with FILE_FOLDER_MISSING', async () => {
    await expect(createSource(conn(), { folder: 'nope', format: 'csv' }, ctx())).rejects.toMatchObject({ code: 'FILE_FOLDER_MISSING' });
    expect(existsSync(path.join(root, 'nope'))).toBe(false);
  });
});
