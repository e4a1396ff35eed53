/** Value helpers shared by the content resources: strict booleans, text, dates, decimals, in-memory paging. */
import type { SandboxContext, SandboxReply, SandboxRequest } from '../../handler.js';
import { fail, listReply, pageParams, registryConditions, RecordError } from '../../kit.js';
import type { FieldCondition, StoredRecord } from '../../store.js';

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

/** 'YYYY-MM-DD HH:MM:SS' of a Date (UTC). */
export function formatDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Parse the shop's 'YYYY-MM-DD HH:MM:SS' (or a date) as UTC. */
export function parseDateTime(text: string): Date {
  const iso = text.length === 10 ? `${text}T00:00:00Z` : `${text.replace(' ', 'T')}Z`;
  return new Date(iso);
}

/** A date string plus whole months (day clamped to the month's end), as YYYY-MM-DD. */
export function addMonths(day: string, months: number): string {
  const [y, m, d] = day.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

/** A date string plus days, as YYYY-MM-DD. */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** A decimal as the shop returns money: a string with two decimals ('49.90'). */
export function decimalString(value: number): string {
  return (Math.round((value + Number.EPSILON) * 100) / 100).toFixed(2);
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

/**
 * A list export with registry filters in SQL plus a predicate in memory (array-valued filters,
 * language, joins), then paging; `view` shapes each record for the answer. `manualParams` are
 * checked against the registry like every filter but left to `keep`.
 */
export function exportFiltered(
  ctx: SandboxContext,
  req: SandboxRequest,
  options: {
    readonly manualParams?: readonly string[];
    readonly where?: readonly FieldCondition[];
    readonly idFrom?: number;
    readonly idTo?: number;
    readonly keep?: (record: StoredRecord) => boolean;
    readonly view: (record: StoredRecord) => unknown;
  },
): SandboxReply {
  const def = req.resource;
  const page = pageParams(def, req.query);
  const where = [...registryConditions(def, req.query, { manual: options.manualParams }), ...(options.where ?? [])];
  const { records } = ctx.store.list(def.name, { where, idFrom: options.idFrom, idTo: options.idTo });
  const kept = options.keep ? records.filter(options.keep) : records;
  return listReply(def, kept.slice(page.offset, page.offset + page.limit).map(options.view), { total: kept.length, ...page });
}

/** An integer query parameter within bounds (400 INVALID_PAYLOAD otherwise); undefined when absent. */
export function intQuery(query: Readonly<Record<string, string>>, param: string, min?: number, max?: number): number | undefined {
  const raw = query[param];
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) fail(400, 'INVALID_PAYLOAD', `${param} must be an integer, got \`${raw}\``);
  const n = Number(raw);
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) fail(400, 'INVALID_PAYLOAD', `${param} must be ${min ?? '…'} to ${max ?? '…'}, got ${n}`);
  return n;
}

/** A positive integer id from the path (400 INVALID_PAYLOAD otherwise). */
export function pathId(req: SandboxRequest, name = 'id'): number {
  const raw = req.params[name];
  if (raw === undefined || !/^\d+$/.test(raw)) fail(400, 'INVALID_PAYLOAD', `The path needs a positive integer id, got \`${raw ?? ''}\``);
  return Number(raw);
}
