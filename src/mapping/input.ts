/**
 * Reading sample records for `mappings preview`: CSV (any of ; , tab delimiters, UTF-8 or
 * Windows-1252), JSON (an array, or an envelope with `data`) and NDJSON.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { MappingError } from '../errors.js';
import { isRecord } from '../util/guards.js';

type Row = Record<string, unknown>;

/** Decode bytes as UTF-8 when they are valid UTF-8, otherwise as Windows-1252 (German ERP exports). */
export function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return iconv.decode(bytes, 'windows-1252');
  }
}

/** Parse CSV text; values stay strings exactly as in the file ('12,50'). */
export function parseCsv(text: string): Row[] {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  const delimiter = [';', '\t', ','].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0][0];
  return parse(text, { columns: true, delimiter, bom: true, skip_empty_lines: true, relax_column_count: false }) as Row[];
}

/** Read the records of a sample file by its extension (.csv, .json, .ndjson/.jsonl). */
export async function readRecords(file: string): Promise<Row[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new MappingError('PREVIEW_INPUT', `${file}: cannot read the input file (${(err as Error).message})`, { file, cause: err });
  }
  const text = decodeText(bytes);
  const lower = file.toLowerCase();
  try {
    if (lower.endsWith('.csv') || lower.endsWith('.txt')) return parseCsv(text);
    if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) {
      return text
        .split(/\r?\n/)
        .filter((l) => l.trim() !== '')
        .map((l, i) => {
          const v: unknown = JSON.parse(l);
          if (!isRecord(v)) throw new Error(`line ${i + 1} is not a JSON object`);
          return v;
        });
    }
    if (lower.endsWith('.json')) {
      const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
      const list = Array.isArray(v) ? v : isRecord(v) && Array.isArray(v.data) ? v.data : isRecord(v) ? [v] : [];
      if (!list.every(isRecord)) throw new Error('expected an array of JSON objects (or {data: [...]})');
      return list;
    }
  } catch (err) {
    throw new MappingError('PREVIEW_INPUT', `${file}: ${(err as Error).message}`, { file, cause: err });
  }
  throw new MappingError('PREVIEW_INPUT', `${file}: unknown input format; use .csv, .json or .ndjson`, { file });
}
