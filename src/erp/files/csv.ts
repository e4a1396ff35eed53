/**
 * CSV records, streamed: every value stays the string that was in the file (`12,50` stays '12,50';
 * number parsing with a locale is the mapping layer's job).
 *
 * A row the parser cannot use (too few or too many columns, a stray or unclosed quote) becomes a
 * bad row of its own, with its line and raw text, and reading goes on: csv-parse skips it
 * (`skip_records_with_error`) and tells us through `on_skip`. An unclosed quote swallows the rest of
 * the file into one field; then only the line that opened it is bad, and the parser reads the text
 * after that line again.
 */
import { pipeline, Readable, type Transform } from 'node:stream';
import { parse, type CsvError, type Options } from 'csv-parse';
import { rawExcerpt, SOURCE_CODES } from '../types.js';
import type { FileSourceConfig } from './config.js';
import { LineCap, mergeLong, tooLarge, type LongLine } from './bounds.js';
import type { FileRow } from './rows.js';
import { openText, type FileInput } from './text.js';

/** What the parser reads instead of a line longer than `maxRecordBytes` (a control character no delimiter or quote uses). */
const DROPPED = '\u0001';

interface Skipped {
  readonly code: string;
  readonly message: string;
  readonly lastLine: number;
  readonly raw: string;
}

/** The 1-based line a skipped record starts on (the parser reports the line it ended on). */
function startLine(s: Skipped): number {
  // Inside a quote the parser counts \r and \n apart; the break that ends the text is not counted.
  const breaks = (s.raw.match(/[\r\n]/g) ?? []).length;
  return /[\r\n]$/.test(s.raw) ? s.lastLine - breaks + 1 : s.lastLine - breaks;
}

/** Line breaks inside a record's text (quoted values), counted as the parser counts them. */
function innerBreaks(raw: string): number {
  return (raw.replace(/\r?\n$/, '').match(/[\r\n]/g) ?? []).length;
}

function badRow(s: Skipped, line: number, raw: string): FileRow {
  return { bad: { code: SOURCE_CODES.badRow, message: `${s.message.replace(/ on line \d+| at line \d+/, '')} (${s.code})` }, line, raw: rawExcerpt(raw.replace(/\r?\n$/, '')) };
}

/** Stream the rows of one CSV file: records with their line, and bad rows with their reason. */
export async function* readCsv(file: FileInput, cfg: FileSourceConfig): AsyncGenerator<FileRow> {
  const o = cfg.csv;
  let header: string[] | undefined;
  const columns: Options['columns'] = o.columns
    ? o.header
      ? () => o.columns as string[]
      : o.columns
    : o.header
      ? (names: string[]) => {
          header = names;
          return names;
        }
      : false;
  // csv-parse does not count an empty line: a dropped line becomes a one-character row, so line numbers stay true.
  const cap = new LineCap(cfg.maxRecordBytes, DROPPED);
  // The row of a dropped line is the placeholder; a record the line was inside keeps its values for its key.
  const bad = (long: LongLine, row?: FileRow): FileRow => ({ ...(row?.record !== undefined && row.line !== undefined && row.line < long.line ? { record: row.record } : {}), bad: tooLarge(cfg.maxRecordBytes, `line ${long.line}`), line: row?.line ?? long.line, raw: long.excerpt });
  const rows = parseRows((parser) => openText(file, cfg.encoding, parser, cap), { delimiter: o.delimiter, quote: o.quote, skip_empty_lines: o.skipEmptyLines, relax_quotes: o.relaxQuotes, bom: true }, columns, 0, () => header ?? (o.columns as string[] | undefined));
  for await (const row of rows) yield* mergeLong(cap, row, (r) => r.span ?? 0, bad);
  yield* mergeLong(cap, undefined, () => 0, bad);
}

async function* parseRows(
  connect: (parser: Transform) => Readable,
  base: Options,
  columns: Options['columns'],
  lineOffset: number,
  headerNow: () => string[] | undefined,
): AsyncGenerator<FileRow> {
  const skipped: Skipped[] = [];
  const parser = parse({
    ...base,
    columns,
    // Rows with too few or too many columns are still read (so their key is known) and marked bad below.
    relax_column_count: true,
    info: true,
    raw: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined, raw: string | undefined) => {
      if (err) skipped.push({ code: err.code, message: err.message, lastLine: (err as CsvError & { lines?: number }).lines ?? 0, raw: raw ?? '' });
      return undefined;
    },
  });
  const stream = connect(parser);
  const flushSkipped = async function* (beforeLine: number): AsyncGenerator<FileRow> {
    while (skipped.length > 0 && (skipped[0] as Skipped).lastLine < beforeLine) {
      const s = skipped.shift() as Skipped;
      const line = startLine(s) + lineOffset;
      const firstBreak = s.raw.indexOf('\n');
      if (s.code === 'CSV_QUOTE_NOT_CLOSED' && firstBreak >= 0 && firstBreak < s.raw.length - 1) {
        // Only the line that opened the quote is bad; what follows it is read again.
        yield badRow(s, line, s.raw.slice(0, firstBreak + 1));
        const rest = s.raw.slice(firstBreak + 1);
        yield* parseRows((p) => pipeline(Readable.from([rest]), p, () => undefined), { ...base, bom: false }, headerNow() ?? false, line, headerNow);
      } else yield badRow(s, line, s.raw);
    }
  };
  let uneven = 0;
  try {
    for await (const row of stream as AsyncIterable<{ record: unknown; info: { lines: number; invalid_field_length: number; columns?: unknown[] }; raw: string }>) {
      yield* flushSkipped(row.info.lines);
      // The parser counts rows whose length differs from the header: a rise is this row.
      const wrongLength = row.info.invalid_field_length > uneven;
      uneven = row.info.invalid_field_length;
      const line = row.info.lines + lineOffset - innerBreaks(row.raw);
      if (Array.isArray(row.record)) {
        // No header and no column names: name columns by position.
        const record: Record<string, unknown> = {};
        row.record.forEach((v, i) => {
          record[`column${i + 1}`] = v;
        });
        yield { record, line, span: innerBreaks(row.raw), raw: rawExcerpt(row.raw.replace(/\r?\n$/, '')) };
      } else if (wrongLength) {
        const expected = Array.isArray(row.info.columns) ? row.info.columns.length : undefined;
        yield {
          record: row.record,
          bad: { code: SOURCE_CODES.badRow, message: `the row does not have the header's ${expected ?? ''} columns (a missing or extra delimiter?); none of its values were used`.replace('  ', ' ') },
          line,
          span: innerBreaks(row.raw),
          raw: rawExcerpt(row.raw.replace(/\r?\n$/, '')),
        };
      } else yield { record: row.record, line, span: innerBreaks(row.raw), raw: rawExcerpt(row.raw.replace(/\r?\n$/, '')) };
    }
    yield* flushSkipped(Number.POSITIVE_INFINITY);
  } finally {
    stream.destroy();
  }
}
