/**
 * Writing the demo ERP as export files: Windows-1252, `;` delimiter, decimal commas, a header
 * row, CRLF line ends — what German ERPs (and Excel) produce.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';
import { demoTables } from './tables.js';

/** Write one `<table>.csv` per demo table into `dir`; returns the written file paths. */
export async function writeDemoCsv(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const t of demoTables()) {
    const text = stringify(t.rows as Record<string, string>[], { header: true, columns: [...t.columns], delimiter: ';', record_delimiter: '\r\n' });
    const file = path.join(dir, `${t.name}.csv`);
    await writeFile(file, iconv.encode(text, 'windows-1252'));
    files.push(file);
  }
  return files;
}
