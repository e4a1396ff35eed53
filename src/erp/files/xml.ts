/**
 * XML records, streamed: a small scanner tracks the element path and cuts out each element at
 * `recordPath`; only that element's text is parsed (fast-xml-parser), so memory is one record.
 * Values stay strings (no number parsing: `0042` and `12,50` arrive as written).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { rawExcerpt, SOURCE_CODES, type ErpRecord } from '../types.js';
import type { FileSourceConfig } from './config.js';
import { tooLarge } from './bounds.js';
import type { FileRow } from './rows.js';
import { openText, type FileInput } from './text.js';

/** Scans XML text for complete elements at one path. */
export class RecordScanner {
  private buf = '';
  private pos = 0;
  private stack: string[] = [];
  private recordStart = -1;
  /** The start of the current record once it proved longer than `max`; the rest of it is not kept. */
  private tooLong: string | undefined;

  constructor(
    private readonly path: readonly string[],
    private readonly max = Number.POSITIVE_INFINITY,
  ) {}

  private atPath(): boolean {
    return this.stack.length === this.path.length && this.stack.every((s, i) => s === this.path[i]);
  }

  /** Feed text; returns the complete record elements it finished (one longer than `max` as its excerpt). */
  push(chunk: string): (string | { readonly tooLong: string })[] {
    this.buf += chunk;
    const out: (string | { readonly tooLong: string })[] = [];
    for (;;) {
      const lt = this.buf.indexOf('<', this.pos);
      if (lt < 0) { this.pos = this.buf.length; break; }
      const rest = this.buf.startsWith('<!--', lt) ? '-->' : this.buf.startsWith('<![CDATA[', lt) ? ']]>' : this.buf.startsWith('<?', lt) ? '?>' : this.buf.startsWith('<!', lt) ? '>' : null;
      if (rest) {
        const end = this.buf.indexOf(rest, lt + 2);
        if (end < 0) { this.pos = lt; break; }
        this.pos = end + rest.length;
        continue;
      }
      const gt = this.tagEnd(lt);
      if (gt < 0) { this.pos = lt; break; }
      const tag = this.buf.slice(lt + 1, gt);
      this.pos = gt + 1;
      if (tag.startsWith('/')) {
        const wasRecord = (this.recordStart >= 0 || this.tooLong !== undefined) && this.atPath();
        this.stack.pop();
        if (wasRecord && this.tooLong !== undefined) { out.push({ tooLong: this.tooLong }); this.tooLong = undefined; }
        else if (wasRecord) { out.push(this.buf.slice(this.recordStart, gt + 1)); this.recordStart = -1; }
        continue;
      }
      const name = /^[^\s/>]+/.exec(tag)?.[0] ?? '';
      this.stack.push(name);
      const isRecord = this.recordStart < 0 && this.tooLong === undefined && this.atPath();
      if (isRecord) this.recordStart = lt;
      if (tag.endsWith('/')) {
        this.stack.pop();
        if (isRecord) { out.push(this.buf.slice(lt, gt + 1)); this.recordStart = -1; }
      }
    }
    if (this.recordStart >= 0 && this.buf.length - this.recordStart > this.max) {
      // Too long: only its start is kept; scanning goes on to find where it ends.
      this.tooLong = rawExcerpt(this.buf.slice(this.recordStart, this.recordStart + 600));
      this.recordStart = -1;
    }
    // Keep only what a record still needs.
    const keep = this.recordStart >= 0 ? this.recordStart : this.pos;
    this.buf = this.buf.slice(keep);
    this.pos -= keep;
    if (this.recordStart >= 0) this.recordStart = 0;
    return out;
  }

  /** Index of the `>` closing the tag opened at `lt`, skipping quoted attribute values; -1 if not yet read. */
  private tagEnd(lt: number): number {
    let quote = '';
    for (let i = lt + 1; i < this.buf.length; i++) {
      const ch = this.buf[i];
      if (quote) { if (ch === quote) quote = ''; }
      else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '>') return i;
    }
    return -1;
  }

  /** Throws when the text ended inside a record or an element. */
  finish(): void {
    if (this.recordStart >= 0 || this.tooLong !== undefined) throw new Error(`file ends inside a <${this.path[this.path.length - 1]}> record (truncated?)`);
  }
}

/** Stream the records at `cfg.recordPath` (dotted or slashed element path from the root); a malformed record element is a bad row of its own. */
export async function* readXml(file: FileInput, cfg: FileSourceConfig): AsyncGenerator<FileRow> {
  const path = (cfg.recordPath ?? '').split(/[./]/).filter(Boolean);
  const recordName = path[path.length - 1] as string;
  const arrays = new Set(cfg.xmlArrays);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => arrays.has(name),
  });
  const scanner = new RecordScanner(path, cfg.maxRecordBytes);
  const text = openText(file, cfg.encoding);
  let n = 0;
  try {
    for await (const chunk of text) {
      for (const element of scanner.push(chunk as string)) {
        n++;
        if (typeof element !== 'string') {
          yield { bad: tooLarge(cfg.maxRecordBytes, `<${recordName}> element ${n}`), element: n, raw: element.tooLong };
          continue;
        }
        const valid = XMLValidator.validate(element);
        if (valid !== true) {
          yield { bad: { code: SOURCE_CODES.badXml, message: `<${recordName}> element ${n} is not well-formed XML: ${valid.err.msg} (line ${valid.err.line} of the element)` }, element: n, raw: rawExcerpt(element) };
          continue;
        }
        const parsed = parser.parse(element) as Record<string, unknown>;
        let value = parsed[recordName];
        if (Array.isArray(value)) value = value[0];
        if (value === null || typeof value !== 'object') value = value === '' || value === undefined ? {} : { '#text': value };
        yield { record: value as ErpRecord, element: n, raw: rawExcerpt(element) };
      }
    }
  } finally {
    text.destroy();
  }
  scanner.finish();
}
