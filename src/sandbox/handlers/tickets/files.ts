/**
 * Ticket attachments stored like backend uploads: extension allowlist, size limit from
 * API_MEDIA_MAX_FILESIZE, file names `<ticket>_<history id>_<name>`, deduplication by content hash
 * (per ticket). One error per bad file; the ticket write itself goes on.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import type { OutboxAttachment, SandboxContext } from '../../handler.js';
import { isRecord } from '../../kit.js';

/** Extensions the administration interface accepts for ticket uploads (spec gap: list not shown). */
export const ALLOWED_EXTENSIONS: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  zip: 'application/zip',
  eml: 'message/rfc822',
};

/** Default of API_MEDIA_MAX_FILESIZE: 10 MB. */
export const DEFAULT_MAX_FILESIZE = 10 * 1024 * 1024;

/** One rejected file. */
export interface FileError {
  index: number;
  name: string;
  code: 'ATTACHMENT_NO_COMMENT' | 'ATTACHMENT_INVALID' | 'ATTACHMENT_EXTENSION' | 'ATTACHMENT_BASE64' | 'ATTACHMENT_TOO_LARGE';
  message: string;
}

/** A file that passed the checks, ready to be stored. */
export interface CheckedFile {
  index: number;
  name: string;
  content: Buffer;
}

/** Stored file metadata (listing record). */
export interface FileInfo {
  name: string;
  size: number;
  mime_type: string;
  last_modified: string;
}

/** The media size limit in bytes: API_MEDIA_MAX_FILESIZE as bytes or with a K/M/G suffix. */
export function maxFileSize(ctx: SandboxContext): number {
  const raw = ctx.settings().API_MEDIA_MAX_FILESIZE?.trim();
  const m = raw ? /^(\d+)\s*([kmg])?b?$/i.exec(raw) : null;
  if (!m) return DEFAULT_MAX_FILESIZE;
  const unit = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 1;
  return Number(m[1]) * unit;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The MIME type the shop answers for a file name. */
export function mimeTypeOf(name: string): string {
  return ALLOWED_EXTENSIONS[extensionOf(name)] ?? 'application/octet-stream';
}

/** A file name reduced to safe characters (no folders, no leading dots). */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'));
  return base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '');
}

/** Strict Base64 (padded, standard alphabet), checked without a backtracking regex so large files cannot overflow it. */
function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

/** Check the `attachments[]` of a write; `hasComment` false rejects every file. */
export function checkAttachments(ctx: SandboxContext, list: readonly unknown[], hasComment: boolean): { files: CheckedFile[]; errors: FileError[] } {
  const files: CheckedFile[] = [];
  const errors: FileError[] = [];
  const limit = maxFileSize(ctx);
  list.forEach((entry, index) => {
    const name = isRecord(entry) && typeof entry.name === 'string' ? entry.name : '';
    const reject = (code: FileError['code'], message: string) => errors.push({ index, name, code, message });
    if (!hasComment) return reject('ATTACHMENT_NO_COMMENT', `attachments[${index}] ${name}: attachments need ticket_comments in the same request`);
    if (!isRecord(entry) || name.trim() === '' || typeof entry.content_base64 !== 'string') {
      return reject('ATTACHMENT_INVALID', `attachments[${index}]: needs name (string) and content_base64 (string)`);
    }
    const ext = extensionOf(safeFileName(name));
    if (!(ext in ALLOWED_EXTENSIONS)) {
      return reject('ATTACHMENT_EXTENSION', `attachments[${index}] ${name}: extension \`${ext || '(none)'}\` is not allowed; allowed: ${Object.keys(ALLOWED_EXTENSIONS).join(', ')}`);
    }
    const b64 = entry.content_base64.replace(/\s+/g, '');
    if (b64.length === 0 || !isBase64(b64)) return reject('ATTACHMENT_BASE64', `attachments[${index}] ${name}: content_base64 is not valid Base64`);
    const content = Buffer.from(b64, 'base64');
    if (content.length > limit) return reject('ATTACHMENT_TOO_LARGE', `attachments[${index}] ${name}: ${content.length} bytes exceed the limit of ${limit} bytes (API_MEDIA_MAX_FILESIZE)`);
    files.push({ index, name, content });
  });
  return { files, errors };
}

