/**
 * Owned fields are target paths into a payload (`products_price`, `languages.de.products_description`,
 * see src/mapping/owners.ts): read one, leave some out of an update, or build the one-field update
 * that takes the ERP's value. The paths run through objects only, never through list entries.
 */
import { isRecord } from '../util/guards.js';

/** The value at a dot path, or undefined when any step is missing. */
export function valueAtPath(record: Readonly<Record<string, unknown>> | undefined, path: string): unknown {
  let at: unknown = record;
  for (const segment of path.split('.')) {
    if (!isRecord(at)) return undefined;
    at = at[segment];
  }
  return at;
}

/** Whether the payload carries a value at the path. */
export function hasPath(payload: Readonly<Record<string, unknown>>, path: string): boolean {
  return valueAtPath(payload, path) !== undefined;
}

/**
 * A copy of the payload without the values at these paths; an object left empty by that goes too (a
 * language block with nothing left to write). The payload itself when it has none of them, so the
 * common update (no owned field in it) costs no copy.
 */
export function withoutPaths(payload: Record<string, unknown>, paths: readonly string[] | undefined): Record<string, unknown> {
  if (paths === undefined || !paths.some((p) => hasPath(payload, p))) return payload;
  const out = { ...payload };
  for (const path of paths) drop(out, path.split('.'));
  return out;
}

/** Remove one path from an object whose parents on the path were copied already (copies the next level down). */
function drop(obj: Record<string, unknown>, segments: readonly string[]): void {
  const [head, ...rest] = segments;
  if (head === undefined || !(head in obj)) return;
  if (rest.length === 0) {
    delete obj[head];
    return;
  }
  const child = obj[head];
  if (!isRecord(child)) return;
  const copy = { ...child };
  drop(copy, rest);
  if (Object.keys(copy).length === 0) delete obj[head];
  else obj[head] = copy;
}

/** Set a value at a dot path of an object, creating the objects on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let at = obj;
  for (const segment of segments.slice(0, -1)) {
    const next = at[segment];
    if (isRecord(next)) at = next;
    else at = at[segment] = {};
  }
  at[segments[segments.length - 1]!] = value;
}
