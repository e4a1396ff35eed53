/**
 * JSON and NDJSON records. NDJSON and top-level JSON arrays are streamed element by element;
 * a records array inside an object (`recordsPath`) is read whole, up to `maxWholeFileBytes`.
 */
import { createInterface } from 'node:readline';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import { rawExcerpt, SOURCE_CODES } from '../types.js';
import { getPath } from '../values.js';
import type { FileSourceConfig } from './config.js';
import { LineCap, mergeLong, tooLarge, type LongLine } from './bounds.js';
import type { FileRow } from './rows.js';
import { openText, sizeOf, type FileInput } from './text.js';

/** A text that should hold one JSON value: the value, or a bad row saying why not. */
function parsed(text: string, at: { line?: number; element?: number }): FileRow {
  try {
    return { record: JSON.parse(text) as unknown, ...at, raw: rawExcerpt(text) };
  } catch (err) {
    return { bad: { code: SOURCE_CODES.badJson, message: `not valid JSON: ${(err as Error).message}` }, ...at, raw: rawExcerpt(text) };
  }
}

/** Stream NDJSON: one object per non-blank line; a line that does not parse is a bad row of its own. */
export async function* readNdjson(file: FileInput, cfg: FileSourceConfig): AsyncGenerator<FileRow> {
  const cap = new LineCap(cfg.maxRecordBytes);
  const bad = (long: LongLine): FileRow => ({ bad: tooLarge(cfg.maxRecordBytes, `line ${long.line}`), line: long.line, raw: long.excerpt });
  const text = openText(file, cfg.encoding, undefined, cap);
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      // A line too long reaches here empty; the cap says where it was.
      if (line.trim() === '') continue;
      yield* mergeLong(cap, parsed(line, { line: n }), () => 0, bad);
    }
    yield* mergeLong(cap, undefined, () => 0, bad);
  } finally {
    lines.close();
    text.destroy();
  }
}

/** Splits a top-level JSON array into element texts without holding the whole file. */
class ArraySplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private inElement = false;
  private started = false;
  private ended = false;
  private current = '';
  /** The start of the current element once it proved longer than `max`; the rest of it is not kept. */
  private tooLong: string | undefined;
  topLevelObject = false;

  constructor(private readonly max = Number.POSITIVE_INFINITY) {}

  private append(text: string): void {
    if (this.tooLong !== undefined) return;
    if (this.current.length + text.length <= this.max) this.current += text;
    else {
      this.tooLong = rawExcerpt((this.current + text.slice(0, 600)).trim());
      this.current = '';
    }
  }

  /** Feed a chunk; returns the complete element texts it finished (an element longer than `max` as its excerpt). */
  push(chunk: string): (string | { readonly tooLong: string })[] {
    const out: (string | { readonly tooLong: string })[] = [];
    let from = this.inElement ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i] as string;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        continue;
      }
      const space = ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t';
      if (!this.started) {
        if (ch === '[') { this.started = true; this.depth = 1; continue; }
        if (ch === '{') { this.topLevelObject = true; return out; }
        if (space || ch === '\uFEFF') continue;
        throw new Error(`expected a JSON array, found ${JSON.stringify(ch)}`);
      }
      if (this.ended) {
        if (!space) throw new Error('unexpected text after the end of the array');
        continue;
      }
      if (this.depth === 1) {
        if (ch === ',' || ch === ']') {
          if (from >= 0) this.append(chunk.slice(from, i));
          from = -1;
          this.inElement = false;
          this.flush(out);
          if (ch === ']') { this.ended = true; this.depth = 0; }
          continue;
        }
        if (space) continue;
        if (from < 0) { from = i; this.inElement = true; }
      }
      if (ch === '"') this.inString = true;
      else if (ch === '{' || ch === '[') this.depth++;
      else if (ch === '}' || ch === ']') this.depth--;
    }
    if (from >= 0) this.append(chunk.slice(from));
    return out;
  }

  private flush(out: (string | { readonly tooLong: string })[]): void {
    const text = this.current.trim();
    this.current = '';
    if (this.tooLong !== undefined) out.push({ tooLong: this.tooLong });
    else if (text) out.push(text);
    this.tooLong = undefined;
  }

  /** Throws when the input ended inside the array. */
  finish(): void {
    if (this.started && !this.ended) throw new Error('file ends inside the JSON array (truncated?)');
  }
}

/** Read JSON records: a streamed top-level array, a single object, or an array at `recordsPath`. */
export async function* readJson(file: FileInput, cfg: FileSourceConfig): AsyncGenerator<FileRow> {
  if (cfg.recordsPath) {
    yield* readWhole(file, cfg, cfg.recordsPath);
    return;
  }
  const size = await sizeOf(file);
  const splitter = new ArraySplitter(cfg.maxRecordBytes);
  const text = openText(file, cfg.encoding);
  let n = 0;
  let whole = '';
  try {
    for await (const chunk of text) {
      if (splitter.topLevelObject) {
        whole += chunk as string;
        if (size > cfg.maxWholeFileBytes) throw connectorError('json', CONNECTOR_CODES.fileTooLarge, `the file holds one JSON object of ${size} bytes (limit ${cfg.maxWholeFileBytes}); set recordsPath or export NDJSON.`);
        continue;
      }
      for (const element of splitter.push(chunk as string)) {
        n++;
        yield typeof element === 'string' ? parsed(element, { element: n }) : { bad: tooLarge(cfg.maxRecordBytes, `element ${n}`), element: n, raw: element.tooLong };
      }
      if (splitter.topLevelObject) whole = chunk as string;
    }
  } finally {
    text.destroy();
  }
  if (splitter.topLevelObject) {
    // A single object is one record; it was small enough to be read as text above.
    yield { record: JSON.parse(whole.trimStart()) as unknown, element: 1 };
    return;
  }
  splitter.finish();
}

async function* readWhole(file: FileInput, cfg: FileSourceConfig, recordsPath: string): AsyncGenerator<FileRow> {
  const size = await sizeOf(file);
  if (size > cfg.maxWholeFileBytes) {
    throw connectorError('json', CONNECTOR_CODES.fileTooLarge, `the file is ${size} bytes; JSON with recordsPath is read whole and the limit is ${cfg.maxWholeFileBytes}. Export NDJSON or a top-level array (both are streamed), or raise maxWholeFileBytes.`);
  }
  let text = '';
  for await (const chunk of openText(file, cfg.encoding)) text += chunk as string;
  const records = getPath(JSON.parse(text), recordsPath);
  if (!Array.isArray(records)) throw new Error(`no array at recordsPath ${recordsPath}`);
  for (const [i, r] of records.entries()) yield { record: r, element: i + 1 };
}
