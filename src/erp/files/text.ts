/**
 * Decoding files as streams of text: UTF-8 (BOM removed), Windows-1252 and ISO-8859-1.
 */
import { createReadStream } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';
import { pipeline, type Readable, type Transform } from 'node:stream';
import iconv from 'iconv-lite';
import type { Encoding } from './config.js';
import { ByteGuard } from './encoding.js';

/**
 * A file to read: a path (a sample `init` looks at), or a descriptor the inbox opened once and
 * checked (src/erp/files/entries.ts), so that no later open can be sent elsewhere by a link.
 */
export type FileInput = string | FileHandle;

/** The raw bytes of a file from its start; a descriptor stays open (its owner closes it). */
export function openBytes(file: FileInput, highWaterMark: number) {
  // `start: 0` reads at positions, so each pass over one descriptor begins at the first byte.
  return typeof file === 'string' ? createReadStream(file, { highWaterMark }) : createReadStream('', { fd: file, start: 0, autoClose: false, emitClose: false, highWaterMark });
}

/** The file's size now. */
export async function sizeOf(file: FileInput): Promise<number> {
  return (typeof file === 'string' ? await stat(file) : await file.stat()).size;
}

/**
 * A readable stream of decoded text chunks (through `cap`, a record-size bound, when given); read errors, and bytes not valid in `encoding` (with
 * their offset, see `ByteGuard`), surface on the returned stream.
 */
export function openText(file: FileInput, encoding: Encoding | undefined, then?: Transform, cap?: Transform): Readable {
  const chosen = encoding ?? 'utf-8';
  const raw = openBytes(file, 256 * 1024);
  // iconv removes a UTF-8 BOM by default (stripBOM), so `\uFEFF` never ends up in the first column name.
  const decoder = iconv.decodeStream(chosen) as unknown as Transform;
  const guard = new ByteGuard(chosen);
  if (cap && then) return pipeline(raw, guard, decoder, cap, then, () => undefined);
  if (cap) return pipeline(raw, guard, decoder, cap, () => undefined);
  if (then) return pipeline(raw, guard, decoder, then, () => undefined);
  return pipeline(raw, guard, decoder, () => undefined);
}
