/**
 * Decoding files as streams of text: UTF-8 (BOM removed), Windows-1252 and ISO-8859-1.
 */
import { createReadStream } from 'node:fs';
import { pipeline, type Readable, type Transform } from 'node:stream';
import iconv from 'iconv-lite';
import type { Encoding } from './config.js';
import { ByteGuard } from './encoding.js';

/**
 * A readable stream of decoded text chunks; read errors, and bytes not valid in `encoding` (with
 * their offset, see `ByteGuard`), surface on the returned stream.
 */
export function openText(file: string, encoding: Encoding | undefined, then?: Transform): Readable {
  const chosen = encoding ?? 'utf-8';
  const raw = createReadStream(file, { highWaterMark: 256 * 1024 });
  // iconv removes a UTF-8 BOM by default (stripBOM), so `\uFEFF` never ends up in the first column name.
  const decoder = iconv.decodeStream(chosen) as unknown as Transform;
  const guard = new ByteGuard(chosen);
  if (then) return pipeline(raw, guard, decoder, then, () => undefined);
  return pipeline(raw, guard, decoder, () => undefined);
}