function filesDir(ctx: SandboxContext): string {
  return ctx.filesDir('ticket_attachments');
}

/**
 * Store checked files for a history entry; a file whose content this ticket already holds is not
 * stored again and the existing name is returned. Returns the assigned names in input order.
 */
export function storeFiles(ctx: SandboxContext, ticketId: number, historyId: number, files: readonly CheckedFile[]): string[] {
  const dir = filesDir(ctx);
  const names: string[] = [];
  const sameContent = ctx.sql<[number, string], { name: string }>('SELECT name FROM sandbox_ticket_files WHERE ticket_id = ? AND sha256 = ?');
  const nameTaken = ctx.sql<[string]>('SELECT 1 FROM sandbox_ticket_files WHERE name = ?');
  const insert = ctx.sql('INSERT INTO sandbox_ticket_files (name, ticket_id, history_id, size, mime_type, sha256, last_modified) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const file of files) {
    const hash = createHash('sha256').update(file.content).digest('hex');
    const existing = sameContent.get(ticketId, hash);
    if (existing && existsSync(join(dir, existing.name))) {
      names.push(existing.name);
      continue;
    }
    let name = `${ticketId}_${historyId}_${safeFileName(file.name)}`;
    for (let n = 2; nameTaken.get(name) !== undefined; n++) {
      name = `${ticketId}_${historyId}_${n}_${safeFileName(file.name)}`;
    }
    writeFileSync(join(dir, name), file.content);
    insert.run(name, ticketId, historyId, file.content.length, mimeTypeOf(name), hash, ctx.timestamp());
    names.push(name);
  }
  return names;
}

/** The files of a ticket (listing records). */
export function listFiles(ctx: SandboxContext, ticketId: number): FileInfo[] {
  return ctx.sql<[number], FileInfo>('SELECT name, size, mime_type, last_modified FROM sandbox_ticket_files WHERE ticket_id = ? ORDER BY history_id, name')
    .all(ticketId)
    .filter((f) => existsSync(join(filesDir(ctx), f.name)));
}

/** Stored files of a ticket as the attachments of a mail, in the order of `names`. */
export function mailAttachments(ctx: SandboxContext, ticketId: number, names: readonly string[]): OutboxAttachment[] {
  const files = listFiles(ctx, ticketId);
  return names.flatMap((name) => files.filter((f) => f.name === name).map((f) => ({ name: f.name, size: f.size, mime_type: f.mime_type })));
}

/**
 * Read one file of a ticket. The name must be a plain file name registered for this ticket and
 * resolve inside the attachment folder: `../`, slashes and other tickets' files are refused.
 */
export function readFile(ctx: SandboxContext, ticketId: number, name: string): { info: FileInfo; content: Buffer } | 'unsafe' | undefined {
  if (name !== basename(name) || name.includes('/') || name.includes('\\') || name.startsWith('.') || name.includes('\0')) return 'unsafe';
  const dir = resolve(filesDir(ctx));
  const path = resolve(dir, name);
  if (!path.startsWith(dir + sep)) return 'unsafe';
  const info = ctx.sql<[string, number], FileInfo>('SELECT name, size, mime_type, last_modified FROM sandbox_ticket_files WHERE name = ? AND ticket_id = ?')
    .get(name, ticketId);
  if (!info || !existsSync(path)) return undefined;
  return { info, content: readFileSync(path) };
}

/** Delete every file of a ticket from disk and the file table; returns how many. */
export function deleteFiles(ctx: SandboxContext, ticketId: number): number {
  const dir = filesDir(ctx);
  const rows = ctx.sql<[number], { name: string }>('SELECT name FROM sandbox_ticket_files WHERE ticket_id = ?').all(ticketId);
  for (const row of rows) {
    const path = join(dir, row.name);
    if (existsSync(path)) unlinkSync(path);
  }
  ctx.sql('DELETE FROM sandbox_ticket_files WHERE ticket_id = ?').run(ticketId);
  return rows.length;
}
