/**
 * The bound on one record's size (`maxRecordBytes`, issue 42 item 9): a 300 MB line must not take
 * the run to gigabytes nor land whole in a dead letter. Line formats (CSV, NDJSON) are cut per
 * physical line before the parser sees them: a line longer than the bound reaches the parser as a
 * placeholder, and is reported as a bad row of its own (or makes the record it belongs to bad), with
 * an excerpt of its start. JSON arrays and XML bound each element in their splitters.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { rawExcerpt, SOURCE_CODES, type RefusedRecord } from '../types.js';

/** A line dropped for its length: where it was and how it began. */
export interface LongLine {
  /** 1-based line number, counted as the parsers count (`\r\n`, `\n` and a lone `\r` end a line). */
  readonly line: number;
  readonly excerpt: string;
}

/** The refusal of a record longer than the bound. */
export function tooLarge(max: number, what = 'the record'): RefusedRecord {
  return { code: SOURCE_CODES.recordTooLarge, message: `${what} is longer than maxRecordBytes (${max} characters); none of its values were used, and only its start is kept. Fix the export, or raise maxRecordBytes on the source if records this large are expected` };
}

/** Passes decoded text through, replacing every line longer than `max` characters by a placeholder line and noting it in `long`. */
export class LineCap extends Transform {
  readonly long: LongLine[] = [];
  private line = 1;
  /** The current line so far (at most `max` characters), held until it ends or proves too long. */
  private pending = '';
  /** The start of the current line once it proved too long (its rest is dropped). */
  private dropped: string | undefined;
  private afterCr = false;

  /** `placeholder`: what the parser gets instead of a dropped line (a parser that does not count empty lines needs a non-empty one). */
  constructor(
    private readonly max: number,
    private readonly placeholder = '',
  ) {
    super({ decodeStrings: false, encoding: 'utf8' });
  }

  private hold(part: string): void {
    if (this.dropped !== undefined) return;
    if (this.pending.length + part.length <= this.max) {
      this.pending += part;
      return;
    }
    this.dropped = rawExcerpt((this.pending + part.slice(0, 600)));
    this.pending = '';
  }

  private endLine(): string {
    if (this.dropped !== undefined) {
      this.long.push({ line: this.line, excerpt: this.dropped });
      this.dropped = undefined;
      return this.placeholder;
    }
    const text = this.pending;
    this.pending = '';
    return text;
  }

  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const breaks = /[\r\n]/g;
    let out = '';
    let from = 0;
    for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
      const at = m.index;
      const ch = text[at] as string;
      if (ch === '\n' && this.afterCr && at === from) {
        // The second half of a `\r\n` split from its first: the line was ended at the `\r`.
        out += ch;
        this.afterCr = false;
        from = at + 1;
        continue;
      }
      this.hold(text.slice(from, at));
      out += this.endLine() + ch;
      if (ch === '\r' && text[at + 1] === '\n') {
        out += '\n';
        breaks.lastIndex = at + 2;
        from = at + 2;
        this.afterCr = false;
      } else {
        from = at + 1;
        this.afterCr = ch === '\r';
      }
      this.line++;
    }
    if (from < text.length) {
      this.hold(text.slice(from));
      this.afterCr = false;
    }
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    done(null, this.endLine());
  }
}

/** Rows of a line format with the lines `cap` dropped merged in, in line order: a row spanning a dropped line becomes bad. */
export function* mergeLong<T extends { readonly line?: number; readonly raw?: string }>(cap: LineCap, row: T | undefined, spanOf: (row: T) => number, bad: (line: LongLine, row?: T) => T): Generator<T> {
  const first = row?.line ?? Number.POSITIVE_INFINITY;
  while (cap.long.length > 0 && (cap.long[0] as LongLine).line < first) yield bad(cap.long.shift() as LongLine);
  if (!row) return;
  const last = first + spanOf(row);
  let inside: LongLine | undefined;
  while (cap.long.length > 0 && (cap.long[0] as LongLine).line <= last) inside ??= cap.long.shift();
  yield inside ? bad(inside, row) : row;
}
