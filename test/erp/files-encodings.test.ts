/**
 * Declared encodings: an XML file's own declaration (unless the source sets `encoding`), a UTF-8
 * byte-order mark over a wrong setting (with a warning), and bytes that are not valid in the
 * chosen encoding refused with their offset before any record of the file is handed out.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';
import { dropFile } from '../support/files.js';

let root: string;
let inbox: string;
const open = (cfg: Partial<FileSourceConfig> & Pick<FileSourceConfig, 'format'>, logger = silentLogger) =>
  createSource({ kind: 'files', folder: root }, { folder: 'inbox', stability: { mode: 'settle', settleMs: 0 }, ...cfg }, { logger, baseDir: root });
const put = (name: string, content: string | Buffer) => dropFile(path.join(inbox, name), content);

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-enc-'));
  inbox = path.join(root, 'inbox');
  mkdirSync(inbox);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const xml = (declaration: string) => `${declaration}<Artikel><A nr="1"><Name>Größe „Übermaß“ – 5 €</Name></A><A nr="2"><Name>Café</Name></A></Artikel>`;
const names = async (cfg: Partial<FileSourceConfig> = {}) =>
  (await collect(await open({ format: 'xml', recordPath: 'Artikel.A', key: '@nr', ...cfg }), {})).map((i) => i.refused ? i.refused.code : i.record.Name);

describe('XML encodings', () => {
  it('reads a Windows-1252 file by its declaration', async () => {
    put('a.xml', iconv.encode(xml('<?xml version="1.0" encoding="windows-1252"?>'), 'win1252'));
    expect(await names()).toEqual(['Größe „Übermaß“ – 5 €', 'Café']);
  });

  it('reads an ISO-8859-1 file by its declaration', async () => {
    put('a.xml', iconv.encode(xml("<?xml version='1.0' encoding='ISO-8859-1'?>").replace(/[„“–€]/g, '-'), 'latin1'));
    expect(await names()).toEqual(['Größe -Übermaß- - 5 -', 'Café']);
  });

  it('reads a file without a declaration as UTF-8, and a set encoding over the declaration', async () => {
    put('a.xml', Buffer.from(xml(''), 'utf8'));
    expect(await names()).toEqual(['Größe „Übermaß“ – 5 €', 'Café']);
    rmSync(path.join(inbox, 'processing'), { recursive: true }); // a.xml was claimed, never committed
    put('b.xml', iconv.encode(xml('<?xml version="1.0" encoding="UTF-8"?>'), 'win1252'));
    expect(await names({ encoding: 'windows-1252' })).toEqual(['Größe „Übermaß“ – 5 €', 'Café']);
  });

  it('reads an ISO-8859-1 or Windows-1252 file without a declaration in the encoding the source sets', async () => {
    put('a.xml', iconv.encode(xml('').replace(/[„“–€]/g, '-'), 'latin1'));
    expect(await names({ encoding: 'iso-8859-1' })).toEqual(['Größe -Übermaß- - 5 -', 'Café']);
    rmSync(path.join(inbox, 'processing'), { recursive: true }); // a.xml was claimed, never committed
    put('b.xml', iconv.encode(xml(''), 'win1252'));
    expect(await names({ encoding: 'windows-1252' })).toEqual(['Größe „Übermaß“ – 5 €', 'Café']);
  });

  it('reads a file with a UTF-8 byte-order mark as UTF-8 over a declaration that says otherwise', async () => {
    put('a.xml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml('<?xml version="1.0" encoding="ISO-8859-1"?>'), 'utf8')]));
    expect(await names()).toEqual(['Größe „Übermaß“ – 5 €', 'Café']);
  });

  it('refuses a Windows-1252 file without a declaration as not UTF-8, naming the byte offset, before any record of it', async () => {
    put('a.xml', iconv.encode(xml(''), 'win1252'));
    const items = await collect(await open({ format: 'xml', recordPath: 'Artikel.A', key: '@nr' }), {});
    expect(items.map((i) => i.refused?.code)).toEqual(['FILE_UNREADABLE']);
    expect(items[0]?.refused?.message).toMatch(/a\.xml cannot be read: the byte at offset 27 \(0xf6\) is not valid utf-8/);
  });
});

describe('CSV encodings', () => {
  it('reads a UTF-8 file with a byte-order mark as UTF-8 although the source says windows-1252, and warns', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    put('a.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('nr;name\n1;Größe\n', 'utf8')]));
    const items = await collect(await open({ format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' } as never, key: 'nr' }, logger), {});
    expect(items.map((i) => i.record)).toEqual([{ nr: '1', name: 'Größe' }]);
    expect(lines.join('\n')).toMatch(/byte-order mark but the source says encoding windows-1252/);
  });

  it('refuses a file with a byte Windows-1252 leaves undefined, naming its offset', async () => {
    put('a.csv', Buffer.concat([Buffer.from('nr;name\n1;a\n2;', 'latin1'), Buffer.from([0x81]), Buffer.from('\n', 'latin1')]));
    const items = await collect(await open({ format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' } as never, key: 'nr' }), {});
    expect(items.map((i) => i.refused?.code)).toEqual(['FILE_UNREADABLE']);
    expect(items[0]?.refused?.message).toMatch(/the byte at offset 14 \(0x81\) is not valid windows-1252/);
    // Claimed, not moved to failed/ until the pipeline commits what was read of it.
    expect(readdirSync(path.join(inbox, 'processing'))).toEqual(['0000000001~a.csv']);
  });
});
