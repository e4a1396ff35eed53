/** Property paths (as zod reports them in `issue.path`): reading the value there and writing the path. */

/** The value at `path` inside `root`; undefined when the path leaves the objects. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let o = root;
  for (const k of path) {
    if (o === null || typeof o !== 'object') return undefined;
    o = (o as Record<PropertyKey, unknown>)[k];
  }
  return o;
}

/** `['groups', 0, 'price']` → `groups[0].price`; `empty` names the root (e.g. '(root)'). */
export function formatPath(path: readonly PropertyKey[], empty = ''): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out === '' ? empty : out;
}
