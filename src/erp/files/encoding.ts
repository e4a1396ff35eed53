/**
 * Which encoding a file is read in, and a guard that its bytes are valid in it.
 *
 * Order: a UTF-8 byte-order mark wins (over a configured encoding too, with a warning: the file
 * says what it is); then the source's `encoding` when set; then an XML file's own declaration
 * (`<?xml version="1.0" encoding="ISO-8859-1"?>`); then UTF-8. Bytes that are not valid in the
 * chosen encoding stop the file with the byte offset, instead of reading on with replacement
 * characters (a silently garbled article name is worse than a refused file).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Encoding, FileSourceConfig } from './config.js';
import { openBytes, type FileInput } from './text.js';

const UTF8_BOM = [0xef, 0xbb, 0xbf];

const DECLARED: Readonly<Record<string, Encoding>> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'iso-8859-1': 'iso-8859-1',
  'iso8859-1': 'iso-8859-1',
  latin1: 'iso-8859-1',
  'latin-1': 'iso-8859-1',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
};

/** The encoding a file is read in, and a warning when the file contradicts the configuration. */
export interface FileEncoding {
  readonly encoding: Encoding;
  readonly warning?: string;
}

function head(file: FileInput, bytes = 512): Buffer {
  const fd = typeof file === 'string' ? openSync(file, 'r') : file.fd;
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    if (typeof file === 'string') closeSync(fd);
  }
}

/** Decide the encoding of one file (reads its first bytes). */
export function fileEncoding(file: FileInput, cfg: Pick<FileSourceConfig, 'encoding' | 'format'>): FileEncoding {
  const start = head(file);
  if (UTF8_BOM.every((b, i) => start[i] === b)) {
    if (cfg.encoding !== undefined && cfg.encoding !== 'utf-8') {
      return { encoding: 'utf-8', warning: `the file starts with a UTF-8 byte-order mark but the source says encoding ${cfg.encoding}; read as UTF-8 (the mark wins). Fix \`encoding\` or the export.` };
    }
    return { encoding: 'utf-8' };
  }
  if (cfg.encoding !== undefined) return { encoding: cfg.encoding };
  if (cfg.format === 'xml') {
    const declaration = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(start.toString('latin1'));
    if (declaration) {
      const name = (declaration[1] as string).toLowerCase();
      const known = DECLARED[name];
      if (!known) throw new Error(`the XML declaration names encoding ${declaration[1]}, which shopsync does not read (utf-8, windows-1252, iso-8859-1); set \`encoding\` on the source to read it as one of those`);
      return { encoding: known };
    }
  }
  return { encoding: 'utf-8' };
}

/** Windows-1252 leaves these bytes undefined. */
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/** Passes bytes through unchanged and fails on the first byte that is not valid in `encoding`, naming its offset. */
export class ByteGuard extends Transform {
  private offset = 0;
  /** Bytes of an unfinished UTF-8 sequence carried to the next chunk. */
  private pending = 0;

  constructor(private readonly encoding: Encoding) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const bad = this.encoding === 'utf-8' ? this.utf8(chunk) : this.encoding === 'windows-1252' ? this.cp1252(chunk) : -1;
    if (bad >= 0) {
      done(new Error(`the byte at offset ${bad} (0x${(chunk[bad - this.offset] ?? 0).toString(16).padStart(2, '0')}) is not valid ${this.encoding}; the file is not in the encoding it was read in (set \`encoding\` on the source, or fix the export)`));
      return;
    }
    this.offset += chunk.length;
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    done(this.pending > 0 ? new Error(`the file ends inside a UTF-8 character at byte ${this.offset}`) : null);
  }

  private cp1252(chunk: Buffer): number {
    for (let i = 0; i < chunk.length; i++) if (CP1252_UNDEFINED.has(chunk[i] as number)) return this.offset + i;
    return -1;
  }

  /** Offset of the first invalid byte, or -1; keeps the state of a sequence split between chunks. */
  private utf8(chunk: Buffer): number {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (this.pending > 0) {
        if ((b & 0xc0) !== 0x80) return this.offset + i;
        this.pending--;
        continue;
      }
      if (b < 0x80) continue;
      if (b >= 0xc2 && b <= 0xdf) this.pending = 1;
      else if (b >= 0xe0 && b <= 0xef) this.pending = 2;
      else if (b >= 0xf0 && b <= 0xf4) this.pending = 3;
      else return this.offset + i;
    }
    return -1;
  }
}

/**
 * Check every byte of a file before any record of it is handed out, so a file in the wrong
 * encoding is refused whole instead of half applied; rejects with the offset of the first bad byte.
 */
export async function checkBytes(file: FileInput, encoding: Encoding): Promise<void> {
  if (encoding === 'iso-8859-1') return; // every byte is a character
  await pipeline(openBytes(file, 1024 * 1024), new ByteGuard(encoding), new Writable({ write: (_chunk, _enc, done) => done() }));
}
