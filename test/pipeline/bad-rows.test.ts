/**
 * One bad row never hides the good rows after it (issue: per-record isolation): in every file
 * format a record the source cannot use becomes a dead letter naming file, line (or element) and
 * reason, the records before and after it land in the shop, and the run ends `partial`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, type PushFixture } from './support.js';
import { dropFile } from '../support/files.js';

const def = { name: 'stock-files', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'stock-per-warehouse.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  mkdirSync(path.join(f.dir, 'inbox'));
  const created = await f.shop.create('products', [
    { products_model: 'ART-1', products_price: '10.00', languages: { de: { products_name: 'Eins' } }, storages: [{ storages_id: 1, products_quantity: 1, products_safe_quantity: 0 }] },
    { products_model: 'ART-2', products_price: '10.00', languages: { de: { products_name: 'Zwei' } }, storages: [{ storages_id: 1, products_quantity: 1, products_safe_quantity: 0 }] },
  ]);
  expect(created.outcomes.every((o) => o.ok)).toBe(true);
});
afterEach(async () => {
  await f.close();
});

const put = (name: string, content: string | Buffer) => dropFile(path.join(f.dir, 'inbox', name), content);
const source = (cfg: Partial<FileSourceConfig>) => () =>
  createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', key: 'ARTNR', stability: { mode: 'settle', settleMs: 0 }, ...cfg } as never, { logger: silentLogger, baseDir: f.dir });
const run = async (cfg: Partial<FileSourceConfig>) => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/stock-per-warehouse.yaml')), source: source(cfg) });
async function stockOf(model: string): Promise<number | undefined> {
  const all: Record<string, unknown>[] = [];
  for await (const r of f.shop.exportAll('products')) all.push(r);
  const p = all.find((r) => r.products_model === model) as { storages?: { storages_id: number; products_quantity: unknown }[] } | undefined;
  const row = p?.storages?.find((s) => s.storages_id === 1);
  return row ? Number(row.products_quantity) : undefined;
}
const letters = () => f.state.deadLetters.list({ pipeline: def.name });

const formats: { name: string; cfg: Partial<FileSourceConfig>; file: string; content: string | Buffer; code: string; where: { line?: number; element?: number } }[] = [
  {
    name: 'a Windows-1252 CSV with an unclosed quote',
    cfg: { format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' } as never },
    file: 'lager.csv',
    content: iconv.encode('ARTNR;Lager;Bestand;Mindestbestand;Lagerplatz\r\nART-1;1;50,5;2;Regal Ä1\r\nART-9;1;"7;1;Süd\r\nART-2;1;8;1;Nord\r\n', 'win1252'),
    code: 'SOURCE_BAD_ROW',
    where: { line: 3 },
  },
  {
    name: 'an NDJSON file with a line that does not parse',
    cfg: { format: 'ndjson' },
    file: 'lager.ndjson',
    content: '{"ARTNR":"ART-1","Lager":"1","Bestand":"50,5","Mindestbestand":"2"}\n{"ARTNR":"ART-9",,}\n{"ARTNR":"ART-2","Lager":"1","Bestand":"8","Mindestbestand":"1"}\n',
    code: 'SOURCE_BAD_JSON',
    where: { line: 2 },
  },
  {
    name: 'a JSON array with an element without a key',
    cfg: { format: 'json' },
    file: 'lager.json',
    content: '[{"ARTNR":"ART-1","Lager":"1","Bestand":"50,5","Mindestbestand":"2"},{"Lager":"1","Bestand":"7"},{"ARTNR":"ART-2","Lager":"1","Bestand":"8","Mindestbestand":"1"}]',
    code: 'SOURCE_KEY_MISSING',
    where: { element: 2 },
  },
  {
    name: 'an XML file with a malformed record element',
    cfg: { format: 'xml', recordPath: 'Lager.Zeile' },
    file: 'lager.xml',
    content: '<Lager><Zeile><ARTNR>ART-1</ARTNR><Lager>1</Lager><Bestand>50,5</Bestand><Mindestbestand>2</Mindestbestand></Zeile><Zeile><ARTNR>ART-9</ARTNR><Lager>1</Lagr></Zeile><Zeile><ARTNR>ART-2</ARTNR><Lager>1</Lager><Bestand>8</Bestand><Mindestbestand>1</Mindestbestand></Zeile></Lager>',
    code: 'SOURCE_BAD_XML',
    where: { element: 2 },
  },
];

describe('a bad record in the middle of a file', () => {
  for (const t of formats) {
    it(`in ${t.name}: the records before and after it land, it becomes a dead letter naming file, place and reason, and the run is partial`, async () => {
      put(t.file, t.content);
      const summary = await run(t.cfg);
      expect(summary.status).toBe('partial');
      expect(summary.counts).toMatchObject({ read: 3, updated: 2, deadLettered: 1, unreadable: 1 });
      expect([await stockOf('ART-1'), await stockOf('ART-2')]).toEqual([50.5, 8]);
      const [letter, ...more] = await letters();
      expect(more).toEqual([]);
      expect(letter).toMatchObject({ code: t.code, origin: { file: t.file, ...t.where } });
      expect(letter?.reason).toContain(t.file);
      expect(letter?.reason).toContain(t.where.line !== undefined ? `line ${t.where.line}` : `record ${t.where.element}`);
      expect(letter?.origin?.raw).toBeTruthy();
      // The file settled: archived, not failed, since everything readable was read.
      expect(readdirSync(path.join(f.dir, 'inbox', 'archive'))).toEqual([t.file]);
    });
  }

  it('with onBadRecord reject_file applies nothing of the file, moves it to failed/ and fails the run', async () => {
    put('snapshot.csv', 'ARTNR;Lager;Bestand;Mindestbestand\nART-1;1;50;2\nART-9;1\nART-2;1;8;1\n');
    const summary = await run({ format: 'csv', csv: { delimiter: ';' } as never, onBadRecord: 'reject_file' });
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatchObject({ code: 'FILE_REJECTED' });
    expect(summary.error?.message).toMatch(/snapshot\.csv.*line 3/);
    expect([await stockOf('ART-1'), await stockOf('ART-2')]).toEqual([1, 1]);
    expect(readdirSync(path.join(f.dir, 'inbox', 'failed')).sort()).toEqual(['snapshot.csv', 'snapshot.csv.error.txt']);
  });

  it('resolves the letter of a refused row when a later file brings that key fixed, and keeps a keyless letter until it is dropped', async () => {
    put('a.csv', 'ARTNR;Lager;Bestand;Mindestbestand\nART-1;1;5;2;zu viel\n;1;3;1\n');
    expect((await run({ format: 'csv', csv: { delimiter: ';' } as never })).counts).toMatchObject({ deadLettered: 2, unreadable: 2 });
    expect((await letters()).map((l) => [l.erpKey, l.code]).sort()).toEqual([
      ['ART-1 [1]', 'SOURCE_BAD_ROW'],
      ['a.csv#line 3 [1]', 'SOURCE_KEY_MISSING'],
    ]);
    put('b.csv', 'ARTNR;Lager;Bestand;Mindestbestand\nART-1;1;6;2\n');
    const fixed = await run({ format: 'csv', csv: { delimiter: ';' } as never });
    expect(fixed.status).toBe('succeeded');
    expect(await stockOf('ART-1')).toBe(6);
    const left = await letters();
    expect(left.map((l) => l.erpKey)).toEqual(['a.csv#line 3 [1]']);
    expect(left[0]?.reason).toMatch(/no value in key field ARTNR/);
    expect(await f.state.deadLetters.delete(left[0]!.id)).toBe(true);
    expect(await letters()).toEqual([]);
  });
});
