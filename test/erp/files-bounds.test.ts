/**
 * One record's size is bounded (issue 42 item 9): a line or element longer than `maxRecordBytes` is
 * refused as a bad row with an excerpt of its start, its text never held whole, and the records
 * after it are read, in every file format.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { dropFile } from '../support/files.js';
import { collect } from './sql-suite.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-bounds-'));
  mkdirSync(path.join(root, 'inbox'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const open = (cfg: Partial<FileSourceConfig>) => createSource({ kind: 'files', folder: root }, { folder: 'inbox', stability: { mode: 'settle', settleMs: 0 }, key: 'id', ...cfg } as never, { logger: silentLogger, baseDir: root });
const huge = 'x'.repeat(3 * 1024 * 1024);

const formats: { name: string; cfg: Partial<FileSourceConfig>; file: string; content: string; where: RegExp; alsoRefused?: string }[] = [
  { name: 'a CSV line', cfg: { format: 'csv' }, file: 'a.csv', content: `id,note\n1,short\n2,${huge}\n3,after\n`, where: /line 3 is longer than maxRecordBytes \(1000 characters\)/ },
  { name: 'a CSV line ending in CRLF, inside a quoted value spanning lines', cfg: { format: 'csv' }, file: 'q.csv', content: `id,note\r\n1,short\r\n2,"first\r\n${huge}"\r\n3,after\r\n`, where: /line 4 is longer/, alsoRefused: 'SOURCE_BAD_ROW' },
  { name: 'an NDJSON line', cfg: { format: 'ndjson' }, file: 'a.ndjson', content: `{"id":"1"}\n{"id":"2","note":"${huge}"}\n{"id":"3"}\n`, where: /line 2 is longer/ },
  { name: 'a JSON array element', cfg: { format: 'json' }, file: 'a.json', content: `[{"id":"1"},{"id":"2","note":"${huge}"},{"id":"3"}]`, where: /element 2 is longer/ },
  { name: 'an XML record element', cfg: { format: 'xml', recordPath: 'rows.row' }, file: 'a.xml', content: `<rows><row><id>1</id></row><row><id>2</id><note>${huge}</note></row><row><id>3</id></row></rows>`, where: /<row> element 2 is longer/ },
];

describe('a record longer than maxRecordBytes', () => {
  for (const t of formats) {
    it(`in ${t.name}: is refused as a bad row with an excerpt, and the records around it are read`, async () => {
      dropFile(path.join(root, 'inbox', t.file), t.content);
      const items = await collect(await open({ ...t.cfg, maxRecordBytes: 1000 }), {});
      expect(items.filter((i) => !i.refused).map((i) => i.record.id)).toEqual(['1', '3']);
      // A dropped line that held a closing quote leaves the line that opened it unclosed: that line is a bad row too.
      const refused = items.filter((i) => i.refused?.code === 'SOURCE_RECORD_TOO_LARGE');
      expect(items.filter((i) => i.refused && i.refused.code !== 'SOURCE_RECORD_TOO_LARGE').map((i) => i.refused?.code)).toEqual(t.alsoRefused ? [t.alsoRefused] : []);
      expect(refused).toHaveLength(1);
      expect(refused[0]?.refused).toMatchObject({ code: 'SOURCE_RECORD_TOO_LARGE', message: expect.stringMatching(t.where) });
      // What a dead letter gets of it is bounded.
      expect(refused[0]?.origin?.raw?.length).toBeLessThanOrEqual(501);
      expect(JSON.stringify(refused[0]).length).toBeLessThan(5000);
    });
  }

  it('is bounded by default (1 MiB): a 3 MB line is refused, not read whole', async () => {
    dropFile(path.join(root, 'inbox', 'd.csv'), `id,note\n1,${huge}\n2,ok\n`);
    const items = await collect(await open({ format: 'csv' }), {});
    expect(items.map((i) => i.refused?.code ?? i.record.id)).toEqual(['SOURCE_RECORD_TOO_LARGE', '2']);
  });

  it('leaves lines of ordinary length alone, CR-only and CRLF line ends included', async () => {
    dropFile(path.join(root, 'inbox', 'e.csv'), 'id,note\r1,a\r2,"two\rlines"\r3,c\r');
    const items = await collect(await open({ format: 'csv', maxRecordBytes: 20 }), {});
    expect(items.map((i) => i.record)).toEqual([{ id: '1', note: 'a' }, { id: '2', note: 'two\rlines' }, { id: '3', note: 'c' }]);
  });
});
