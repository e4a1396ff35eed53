/**
 * Dot paths, compiled once into getters and setters.
 */

import { compileRead, compileWrite, type Base } from './access.js';

// Reading and writing zod issue paths is shared with the config, client and ERP parts.
export { formatPath, valueAt } from '../util/paths.js';

/** The input a rule reads: the current item (record, list entry or group) and the whole record. */
export interface Scope {
  readonly item: unknown;
  readonly root: Record<string, unknown>;
  /** Rows of the current group (`$rows`) when the entry was built with `group_by`. */
  readonly rows?: readonly unknown[];
  /** 1-based position of the current entry (`$index`). */
  readonly index?: number;
}

export type Getter = (scope: Scope) => unknown;

/** Compile a source path: `A.B.0.C`, `$root.A`, `$rows`, `$index`, `.` (the item itself). */
export function compileGetter(path: string): Getter {
  if (path === '.' || path === '$item') return (s) => s.item;
  if (path === '$index') return (s) => s.index;
  let base: Base = 'item';
  let rest = path;
  if (path === '$root' || path.startsWith('$root.')) {
    base = 'root';
    rest = path.slice(6);
  } else if (path === '$rows' || path.startsWith('$rows.')) {
    base = 'rows';
    rest = path.slice(6);
  }
  return compileRead(base, rest === '' ? [] : rest.split('.'));
}

/** Compile a target dot path into a setter that creates intermediate objects. */
export function compileSetter(path: string): (target: Record<string, unknown>, value: unknown) => void {
  return compileWrite(path.split('.'));
}

/** `groups[0].price` → `groups[].price` (the rule index key). */
export function normalisePath(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

/** A `"{Vorname} {Nachname}"` template split into its text and compiled placeholder getters. */
export function templateParts(template: string): (string | Getter)[] {
  const parts: (string | Getter)[] = [];
  const re = /\{([^{}]+)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    parts.push(compileGetter(m[1]!.trim()));
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}
