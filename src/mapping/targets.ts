/**
 * Valid target field names, read from the registry's strict zod write schemas.
 *
 * We walk zod 4's public `_zod.def` (type, shape, innerType, element, keyType/valueType, options)
 * rather than keeping a second list of field names: the registry is the one source of truth.
 */
import { didYouMean } from '../util/suggest.js';
import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
  in?: z.ZodType;
  getter?: () => z.ZodType;
};

function def(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strip optional/nullable/default/readonly/pipe/lazy wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const d = def(s);
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'readonly' || d.type === 'prefault' || d.type === 'catch') && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else return s;
  }
  return s;
}

/** The element schema when `schema` is (a wrapped) array, else undefined. */
export function arrayElement(schema: z.ZodType): z.ZodType | undefined {
  const s = unwrap(schema);
  const d = def(s);
  if (d.type === 'array' && d.element) return d.element;
  if (d.type === 'union' && d.options) {
    for (const o of d.options) {
      const e = arrayElement(o);
      if (e) return e;
    }
  }
  return undefined;
}

/** Field names an object-ish schema accepts (for suggestions), following unions. */
export function fieldNames(schema: z.ZodType): string[] {
  const s = unwrap(schema);
  const d = def(s);
  if (d.type === 'object' && d.shape) return Object.keys(d.shape);
  if (d.type === 'union' && d.options) return [...new Set(d.options.flatMap((o) => fieldNames(o)))];
  return [];
}

/** Whether values of this schema are objects with named fields or keyed records. */
export function isObjectLike(schema: z.ZodType): boolean {
  const d = def(unwrap(schema));
  if (d.type === 'object' || d.type === 'record') return true;
  if (d.type === 'union' && d.options) return d.options.some((o) => isObjectLike(o));
  return false;
}

/** The schema of one named child (`languages` → record, `de` → language block), or undefined. */
export function childSchema(schema: z.ZodType, segment: string): z.ZodType | undefined {
  const s = unwrap(schema);
  const d = def(s);
  if (d.type === 'object' && d.shape) return Object.prototype.hasOwnProperty.call(d.shape, segment) ? d.shape[segment] : undefined;
  if (d.type === 'record' && d.keyType && d.valueType) {
    return d.keyType.safeParse(segment).success ? d.valueType : undefined;
  }
  if (d.type === 'union' && d.options) {
    for (const o of d.options) {
      const c = childSchema(o, segment);
      if (c) return c;
    }
  }
  return undefined;
}

/** Outcome of resolving a dot path against a schema. */
export type TargetResolution =
  | { readonly ok: true; readonly schema: z.ZodType }
  | { readonly ok: false; readonly failedSegment: number; readonly message: string; readonly suggestion?: string };

/** Resolve a target dot path (`languages.de.products_name`) against a write schema. */
export function resolveTarget(root: z.ZodType, path: string): TargetResolution {
  const segments = path.split('.');
  let schema = root;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const child = childSchema(schema, seg);
    if (child) {
      schema = child;
      continue;
    }
    const names = fieldNames(schema);
    const where = i === 0 ? '' : ` under \`${segments.slice(0, i).join('.')}\``;
    if (names.length === 0) {
      const d = def(unwrap(schema));
      const hint = d.type === 'record' ? ' (not an accepted key here, e.g. a two-letter language code like `de`)' : '';
      return { ok: false, failedSegment: i, message: `\`${seg}\` is not a valid key${where}${hint}` };
    }
    const suggestion = didYouMean(seg, names);
    return { ok: false, failedSegment: i, message: `unknown field \`${seg}\`${where}`, suggestion };
  }
  return { ok: true, schema };
}

