/** Value helpers shared by the content resources: strict booleans, text, date fields, decimals, ids. */
import type { SandboxContext, SandboxRequest } from '../../handler.js';
import type { StoredRecord } from '../../store.js';
import { fail, isRecord, optionalInt, RecordError, round2 } from '../../kit.js';

/** Remove HTML tags (and decode the few entities a label may carry). */
export function stripHtml(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .trim();
}

/** A URL slug from a title: lower case, umlauts transliterated, hyphens between words. */
export function slugify(text: string): string {
  const map: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', Ä: 'ae', Ö: 'oe', Ü: 'ue' };
  return stripHtml(text)
    .replace(/[äöüßÄÖÜ]/g, (c) => map[c] ?? c)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A decimal as the shop returns money: a string with two decimals ('49.90'). */
export function decimalString(value: number): string {
  return round2(value).toFixed(2);
}

/** A decimal in point notation (number or '50.5'); INVALID_PAYLOAD for anything else (a comma included). */
export function requireDecimal(record: Record<string, unknown>, field: string): number {
  const v = record[field];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  throw new RecordError('INVALID_PAYLOAD', v === undefined ? `${field} is required` : `${field} must be a decimal in point notation like '49.90', got ${JSON.stringify(v)}`, field);
}

/** A date field (YYYY-MM-DD) or null; INVALID_PAYLOAD otherwise. */
export function dateOrNull(record: Record<string, unknown>, field: string): string | null {
  const v = record[field];
  if (v === null || v === '') return null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  throw new RecordError('INVALID_PAYLOAD', `${field} must be a date as YYYY-MM-DD or null, got ${JSON.stringify(v)}`, field);
}

/** A datetime field ('YYYY-MM-DD HH:MM:SS', a bare date taken as midnight) or null; INVALID_PAYLOAD otherwise. */
export function datetimeOrNull(record: Record<string, unknown>, field: string): string | null {
  const v = record[field];
  if (v === null || v === '') return null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(v)) return v;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v} 00:00:00`;
  throw new RecordError('INVALID_PAYLOAD', `${field} must be a datetime as 'YYYY-MM-DD HH:MM:SS', got ${JSON.stringify(v)}`, field);
}

/** A 0/1 flag (0, 1, '0', '1', true, false); INVALID_PAYLOAD otherwise. */
export function flagValue(record: Record<string, unknown>, field: string): 0 | 1 {
  const v = record[field];
  if (v === 1 || v === '1' || v === true) return 1;
  if (v === 0 || v === '0' || v === false) return 0;
  throw new RecordError('INVALID_PAYLOAD', `${field} must be 0 or 1, got ${JSON.stringify(v)}`, field);
}

/** An array of positive integer ids; INVALID_PAYLOAD otherwise. */
export function idList(record: Record<string, unknown>, field: string): number[] {
  const v = record[field];
  if (!Array.isArray(v)) throw new RecordError('INVALID_PAYLOAD', `${field} must be an array of ids`, field);
  const out: number[] = [];
  for (const item of v) {
    const n = typeof item === 'string' && /^\d+$/.test(item) ? Number(item) : item;
    if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) throw new RecordError('INVALID_PAYLOAD', `${field} must hold positive integer ids, got ${JSON.stringify(item)}`, field);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** The positive integer id a delete takes from the query or the body (400 INVALID_PAYLOAD otherwise). */
export function deleteId(req: SandboxRequest, field: string): number {
  const body = isRecord(req.body) ? req.body : {};
  const raw = req.query[field] ?? body[field];
  const id = Number(raw);
  if (raw === undefined || !Number.isInteger(id) || id <= 0) fail(400, 'INVALID_PAYLOAD', `Delete needs ${field} (query or body)`);
  return id;
}

/** The stored record a PUT names by its id field: INVALID_PAYLOAD when the id is missing, `Not found` when unknown. */
export function recordToUpdate<T = StoredRecord>(ctx: SandboxContext, record: Record<string, unknown>, resource: string, idField: string, label: string): { id: number; stored: T } {
  const id = optionalInt(record, idField);
  if (id === undefined) throw new RecordError('INVALID_PAYLOAD', `${idField} is required on update`, idField);
  const stored = ctx.store.get(resource, id);
  if (!stored) throw new RecordError('Not found', `${label} ${id} does not exist`, idField, { [idField]: id });
  return { id, stored: stored as T };
}

/** The stored record the path's id names; 404 `Not found` when unknown. */
export function recordFromPath<T = StoredRecord>(ctx: SandboxContext, req: SandboxRequest, resource: string, label: string): T {
  const stored = ctx.store.get(resource, pathId(req));
  if (!stored) fail(404, 'Not found', `${label} ${req.params.id} does not exist`);
  return stored as T;
}

/** A positive integer id from the path (400 INVALID_PAYLOAD otherwise). */
export function pathId(req: SandboxRequest, name = 'id'): number {
  const raw = req.params[name];
  if (raw === undefined || !/^\d+$/.test(raw)) fail(400, 'INVALID_PAYLOAD', `The path needs a positive integer id, got \`${raw ?? ''}\``);
  return Number(raw);
}
