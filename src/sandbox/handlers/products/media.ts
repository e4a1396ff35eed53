/**
 * `POST /media`: the spec names the route and `entity_type` (`download` uploads into the files area)
 * and says "shape not shown". The sandbox implements an ASSUMED shape (docs/catalog.md, "Images"),
 * the same file shape as ticket attachments: JSON `{entity_type, files: [{name, content_base64}]}`;
 * `product_image` stores into the shop's image folder, `download` into the files area. A file of the
 * same name is replaced (product images are addressed by file name). One error per bad file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxContext, SandboxReply, SandboxRequest } from '../../handler.js';
import { API_VERSION, fail, isRecord, ok } from '../../kit.js';
import { maxFileSize, safeFileName } from '../tickets/files.js';

/** Where each entity type's files go, and the extensions it takes. */
const AREAS: Readonly<Record<string, { folder: string; extensions: readonly string[] }>> = {
  product_image: { folder: 'product_images', extensions: ['jpg', 'jpeg', 'png', 'gif', 'webp'] },
  download: { folder: 'downloads', extensions: ['pdf', 'zip', 'txt', 'jpg', 'jpeg', 'png', 'mp3', 'mp4', 'epub'] },
};

/** The folder holding product images (read by the product import to warn about missing files). */
export function productImageFolder(ctx: SandboxContext): string {
  return ctx.filesDir(AREAS.product_image.folder);
}

/** Whether the shop's image folder holds a file of this name. */
export function hasProductImage(ctx: SandboxContext, name: string): boolean {
  const safe = safeFileName(name);
  return safe === name && existsSync(join(productImageFolder(ctx), safe));
}

/** POST /media (assumed shape). */
export function uploadMedia(ctx: SandboxContext, req: SandboxRequest): SandboxReply {
  const body = isRecord(req.body) ? req.body : {};
  const entityType = String(body.entity_type ?? req.query.entity_type ?? '');
  const area = AREAS[entityType];
  if (!area) fail(400, 'INVALID_PAYLOAD', `entity_type must be one of ${Object.keys(AREAS).join(', ')}, got ${JSON.stringify(entityType)}`, { field: 'entity_type' });
  if (!Array.isArray(body.files) || body.files.length === 0) fail(400, 'INVALID_PAYLOAD', 'files must be a non-empty list of {name, content_base64}', { field: 'files' });
  const limit = maxFileSize(ctx);
  const folder = ctx.filesDir(area.folder);
  const stored: Record<string, unknown>[] = [];
  const errors: Record<string, unknown>[] = [];
  body.files.forEach((file, index) => {
    const name = isRecord(file) && typeof file.name === 'string' ? file.name : '';
    const reject = (code: string, message: string) => errors.push({ index, name, code, message, field: `files[${index}]` });
    if (!isRecord(file) || name.trim() === '' || typeof file.content_base64 !== 'string') return reject('INVALID_PAYLOAD', `files[${index}]: needs name and content_base64 (strings)`);
    const safe = safeFileName(name);
    const ext = safe.includes('.') ? safe.slice(safe.lastIndexOf('.') + 1).toLowerCase() : '';
    if (safe === '' || !area.extensions.includes(ext)) return reject('MEDIA_EXTENSION', `files[${index}] ${name}: extension \`${ext || '(none)'}\` is not taken for ${entityType}; allowed: ${area.extensions.join(', ')}`);
    const b64 = file.content_base64.replace(/\s+/g, '');
    if (b64.length === 0 || b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return reject('MEDIA_BASE64', `files[${index}] ${name}: content_base64 is not valid Base64`);
    const content = Buffer.from(b64, 'base64');
    if (content.length > limit) return reject('MEDIA_TOO_LARGE', `files[${index}] ${name}: ${content.length} bytes exceed the limit of ${limit} bytes (API_MEDIA_MAX_FILESIZE)`);
    writeFileSync(join(folder, safe), content);
    stored.push({ index, name, file_name: safe, size: content.length });
  });
  return ok({ success: errors.length === 0, api_version: API_VERSION, type: 'media', entity_type: entityType, files: stored, errors });
}
