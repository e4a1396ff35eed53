/**
 * The shop fields a mapping can fill with one column, read from the registry's strict write
 * schemas: top-level scalars and the per-language text fields (`languages.<code>.<field>`), each
 * with the coercion its schema needs. Lists (groups, storages…) are left to the person: one
 * column rarely fills one.
 */
import { distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import { childSchema, fieldNames, unwrap } from '../mapping/targets.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { date, datetime, decimal, email, flag01, strictBoolean } from '../shop/schema/common.js';
import { didYouMean } from '../util/suggest.js';
import { bareName, normalise, SYNONYMS } from './synonyms.js';

/** The coercion a target needs. */
export type TargetType = 'string' | 'integer' | 'decimal' | 'flag' | 'boolean' | 'date' | 'datetime' | 'email' | 'other';

/** One fillable field. */
export interface TargetField {
  /** Dot path as a mapping writes it. */
  readonly path: string;
  /** Last path segment (`products_name`), what names are matched against. */
  readonly name: string;
  readonly type: TargetType;
  /** The field's write schema, to test sample values against. */
  readonly schema: z.ZodType;
}

type Def = { type: string; options?: readonly z.ZodType[]; values?: readonly unknown[]; keyType?: z.ZodType; valueType?: z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function typeOf(schema: z.ZodType, path: string, resource: ResourceDef): TargetType {
  const s = unwrap(schema);
  if (resource.decimalFields.includes(path) || s === decimal) return 'decimal';
  if (s === flag01) return 'flag';
  if (s === strictBoolean) return 'boolean';
  if (s === date) return 'date';
  if (s === datetime) return 'datetime';
  if (s === email) return 'email';
  const d = defOf(s);
  if (d.type === 'number') return 'integer';
  if (d.type === 'string') return 'string';
  if (d.type === 'boolean') return 'boolean';
  if (d.type === 'union' && d.options?.every((o) => ['string', 'number', 'literal'].includes(defOf(unwrap(o)).type))) return 'other';
  return 'other';
}

function isScalar(schema: z.ZodType): boolean {
  const d = defOf(unwrap(schema));
  if (d.type === 'union') return (d.options ?? []).every(isScalar);
  return ['string', 'number', 'boolean', 'literal', 'enum'].includes(d.type);
}

/** The scalar fields of a resource one column can fill; language blocks under `language`. */
export function targetFields(resource: ResourceDef, language: string): TargetField[] {
  const out: TargetField[] = [];
  const write = resource.schemas.write;
  for (const name of fieldNames(write)) {
    // The shop's own id is assigned by the shop; a new installation never maps it.
    if (name === resource.key.id) continue;
    const schema = childSchema(write, name) as z.ZodType;
    if (isScalar(schema)) {
      out.push({ path: name, name, type: typeOf(schema, name, resource), schema });
      continue;
    }
    const d = defOf(unwrap(schema));
    if (d.type === 'record' && d.keyType?.safeParse(language).success && d.valueType) {
      // A per-language block (`languages.de.products_name`).
      for (const inner of fieldNames(d.valueType)) {
        const field = childSchema(d.valueType, inner) as z.ZodType;
        if (isScalar(field)) out.push({ path: `${name}.${language}.${inner}`, name: inner, type: typeOf(field, `${name}.*.${inner}`, resource), schema: field });
      }
    }
  }
  return out;
}

/**
 * What to say about a field a person named that the resource lacks: the field it names in other words
 * (its last segment `products_name` → `languages.de.products_name`, without the prefix `price`, an ERP
 * name `preis`), else the field it is a plausible typo of, else the three nearest fields.
 */
export function nearestFieldHint(target: string, fields: readonly TargetField[], resource: string): string {
  const last = normalise(target.split('.').pop() ?? target);
  const spellings = (f: TargetField) => [f.name, bareName(f.name, resource), ...(SYNONYMS[f.name] ?? [])].map(normalise);
  const same = fields.find((f) => spellings(f).includes(last))?.path;
  const byName = new Map(fields.flatMap((f) => spellings(f).slice(0, 2).map((n) => [n, f.path] as const)));
  const typo = same ?? didYouMean(target, fields.map((f) => f.path)) ?? byName.get(didYouMean(last, byName.keys()) ?? '');
  if (typo !== undefined) return `did you mean ${typo}?`;
  const far = (f: TargetField) => Math.min(distance(target.toLowerCase(), f.path.toLowerCase()), ...spellings(f).slice(0, 2).map((n) => distance(last, n)));
  const nearest = [...fields].sort((a, b) => far(a) - far(b)).slice(0, 3).map((f) => f.path);
  return nearest.length > 0 ? `no field is named like it; the nearest are ${nearest.join(', ')}` : 'the resource has no field one column can fill';
}
