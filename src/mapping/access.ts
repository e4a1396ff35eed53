/**
 * Property reads and writes of one dot path, compiled into a function of their own.
 *
 * Why not a closure over the key: closures made from one function literal share V8's inline
 * caches, so a single setter literal used for every field of a mapping sees every key and every
 * object shape, goes megamorphic and looks each write up in a global hash table. A function
 * compiled for its path keeps caches of its own; the mapping bench's reads and writes got about a
 * third cheaper. Keys enter the source only as JSON string literals. Where code generation from
 * strings is switched off (`--disallow-code-generation-from-strings`), the closures are used.
 */

/** Where a getter starts: the current item, the whole record or the group's rows. */
export type Base = 'item' | 'root' | 'rows';

type Read = (scope: { readonly item: unknown; readonly root: unknown; readonly rows?: unknown }) => unknown;
type Write = (target: Record<string, unknown>, value: unknown) => void;

let codegen: boolean | undefined;

function generate<T>(params: readonly string[], body: string): T | undefined {
  if (codegen === false) return undefined;
  try {
    const fn = new Function(...params, body) as T;
    codegen = true;
    return fn;
  } catch (err) {
    if (!(err instanceof EvalError)) throw err;
    codegen = false;
    return undefined;
  }
}

/** A reader of `base.segs[0].segs[1]…`: undefined as soon as a step is not an object. */
export function compileRead(base: Base, segs: readonly string[]): Read {
  const steps = segs.map((k) => `if (o === null || typeof o !== 'object') return undefined;\no = o[${JSON.stringify(k)}];`).join('\n');
  return (
    generate<Read>(['s'], `let o = s.${base};\n${steps}\nreturn o;`) ??
    ((s) => {
      let o = s[base];
      for (const k of segs) {
        if (o === null || typeof o !== 'object') return undefined;
        o = (o as Record<string, unknown>)[k];
      }
      return o;
    })
  );
}

/** A writer of `segs[0].segs[1]… = value`, creating (or replacing non-object) intermediate objects. */
export function compileWrite(segs: readonly string[]): Write {
  const last = segs[segs.length - 1];
  const parents = segs.slice(0, -1);
  const steps = parents
    .map((k) => {
      const key = JSON.stringify(k);
      return `next = o[${key}];\nif (next === null || typeof next !== 'object' || Array.isArray(next)) {\nnext = {};\no[${key}] = next;\n}\no = next;`;
    })
    .join('\n');
  return (
    generate<Write>(['t', 'v'], `let o = t;\nlet next;\n${steps}\no[${JSON.stringify(last)}] = v;`) ??
    ((t, v) => {
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
    })
  );
}
