/**
 * List exports: the registry's export filters (checked, then turned into store conditions), paging,
 * and an optional predicate for what SQL cannot express (array members, joins, languages).
 */
import type { FilterDef, ResourceDef } from '../shop/registry/index.js';
import { addDays } from './dates.js';
import type { SandboxContext, SandboxReply, SandboxRequest } from './handler.js';
import { fail, intParam, listReply, pageParams } from './kit.js';
import type { FieldCondition, StoredRecord } from './store.js';

/** `n` within `min`..`max` (either may be absent); 400 INVALID_PAYLOAD naming the parameter otherwise. */
function inRange(param: string, n: number, min: number | undefined, max: number | undefined): number {
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) fail(400, 'INVALID_PAYLOAD', `${param} must be ${min ?? '…'} to ${max ?? '…'}, got ${n}`, { parameter: param });
  return n;
}

/** An integer query parameter within bounds (400 INVALID_PAYLOAD otherwise); undefined when absent. */
export function intQuery(query: Readonly<Record<string, string>>, param: string, min?: number, max?: number): number | undefined {
  const raw = query[param];
  if (raw === undefined || raw === '') return undefined;
  return inRange(param, intParam(raw, param), min, max);
}

/** `raw` checked as the query value of a declared export filter: the typed value, or 400 INVALID_PAYLOAD naming the parameter. */
export function filterValue(param: string, filter: FilterDef, raw: string): string | number {
  const refuse = (expected: string): never => fail(400, 'INVALID_PAYLOAD', `${param} must be ${expected}, got \`${raw}\``, { parameter: param });
  switch (filter.type) {
    case 'int':
    case 'flag': {
      const n = inRange(param, intParam(raw, param), filter.min, filter.max);
      if (filter.values && !filter.values.some((v) => String(v) === String(n))) refuse(`one of ${filter.values.join(', ')}`);
      return n;
    }
    case 'enum': {
      // The declared value, not the query text: numeric enums (contracts interval) are stored as numbers.
      const match = filter.values ? filter.values.find((v) => String(v) === raw.trim()) : raw;
      return match ?? refuse(`one of ${(filter.values ?? []).join(', ')}`);
    }
    case 'date':
      return DAY.test(raw) ? raw : refuse('a date as YYYY-MM-DD');
    case 'timestamp':
      return DAY.test(raw) || DATETIME.test(raw) ? raw : refuse("a timestamp as 'YYYY-MM-DD HH:MM:SS' or a date as YYYY-MM-DD");
    default:
      return raw;
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The store condition of one checked filter value on its record field. */
function filterCondition(param: string, filter: FilterDef & { field: string }, value: string | number): FieldCondition {
  switch (filter.type) {
    case 'int':
      if (param.endsWith('_min')) return { field: filter.field, op: '>=', value };
      if (param.endsWith('_max')) return { field: filter.field, op: '<=', value };
      return { field: filter.field, op: '=', value };
    case 'date':
      // Compared as text against date-only ('2026-01-31') and datetime ('2026-01-31 18:00:00') fields
      // alike: on or after the day's bare date, before the next day's.
      if (param.endsWith('_to')) return { field: filter.field, op: '<', value: addDays(String(value), 1) };
      return { field: filter.field, op: '>=', value };
    case 'timestamp':
      return { field: filter.field, op: '>=', value };
    case 'string':
      // The shop's database collation compares text case-insensitively (e-mail addresses above all).
      return { field: filter.field, op: 'ieq', value };
    default:
      return { field: filter.field, op: '=', value };
  }
}

/**
 * Export filters from the registry. Every declared filter in the query is checked first (type,
 * enum values, int min/max: 400 INVALID_PAYLOAD naming the parameter), the `manual` ones too; then
 * every filter with a `field` that is not `manual` becomes a condition on that record field:
 * `int` equality (`*_min`/`*_max`: at least/at most), `enum` and `flag` equality with the declared
 * value, `string` case-insensitive equality, `date` named `*_to` up to the end of that day and other
 * `date`/`timestamp` filters (`*_from`, `last_modified`) from that day or moment on.
 */
export function registryConditions(def: ResourceDef, query: Readonly<Record<string, string>>, options: { manual?: readonly string[] } = {}): FieldCondition[] {
  const filters = def.ops.export?.filters ?? {};
  const out: FieldCondition[] = [];
  for (const [param, filter] of Object.entries(filters)) {
    const raw = query[param];
    if (raw === undefined || raw === '') continue;
    const value = filterValue(param, filter, raw);
    if (filter.field === undefined || options.manual?.includes(param)) continue;
    out.push(filterCondition(param, { ...filter, field: filter.field }, value));
  }
  return out;
}

/** Options of `exportFromStore`. */
export interface ExportOptions {
  /** Registry filters the handler evaluates itself in `keep` (they are still checked). */
  readonly manualParams?: readonly string[];
  readonly where?: readonly FieldCondition[];
  readonly idFrom?: number;
  readonly idTo?: number;
  /** A predicate in memory; without it the store pages in SQL. */
  readonly keep?: (record: StoredRecord) => boolean;
  /** Shapes each record for the answer. */
  readonly view?: (record: StoredRecord) => unknown;
}

/** A list export from the store: registry filters, extra conditions, an optional predicate, paging and a projection. */
export function exportFromStore(ctx: SandboxContext, req: SandboxRequest, options: ExportOptions = {}): SandboxReply {
  const def = req.resource;
  const page = pageParams(def, req.query);
  const where = [...registryConditions(def, req.query, { manual: options.manualParams }), ...(options.where ?? [])];
  const view = options.view ?? ((r: StoredRecord) => r);
  const range = { where, idFrom: options.idFrom, idTo: options.idTo };
  if (!options.keep) {
    const { records, total } = ctx.store.list(def.name, { ...range, limit: page.limit, offset: page.offset });
    return listReply(def, records.map(view), { total, ...page });
  }
  const kept = ctx.store.list(def.name, range).records.filter(options.keep);
  return listReply(def, kept.slice(page.offset, page.offset + page.limit).map(view), { total: kept.length, ...page });
}
