import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, createSource, type ErpRecord, type FileSinkConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';

let root: string;
const ctx = () => ({ logger: silentLogger, baseDir: root });
const conn = () => ({ kind: 'files' as const, folder: root });
type SinkInput = Partial<Omit<FileSinkConfig, 'csv' | 'xml'>> & Pick<FileSinkConfig, 'format'> & { csv?: Partial<FileSinkConfig['csv']> };
const sinkOf = (cfg: SinkInput) => createSink(conn(), { folder: 'outbox', ...cfg }, ctx());
const outbox = () => readdirSync(path.join(root, 'outbox')).sort();

const orders: ErpRecord[] = [
  { no: 'A-1', customer: 'Müller; "Söhne"', total: '12,50', lines: [{ sku: 'X', qty: 1 }] },
  { no: 'A-2', customer: 'Łukasz', total: '3,00', lines: [] },
];

beforeEach(() => { root = mkdtempSync(path.join(tmpdir(), 'erp-sink-')); });
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('file sink', () => {
  it('writes one file per batch under a deterministic name, so a repeated batch replaces its file', async () => {
    const sink = await sinkOf({ format: 'ndjson', fileName: 'orders-{batch}.{ext}' });
    await sink.write({ id: 'run7-b1', records: orders });
    await sink.write({ id: 'run7-b1', records: orders });
    expect(outbox()).toEqual(['orders-run7-b1.ndjson']); // no duplicate, no leftover .tmp
    const lines = readFileSync(path.join(root, 'outbox', 'orders-run7-b1.ndjson'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(orders);
  });

  it('never lets a name taken from the data leave the folder', async () => {
    const sink = await sinkOf({ format: 'json', fileName: '{record.no}.{ext}' });
    await sink.write({ id: 'b', records: [{ no: '../../etc/passwd' }] });
    await sink.write({ id: 'c', records: [{ no: '..' }] });
    expect(readdirSync(root)).toEqual(['outbox']);
    expect(outbox()).toEqual(['_.json', '__.._etc_passwd.json']);
  });

  it('writes CSV in Windows-1252 that the CSV source reads back unchanged', async () => {
    const sink = await sinkOf({ format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';', columns: ['no', 'customer', 'total'] } });
    await sink.write({ id: 'b1', records: [{ no: 'A-1', customer: 'Müller; "Söhne"', total: '12,50' }] });
    const bytes = readFileSync(path.join(root, 'outbox', 'b1.csv'));
    expect(iconv.decode(bytes, 'windows-1252')).toBe('no;customer;total\r\nA-1;"Müller; ""Söhne""";12,50\r\n');
    expect(bytes.includes(Buffer.from('ü', 'utf8'))).toBe(false);
    const source = await createSource(conn(), { folder: 'outbox', format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' }, stability: { mode: 'settle', settleMs: 0 } }, ctx());
    expect((await collect(source, {}))[0]?.record).toEqual({ no: 'A-1', customer: 'Müller; "Söhne"', total: '12,50' });
  });

  it('writes XML and JSON that the matching sources read back', async () => {
    const xml = await sinkOf({ format: 'xml', fileName: 'o-{batch}.{ext}' });
    await xml.write({ id: '1', records: [{ '@no': 'A-1', customer: 'Müller & Söhne', total: '12,50' }] });
    const xmlSource = await createSource(conn(), { folder: 'outbox', format: 'xml', recordPath: 'records.record', key: '@no', stability: { mode: 'settle', settleMs: 0 } }, ctx());
    expect((await collect(xmlSource, {}))[0]?.record).toEqual({ '@no': 'A-1', customer: 'Müller & Söhne', total: '12,50' });
    const json = await sinkOf({ format: 'json', bom: true });
    await json.write({ id: '2', records: orders });
    const jsonSource = await createSource(conn(), { folder: 'outbox', format: 'json', key: 'no', stability: { mode: 'settle', settleMs: 0 } }, ctx());
    expect((await collect(jsonSource, {})).map((i) => i.record)).toEqual(orders);
  });

  it('refuses an unknown placeholder in the file name template at configuration time', async () => {
    await expect(sinkOf({ format: 'csv', fileName: '{date}.csv' })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(sinkOf({ format: 'csv', fileName: '../x.csv' })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('never writes through a link planted under the temporary name an earlier version used (issue 42 item 8)', async () => {
    // Whoever may write the outbox knows the name a record gives the file (`{record.no}`) and plants
    // `.<name>.tmp` pointing at a file of shopsync's user.
    mkdirSync(path.join(root, 'outbox'));
    const victim = path.join(root, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, path.join(root, 'outbox', '.A-1.json.tmp'));
    const sink = await sinkOf({ format: 'json', fileName: '{record.no}.{ext}' });
    await sink.write({ id: 'b1', records: [{ no: 'A-1', total: '1,00' }] });
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(JSON.parse(readFileSync(path.join(root, 'outbox', 'A-1.json'), 'utf8'))).toEqual([{ no: 'A-1', total: '1,00' }]);
    // The planted link is left alone, and no temporary file of this write is left behind.
    expect(outbox()).toEqual(['.A-1.json.tmp', 'A-1.json']);
  });
});
