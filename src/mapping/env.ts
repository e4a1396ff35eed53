/**
 * What compiled rules share: the per-apply environment and the compile-time context.
 */
import { GuardRailError, MappingError } from '../errors.js';
import type { EmptyDef } from '../shop/registry/index.js';
import type { Scope } from './paths.js';
import type { DecimalLocale } from './schema.js';
import type { Finding, MappingContext } from './types.js';
import type { SourceFile } from './folders.js';

/** A rule produced nothing: the target field is omitted from the payload. */
export const MISSING: unique symbol = Symbol('missing');
/** An expression's value is still being computed (async apply runs the rules again once it is). */
export const PENDING: unique symbol = Symbol('pending');

/** Where a rule sits in its file and how to show it in a message. */
export interface RuleMeta {
  /** Target path with `[]` for list entries (`groups[].customers_group_price`). */
  readonly target: string;
  readonly line: number;
  readonly column: number;
  /** Compact rendering of the rule, e.g. `from: VK_Netto, type: decimal, locale: de`. */
  readonly text: string;
}

/** Evaluates JSONata expressions for one apply call, caching results by (rule, input). */
export interface ExprRuntime {
  value(ruleId: number, scope: Scope, ctx: MappingContext): unknown;
}

/** Per-apply state: the pipeline's context, collected findings, and expression results. */
export interface Env {
  readonly ctx: MappingContext;
  readonly file: string;
  readonly errors: MappingError[];
  readonly warnings: Finding[];
  readonly expr?: ExprRuntime;
  /** Files folder lists read, per produced entry (collected when set). */
  readonly files?: SourceFile[];
  /** When set, rules record the raw source value they read per concrete output path (used to explain failures). */
  readonly trace?: Map<string, unknown>;
}

/**
 * A compiled rule: produce the value for one output path, or MISSING. The path is `parent + name`
 * (`groups[0]` + `.customers_group_price`; top-level fields: `''` + their name), joined only when
 * a message, warning or trace needs it: most values never do.
 */
export type Produce = (scope: Scope, env: Env, parent: string, name: string) => unknown;

/** Defaults declared at the top of a mapping file. */
export interface FileDefaults {
  readonly locale?: DecimalLocale;
  readonly timezone: string;
  readonly shopTimezone: string;
  readonly truthy: readonly unknown[];
  readonly falsy: readonly unknown[];
}

/** A compiled JSONata expression (the subset of jsonata's API we use). */
export interface CompiledExpression {
  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
}

/** Semantics the registry gives a target list field, as far as the rule compiler needs them. */
export interface ListGuard {
  /** Replace-on-present: an empty list wipes the shop's list. */
  readonly replace: boolean;
}

/** Compile-time context shared by all rules of one file. */
export interface CompileContext {
  readonly file: string;
  readonly defaults: FileDefaults;
  readonly tables: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Line/column of a YAML path in the file. */
  locate(path: readonly PropertyKey[], at?: 'key' | 'value'): { line: number; column: number };
  /** Record a compile error (all errors of a file are reported together). */
  fail(code: string, message: string, path: readonly PropertyKey[], at?: 'key' | 'value'): void;
  /** Compile a JSONata expression once; returns its id. */
  expression(source: string, path: readonly PropertyKey[]): number;
  /** Registry semantics of a top-level list target (undefined for shop→erp or non-list fields). */
  listGuard(target: string): ListGuard | undefined;
  /** What `when_empty: clear` sends for a target (the registry's empty value), or why the field cannot be emptied. */
  emptyValue(target: string): EmptyDef;
  /** Fraction digits the shop stores for a target path (`storages[].products_quantity`), from the registry; undefined for other fields and shop→erp. */
  decimalScale(target: string): number | undefined;
}

/** Build the per-record error for a rule (a GuardRailError when the code is a guard-rail code). */
export function ruleError(env: Env, meta: RuleMeta, at: string, code: string, message: string, sourceValue: unknown): MappingError {
  const Ctor = code.startsWith('GUARD_') ? GuardRailError : MappingError;
  return new Ctor(code, `field \`${at}\`: ${message} (rule \`${meta.text}\` at ${env.file}:${meta.line})`, {
    file: env.file,
    line: meta.line,
    column: meta.column,
    field: at,
    sourceValue,
    rule: meta.text,
  });
}

/** Render a rule for messages: its keys and scalar values, lists and objects abbreviated. */
export function ruleText(rule: unknown): string {
  if (typeof rule === 'string') return `from: ${rule}`;
  if (rule === null || typeof rule !== 'object') return String(rule);
  return Object.entries(rule as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${v !== null && typeof v === 'object' ? (Array.isArray(v) ? `[${v.map(String).join(', ')}]` : '{…}') : String(v)}`)
    .join(', ');
}
