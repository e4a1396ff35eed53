/**
 * Media upload (`POST /media`). The spec names the route and `entity_type` and says "shape not
 * shown"; shopsync sends an ASSUMED shape (docs/catalog.md, "Images"), only when a pipeline opts in
 * with `mediaUpload: assumed-media-endpoint`: `{entity_type, files: [{name, content_base64}]}`,
 * the file shape the spec shows for ticket attachments. A file the shop refuses is an error.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { answerError, isSuccess, parseAnswer } from './answers.js';
import type { Transport } from './http.js';
import { extraOf } from './lookup.js';

/** One file to upload. */
export interface MediaFile {
  readonly name: string;
  readonly content: Buffer;
}

/** What the shop stored: the file names it assigned, in request order. */
export interface MediaUploadResult {
  readonly files: readonly { readonly name: string; readonly file_name: string }[];
}

const mediaAnswer = z.looseObject({
  files: z.array(z.looseObject({ name: z.string(), file_name: z.string() })).default([]),
  errors: z.array(z.looseObject({ name: z.string().optional(), code: z.string().optional(), message: z.string().optional() })).default([]),
});

/** Upload files for an entity type (`product_image`, `download`); throws when the shop refused any. */
export async function uploadMedia(transport: Transport, entityType: string, files: readonly MediaFile[]): Promise<MediaUploadResult> {
  const { resource, op } = extraOf('products', 'media');
  const record = { resource: resource.name };
  if (files.length === 0) return { files: [] };
  const body = { entity_type: entityType, files: files.map((f) => ({ name: f.name, content_base64: f.content.toString('base64') })) };
  // Same names, same content: sending it again after a lost answer replaces the file with itself.
  const answer = await transport.send({ resource: resource.name, method: op.method, path: op.path, body, repeatSafe: true });
  const what = `${op.method} ${op.path}`;
  if (!isSuccess(answer)) throw answerError(answer, what, (t) => transport.scrub(t), record);
  const parsed = parseAnswer(mediaAnswer, answer.data, what, record);
  if (parsed.errors.length > 0) {
    const first = parsed.errors[0];
    throw new ValidationError(first.code ?? 'MEDIA_REFUSED', `${what}: the shop refused ${parsed.errors.length} file(s): ${parsed.errors.map((e) => `${e.name ?? '?'}: ${e.message ?? e.code ?? 'refused'}`).join('; ')}`, { record });
  }
  return { files: parsed.files };
}
