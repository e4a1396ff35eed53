/**
 * "Did you mean …?" for unknown config keys: the keys a schema knows at a path, and the nearest
 * one to a typo. Best effort: where the schema cannot be walked (settings checked by a refinement,
 * such as a source's connector settings) no suggestion is made.
 */
import { didYouMean } from '../util/suggest.js';
import type { z } from 'zod';

interface Def {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly element?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** The object schemas `schema` stands for once wrappers (optional, default, pipe…) and unions are unfolded. */
function objects(schema: z.core.$ZodType, depth = 0): Def[] {
  if (depth > 20) return [];
  const def = defOf(schema);
  if (def.type === 'object') return [def];
  if (def.innerType) return objects(def.innerType, depth + 1);
  if (def.type === 'pipe' && def.in) return objects(def.in, depth + 1);
  if (def.type === 'union' && def.options) return def.options.flatMap((o) => objects(o, depth + 1));
  return [];
}

/** The schemas found at `path` below `schema` (several under a union). */
function schemasAt(schema: z.core.$ZodType, path: readonly (string | number)[]): z.core.$ZodType[] {
  let current: z.core.$ZodType[] = [schema];
  for (const step of path) {
    current = current.flatMap((s) => {
      let def = defOf(s);
      while (def.innerType) def = defOf(def.innerType);
      if (def.type === 'array' && def.element) return [def.element];
      if (def.type === 'record' && def.valueType) return [def.valueType];
      return objects(s).flatMap((o) => (typeof step === 'string' && o.shape?.[step] ? [o.shape[step]] : []));
    });
  }
  return current;
}

/** The known key nearest to `key` at `path`, when it is close enough to be a typo. */
export function suggestKey(schema: z.core.$ZodType, path: readonly (string | number)[], key: string): string | undefined {
  const known = [...new Set(schemasAt(schema, path).flatMap((s) => objects(s).flatMap((o) => Object.keys(o.shape ?? {}))))];
  return didYouMean(key, known);
}
