/**
 * The values of a lookup's `create:`, filled from the shop record. `{record.billing.lastname}` reads
 * the shop record, `{value}` is the value looked up. A string that is only one placeholder keeps the
 * value's type (a number stays a number, a list a list); inside a longer text a missing value is ''.
 */
import { valueAt } from '../../util/paths.js';

const WHOLE = /^\{([A-Za-z0-9_.$]+)\}$/;
const PART = /\{([A-Za-z0-9_.$]+)\}/g;

/** What a placeholder reads: `value`, or `record.<path>`; anything else is not a placeholder and stays as written. */
function read(path: string, scope: { record: Record<string, unknown>; value: unknown }): { known: boolean; value?: unknown } {
  if (path === 'value') return { known: true, value: scope.value };
  if (path.startsWith('record.')) return { known: true, value: valueAt(scope.record, path.slice('record.'.length).split('.')) };
  return { known: false };
}

/** Fill every placeholder of a `create.values` tree (objects, lists, strings). */
export function fillTemplate(template: unknown, scope: { record: Record<string, unknown>; value: unknown }): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      const r = read(whole[1]!, scope);
      if (r.known) return r.value ?? null;
    }
    return template.replace(PART, (all, path: string) => {
      const r = read(path, scope);
      if (!r.known) return all;
      const v = r.value;
      return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(template)) return template.map((t) => fillTemplate(t, scope));
  if (template !== null && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, scope)]));
  return template;
}
