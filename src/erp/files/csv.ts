/**
 * CSV records, streamed: every value stays the string that was in the file (`12,50` stays '12,50';
 * number parsing with a locale is the mapping layer's job).
 */
import { parse } from 'csv-parse';
import type { ErpRecord } from '../types.js';
import type { FileSourceConfig } from './config.js';
import { openText } from './text.js';

/** Stream the records of one CSV file. */
export async function* readCsv(file: string, cfg: FileSourceConfig): AsyncGenerator<ErpRecord> {
  const o = cfg.csv;
  const parser = parse({
    delimiter: o.delimiter,
    quote: o.quote,
    columns: o.columns ? (o.header ? () => o.columns as string[] : o.columns) : o.header ? true : false,
    skip_empty_lines: o.skipEmptyLines,
    relax_column_count: false,
    relax_quotes: o.relaxQuotes,
    bom: true,
  });
  const stream = openText(file, cfg.encoding, parser);
  try {
    for await (const row of stream) {
      if (Array.isArray(row)) {
        // No header and no column names: name columns by position.
        const record: ErpRecord = {};
        row.forEach((v, i) => { record[`column${i + 1}`] = v; });
        yield record;
      } else yield row as ErpRecord;
    }
  } finally {
    stream.destroy();
  }
}
