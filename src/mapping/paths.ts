/**
 * Dot paths, compiled once into getters and setters.
 */

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

const itemOf = (s: Scope): unknown => s.item;

/** Compile a source path: `A.B.0.C`, `$root.A`, `$rows`, `$index`, `.` (the item itself). */
export function compileGetter(path: string): Getter {
  if (path === '.' || path === '$item') return (s) => s.item;
  if (path === '$index') return (s) => s.index;
  let base: (s: Scope) => unknown = itemOf;
  let rest = path;
  if (path === '$root' || path.startsWith('$root.')) {
    base = (s) => s.root;
    rest = path.slice(6);
  } else if (path === '$rows' || path.startsWith('$rows.')) {
    base = (s) => s.rows;
    rest = path.slice(6);
  }
  const segs = rest === '' ? [] : rest.split('.');
  if (segs.length === 0) return base;
  // The common shapes read `s.item` directly: one closure call per read instead of two.
  const fromItem = base === itemOf;
  if (segs.length === 1) {
    const k = segs[0];
    if (fromItem) {
      return (s) => {
        const o = s.item;
        return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined;
      };
    }
    return (s) => {
      const o = base(s);
      return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined;
    };
  }
  return (s) => {
    let o = base(s);
    for (const k of segs) {
      if (o === null || typeof o !== 'object') return undefined;
      o = (o as Record<string, unknown>)[k];
    }
    return o;
  };
}

/** Compile a target dot path into a setter that creates intermediate objects. */
export function compileSetter(path: string): (target: Record<string, unknown>, value: unknown) => void {
  const segs = path.split('.');
  if (segs.length === 1) {
    const k = segs[0];
    return (t, v) => {
      t[k] = v;
    };
  }
  const last = segs[segs.length - 1];
  const parents = segs.slice(0, -1);
  return (t, v) => {
    let o = t;
    for (const k of parents) {
      let next = o[k];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) {
        next = {};
        o[k] = next;
      }
      o = next as Record<string, unknown>;
    }
    o[last] = v;
  };
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
