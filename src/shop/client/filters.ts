/** Validation of export filters against the registry, before anything is sent. */
import { ValidationError } from '../errors.js';
import type { ExportDef, FilterDef } from '../registry/index.js';

/** Query parameters the client manages itself. */
const PAGING_PARAMS = new Set(['limit', 'offset']);

/** Check every filter against the resource's declared filters; returns them as query parameters. */
export function checkFilters(resource: string, def: ExportDef, filters: Readonly<Record<string, string | number>> = {}): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(filters)) {
    if (PAGING_PARAMS.has(name)) throw invalid(resource, name, value, 'is set by the client; use the pageSize and offset options');
    const filter = def.filters[name];
    if (!filter) {
      const known = Object.keys(def.filters);
      throw invalid(resource, name, value, `is not an export filter of ${resource}; known filters: ${known.length ? known.join(', ') : '(none)'}`);
    }
    const problem = filterProblem(filter, value);
    if (problem) throw invalid(resource, name, value, problem);
    out[name] = value;
  }
  return out;
}

function filterProblem(filter: FilterDef, value: string | number): string | undefined {
  const text = String(value);
  switch (filter.type) {
    case 'int': {
      if (!/^-?\d+$/.test(text)) return 'expected a whole number';
      const n = Number(text);
      if (filter.min !== undefined && n < filter.min) return `expected at least ${filter.min}`;
      if (filter.max !== undefined && n > filter.max) return `expected at most ${filter.max}`;
      if (filter.values && !filter.values.map(String).includes(text)) return `expected one of ${filter.values.join(', ')}`;
      return undefined;
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? undefined : 'expected a date as YYYY-MM-DD';
    case 'timestamp':
      return /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(text) ? undefined : "expected 'YYYY-MM-DD HH:MM:SS' (or YYYY-MM-DD)";
    case 'flag':
      return text === '0' || text === '1' ? undefined : 'expected 0 or 1';
    case 'enum':
      return filter.values?.map(String).includes(text) ? undefined : `expected one of ${(filter.values ?? []).join(', ')}`;
    case 'string':
      return text === '' ? 'expected a non-empty string' : undefined;
  }
}

function invalid(resource: string, name: string, value: unknown, why: string): ValidationError {
  return new ValidationError('INVALID_FILTER', `Export filter \`${name}\` (got \`${String(value)}\`) ${why}`, { details: { filter: name }, record: { resource } });
}
