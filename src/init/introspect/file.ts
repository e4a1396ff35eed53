/**
 * Introspecting an ERP export file: which encoding its bytes are in, which delimiter a CSV uses,
 * where a JSON or XML file keeps its records, and then a sample read through the same readers the
 * file source uses, so what init learns is what a run will see.
 */
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { fileSourceSchema, type Encoding, type FileSourceConfig } from '../../erp/files/config.js';
import { readCsv } from '../../erp/files/csv.js';
import { checkBytes } from '../../erp/files/encoding.js';
import { readJson, readNdjson } from '../../erp/files/json.js';
import { readXml } from '../../erp/files/xml.js';
import type { FileRow } from '../../erp/files/rows.js';
import { isRecord } from '../../util/guards.js';
import { INIT_CODES, InitError } from '../errors.js';
import type { SourceAnswer } from '../answers.js';

type FileAnswer = Extract<SourceAnswer, { kind: 'file' }>;
type Format = FileSourceConfig['format'];

/** What the file looks like, and its sample records. */
export interface FileSample {
  readonly format: Format;
  readonly encoding: Encoding;
  /** The encoding was not given and the bytes read held only ASCII: any encoding reads them alike, so it is a guess. */
  readonly encodingGuessed?: boolean;
  readonly delimiter?: string;
  readonly recordsPath?: string;
  readonly records: readonly Record<string, unknown>[];
}

const HEAD_BYTES = 64 * 1024;
const DELIMITERS = [';', ',', '\t', '|'] as const;
/** Bytes Windows-1252 leaves undefined: a file holding them is ISO-8859-1 if it is any of the two. */
const CP1252_HOLES = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

async function head(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The format a file name says. */
export function formatOf(file: string): Format | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv' || ext === '.txt' || ext === '.tsv') return 'csv';
  if (ext === '.json') return 'json';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.xml') return 'xml';
  return undefined;
}

/** UTF-8 when the bytes are valid UTF-8 (or carry its mark), else Windows-1252, else ISO-8859-1. */
export function guessEncoding(bytes: Buffer, wholeFile: boolean): Encoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  // A multi-byte character may be cut at the end of the head: drop up to three trailing bytes.
  const body = wholeFile ? bytes : bytes.subarray(0, Math.max(0, bytes.length - 3));
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return 'utf-8';
  } catch {
    return body.some((b) => CP1252_HOLES.has(b)) ? 'iso-8859-1' : 'windows-1252';
  }
}

/** Count a delimiter outside quotes in one line. */
function countOutsideQuotes(line: string, delimiter: string): number {
  let n = 0;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === delimiter) n++;
  }
  return n;
}

/** The delimiter that splits the first lines into the same number of fields (the most fields wins). */
export function guessDelimiter(textHead: string): string | undefined {
  const lines = textHead.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, 20);
  // The last line of a head may be cut off.
  const whole = lines.length > 2 ? lines.slice(0, -1) : lines;
  let best: { d: string; n: number } | undefined;
  for (const d of DELIMITERS) {
    const counts = whole.map((l) => countOutsideQuotes(l, d));
    const n = counts[0] ?? 0;
    if (n > 0 && counts.every((c) => c === n) && (!best || n > best.n)) best = { d, n };
  }
  return best?.d;
}

/** The dotted path of the first list of objects in a parsed JSON document (`data.items`). */
function jsonRecordsPath(value: unknown, prefix = ''): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const here = prefix ? `${prefix}.${k}` : k;
    if (Array.isArray(v) && v.some(isRecord)) return here;
  }
  for (const [k, v] of Object.entries(value)) {
    const found = jsonRecordsPath(v, prefix ? `${prefix}.${k}` : k);
    if (found) return found;
  }
  return undefined;
}

/** The shallowest element path that repeats in the text (`Artikelliste.Artikel`): one record. */
export function xmlRecordPath(xml: string): string | undefined {
  const stack: string[] = [];
  const seen = new Map<string, number>();
  const body = xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<![^>]*>/g, '');
  for (const m of body.matchAll(/<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (closing) {
      stack.pop();
      continue;
    }
    const p = [...stack, name].join('.');
    seen.set(p, (seen.get(p) ?? 0) + 1);
    if (!selfClosing) stack.push(name as string);
  }
  const repeated = [...seen.entries()].filter(([p, n]) => n > 1 && p.includes('.')).sort((a, b) => a[0].split('.').length - b[0].split('.').length);
  return repeated[0]?.[0];
}

const readers: Record<Format, (file: string, cfg: FileSourceConfig) => AsyncGenerator<FileRow>> = { csv: readCsv, json: readJson, ndjson: readNdjson, xml: readXml };

/** Read the first `limit` records of an export file and tell how it is written. */
export async function sampleFile(answer: FileAnswer, baseDir: string, limit: number): Promise<FileSample> {
  const file = path.resolve(baseDir, answer.path);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new InitError(INIT_CODES.source, `${file} is not a file; give the path of one export file (--file)`);
  const format = answer.format ?? formatOf(file);
  if (!format) throw new InitError(INIT_CODES.input, `cannot tell the format of ${path.basename(file)} from its name; give --format csv|json|ndjson|xml`);
  const bytes = await head(file);
  const encoding = answer.encoding ?? guessEncoding(bytes, info.size <= bytes.length);
  try {
    await checkBytes(file, encoding);
  } catch (err) {
    throw new InitError(INIT_CODES.source, `${file}: ${(err as Error).message}`, { cause: err });
  }
  const textHead = iconv.decode(bytes, encoding);
  let delimiter: string | undefined;
  let recordsPath = answer.recordsPath;
  if (format === 'csv') {
    delimiter = answer.delimiter ?? guessDelimiter(textHead);
    if (!delimiter) throw new InitError(INIT_CODES.source, `${file}: cannot tell the CSV delimiter (tried ; , tab |); give --delimiter`);
  } else if (format === 'xml' && !recordsPath) {
    recordsPath = xmlRecordPath(textHead);
    if (!recordsPath) throw new InitError(INIT_CODES.source, `${file}: cannot find a repeated record element; give --records-path, e.g. Artikelliste.Artikel`);
  } else if (format === 'json' && !recordsPath && textHead.trimStart().startsWith('{')) {
    const parsed: unknown = JSON.parse(iconv.decode(await readFile(file), encoding));
    recordsPath = jsonRecordsPath(parsed);
    if (!recordsPath) throw new InitError(INIT_CODES.source, `${file}: the JSON object holds no list of records; give --records-path`);
  }
  const cfg = fileSourceSchema.parse({
    folder: '.',
    format,
    encoding,
    ...(delimiter ? { csv: { delimiter } } : {}),
    ...(format === 'xml' ? { recordPath: recordsPath } : recordsPath ? { recordsPath } : {}),
  });
  const records: Record<string, unknown>[] = [];
  for await (const row of readers[format](file, cfg)) {
    if (row.record !== undefined && isRecord(row.record) && !row.bad) records.push(row.record);
    if (records.length >= limit) break;
  }
  const encodingGuessed = answer.encoding === undefined && bytes.every((b) => b < 0x80);
  return { format, encoding, ...(encodingGuessed ? { encodingGuessed } : {}), ...(delimiter ? { delimiter } : {}), ...(recordsPath ? { recordsPath } : {}), records };
}
