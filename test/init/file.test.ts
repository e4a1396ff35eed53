import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { guessDelimiter, guessEncoding, sampleFile, xmlRecordPath } from '../../src/init/introspect/file.js';
import { filePattern } from '../../src/init/connection.js';
import { tempDir } from '../support/tmp.js';

describe('export file introspection', () => {
  it('tells UTF-8 from Windows-1252 and ISO-8859-1 by the bytes', () => {
    expect(guessEncoding(Buffer.from('Größe;12,50\n', 'utf8'), true)).toBe('utf-8');
    expect(guessEncoding(iconv.encode('Größe „L“;12,50\n', 'windows-1252'), true)).toBe('windows-1252');
    expect(guessEncoding(Buffer.from([0x47, 0x72, 0xf6, 0x8d, 0x65]), true)).toBe('iso-8859-1');
  });

  it('finds the delimiter that splits every line alike, ignoring delimiters inside quotes', () => {
    expect(guessDelimiter('a;b;c\n1;"2,5";3\n4;5;6\n')).toBe(';');
    expect(guessDelimiter('a,b\n1,2\n')).toBe(',');
    expect(guessDelimiter('a\tb\tc\n1\t2\t3\n')).toBe('\t');
    expect(guessDelimiter('just text\nmore text\n')).toBeUndefined();
  });

  it('finds the repeated record element of an XML export', () => {
    expect(xmlRecordPath('<?xml version="1.0"?><Export><Kopf/><Artikel><Nr>1</Nr></Artikel><Artikel><Nr>2</Nr></Artikel></Export>')).toBe('Export.Artikel');
  });

  it('samples a JSON export whose records sit inside an object', async () => {
    const dir = tempDir();
    const file = join(dir, 'artikel.json');
    writeFileSync(file, JSON.stringify({ meta: { count: 2 }, data: { items: [{ sku: 'A', price: 1.5 }, { sku: 'B', price: 2 }] } }));
    expect(await sampleFile({ kind: 'file', path: file }, dir, 10)).toMatchObject({ format: 'json', encoding: 'utf-8', recordsPath: 'data.items', records: [{ sku: 'A' }, { sku: 'B' }] });
  });

  it('writes file patterns that also match the next dated export', () => {
    expect(filePattern('/x/artikel.csv')).toBe('artikel.csv');
    expect(filePattern('/x/export_2026-01-05.csv')).toBe('export_*.csv');
  });
});
