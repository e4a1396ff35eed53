/**
 * A write schema compiled into a plain predicate: `compileCheck(schema)(value)` says whether
 * `schema.safeParse(value).success` would be true, without building a parse result per record.
 *
 * zod interprets its schema tree for every value; for a mapping that validates every payload, that
 * was most of the per-record time. The predicate covers the kinds the registry's write schemas use
 * (objects strict/loose/stripping, records, arrays, unions, literals, enums, optional, default, nullable,
 * strings with length and pattern checks, numbers with int/sign checks, booleans). Anything else —
 * and any value that is not plain JSON data, like a class instance — is handed to zod itself for
 * that part, so the answer is always zod's. Callers still ask zod for the issues when it says no.
 */
import type { z } from 'zod';
import { matcherFor } from './patterns.js';

/** A compiled check: true exactly when the schema accepts the value. */
export type CompiledCheck = (value: unknown) => boolean;

/** The parts of zod's internal definition this compiler reads (zod 4). */
interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
  readonly coerce?: boolean;
  readonly format?: string;
}

interface CheckDef {
  readonly check: string;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly when?: unknown;
  readonly abort?: boolean;
}

const cache = new WeakMap<z.ZodType, CompiledCheck>();

/** Compile a zod schema into a predicate with the same verdict as `safeParse(...).success`. */
export function compileCheck(schema: z.ZodType): CompiledCheck {
  let check = cache.get(schema);
  if (!check) {
    check = compile(schema);
    cache.set(schema, check);
  }
  return check;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** zod's own verdict, for kinds and values the compiler does not cover. */
function byZod(schema: z.ZodType): CompiledCheck {
  return (value) => schema.safeParse(value).success;
}

function compile(schema: z.ZodType): CompiledCheck {
  const def = defOf(schema);
  if (def.coerce) return byZod(schema);
  switch (def.type) {
    case 'string':
      return def.format !== undefined && def.format !== 'regex' ? byZod(schema) : withChecks(schema, def, 'string');
    case 'number':
      return def.format !== undefined && def.format !== 'safeint' ? byZod(schema) : withChecks(schema, def, 'number');
    case 'boolean':
      return plain(schema, def, (v) => typeof v === 'boolean');
    case 'unknown':
    case 'any':
      return plain(schema, def, () => true);
    case 'never':
      return plain(schema, def, () => false);
    case 'literal': {
      const values = new Set(def.values);
      return plain(schema, def, (v) => values.has(v));
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return plain(schema, def, (v) => values.has(v));
    }
    case 'optional': {
      const inner = compileCheck(def.innerType!);
      return plain(schema, def, (v) => v === undefined || inner(v));
    }
    case 'default': {
      // zod puts the default in for undefined and checks nothing else then (the shop's answers: `warnings: []`).
      const inner = compileCheck(def.innerType!);
      return plain(schema, def, (v) => v === undefined || inner(v));
    }
    case 'nullable': {
      const inner = compileCheck(def.innerType!);
      return plain(schema, def, (v) => v === null || inner(v));
    }
    case 'union': {
      const options = def.options!.map(compileCheck);
      if (options.length === 2) {
        const [a, b] = options as [CompiledCheck, CompiledCheck];
        return plain(schema, def, (v) => a(v) || b(v));
      }
      return plain(schema, def, (v) => {
        for (const o of options) if (o(v)) return true;
        return false;
      });
    }
    case 'array': {
      const element = compileCheck(def.element!);
      return plain(schema, def, (v) => {
        if (!Array.isArray(v)) return false;
        // Every index, as zod reads them: a hole is undefined (every() skipped holes, and said yes where zod says no).
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      });
    }
    case 'object':
      return plain(schema, def, objectCheck(schema, def));
    case 'record':
      return plain(schema, def, recordCheck(schema, def));
    default:
      return byZod(schema);
  }
}

/** A kind without checks of its own; refinements (or any check) hand the whole schema to zod. */
function plain(schema: z.ZodType, def: Def, check: CompiledCheck): CompiledCheck {
  return def.checks && def.checks.length > 0 ? byZod(schema) : check;
}

/** Strings and numbers: the type test, then each known check; an unknown check hands the schema to zod. */
function withChecks(schema: z.ZodType, def: Def, kind: 'string' | 'number'): CompiledCheck {
  const tests: CompiledCheck[] = [];
  for (const c of def.checks ?? []) {
    const test = checkOf(c._zod.def);
    if (!test) return byZod(schema);
    tests.push(test);
  }
  // The type test is written into each closure rather than called: these run for most values of a payload.
  if (kind === 'string') {
    if (tests.length === 0) return isString;
    if (tests.length === 1) {
      const [a] = tests as [CompiledCheck];
      return (v) => typeof v === 'string' && a(v);
    }
    return (v) => typeof v === 'string' && every(tests, v);
  }
  if (tests.length === 0) return isNumber;
  if (tests.length === 1) {
    const [a] = tests as [CompiledCheck];
    return (v) => typeof v === 'number' && Number.isFinite(v) && a(v);
  }
  return (v) => typeof v === 'number' && Number.isFinite(v) && every(tests, v);
}

function every(tests: readonly CompiledCheck[], v: unknown): boolean {
  for (const t of tests) if (!t(v)) return false;
  return true;
}

function isString(v: unknown): boolean {
  return typeof v === 'string';
}

/** Checks whose `when` only asks "has a length", always true for a string past its type test. */
const LENGTH_CHECKS = new Set(['min_length', 'max_length']);

function checkOf(c: CheckDef): CompiledCheck | undefined {
  if (c.when !== undefined && !LENGTH_CHECKS.has(c.check)) return undefined;
  switch (c.check) {
    case 'string_format': {
      const pattern = c.format === 'regex' ? c.pattern : undefined;
      if (!pattern) return undefined;
      // Runs after the string type test.
      return matcherFor(pattern) as CompiledCheck;
    }
    case 'min_length':
      return (v) => (v as string).length >= c.minimum!;
    case 'max_length':
      return (v) => (v as string).length <= c.maximum!;
    case 'number_format':
      return c.format === 'safeint' ? (v) => Number.isSafeInteger(v) : undefined;
    case 'greater_than':
      return c.inclusive ? (v) => (v as number) >= c.value! : (v) => (v as number) > c.value!;
    case 'less_than':
      return c.inclusive ? (v) => (v as number) <= c.value! : (v) => (v as number) < c.value!;
    default:
      return undefined;
  }
}

function isNumber(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Plain JSON-like object (what mappings produce); anything else goes to zod. */
function isPlainData(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function objectCheck(schema: z.ZodType, def: Def): CompiledCheck {
  const fields = new Map(Object.entries(def.shape ?? {}).map(([key, s]) => [key, compileCheck(s)] as const));
  // Write payloads are sparse (a few of sixty optional fields): walk the payload's keys, and only the required fields besides.
  const required = [...fields].filter(([, check]) => !check(undefined)).map(([key]) => key);
  const catchallType = def.catchall ? defOf(def.catchall).type : undefined;
  const strict = catchallType === 'never';
  const rest = def.catchall && !strict && catchallType !== 'unknown' && catchallType !== 'any' ? compileCheck(def.catchall) : undefined;
  const slow = byZod(schema);
  return (v) => {
    if (!isPlainData(v)) return slow(v);
    for (const key of required) if (v[key] === undefined) return false;
    for (const key in v) {
      const check = fields.get(key);
      if (check) {
        if (!check(v[key])) return false;
      } else if (key === '__proto__') return slow(v);
      else if (strict) return false;
      else if (rest && !rest(v[key])) return false;
    }
    return true;
  };
}

function recordCheck(schema: z.ZodType, def: Def): CompiledCheck {
  const slow = byZod(schema);
  const keyDef = defOf(def.keyType!);
  // Enumerated or transformed keys have rules of their own (exhaustive, renamed): zod decides.
  if (keyDef.type !== 'string') return slow;
  const key = compileCheck(def.keyType!);
  const value = compileCheck(def.valueType!);
  return (v) => {
    if (!isPlainData(v)) return slow(v);
    for (const k in v) {
      if (k === '__proto__' || !Object.prototype.hasOwnProperty.call(v, k)) return slow(v);
      if (!key(k) || !value(v[k])) return false;
    }
    return true;
  };
}
