/**
 * The mapping compiler: YAML text → validated file → plain functions. Applying a compiled
 * mapping does no parsing and no lookups in the file.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { GuardRailError, MappingError } from '../errors.js';
import { allowWords, emptyOf, getResource, isResourceName, resources, type ResourceDef, type ResourceName } from '../shop/registry/index.js';
import { compileCheck } from '../shop/schema/compiled.js';
import { checkTargets } from './checks.js';
import { columnUses } from './columns.js';
import { describe } from './coerce.js';
import { MISSING, ruleText, type CompileContext, type CompiledExpression, type Env, type RuleMeta } from './env.js';
import { compileExpression, createExprRuntime, DEFAULT_EXPR_LIMITS, type ExprLimits } from './expr.js';
import { compileGuards } from './guards.js';
import { buildObject, compileFields, type FieldProducer } from './lists.js';
import { compileGetter, formatPath, normalisePath, valueAt } from './paths.js';
import { MappingFileError, problem, zodProblems } from './problems.js';
import { mappingFileSchema, type MappingFile, type RuleInput } from './schema.js';
import { didYouMean } from '../util/suggest.js';
import type { CompiledMapping, Finding, LoadOptions, MappingContext, MappingResult, RegistryLike } from './types.js';
import type { SourceFile } from './folders.js';
import { parseYamlSource, type YamlSource } from './yaml.js';
import { fillShopVariables } from './vars.js';
import { compileOwners } from './owners.js';
import { compileKey } from './surrogate.js';

/** The shop registry as a RegistryLike. */
export const shopRegistry: RegistryLike = {
  get: (name) => (isResourceName(name) ? getResource(name) : undefined),
  names: () => Object.keys(resources),
};

const DEFAULT_TRUE = [true, 'true', 1, '1'];
const DEFAULT_FALSE = [false, 'false', 0, '0'];

/** Compile mapping YAML; throws MappingFileError listing every problem with file:line:column. */
export function compileMapping(yamlText: string, fileName: string, options: LoadOptions = {}): CompiledMapping {
  const registry = options.registry ?? shopRegistry;
  const filled = fillShopVariables(parseYamlSource(yamlText, fileName), options.vars);
  if (filled.problems.length > 0) throw new MappingFileError(fileName, filled.problems);
  const src = filled.src;
  // Once per mapping file: zod's compiled fast path would take longer to generate than this one parse.
  const parsed = mappingFileSchema.safeParse(src.data, { jitless: true });
  if (!parsed.success) throw new MappingFileError(fileName, zodProblems(src, parsed.error.issues));
  const file = parsed.data;
  const problems: MappingError[] = [];

  let resource: ResourceDef | undefined;
  const resourceName = 'resource' in file.target ? file.target.resource : file.source?.resource;
  if (resourceName !== undefined) {
    resource = registry.get(resourceName);
    if (!resource) {
      const near = didYouMean(resourceName, registry.names());
      const path = 'resource' in file.target ? ['target', 'resource'] : ['source', 'resource'];
      problems.push(problem(src, 'MAPPING_UNKNOWN_RESOURCE', `unknown shop resource \`${resourceName}\`${near ? `; did you mean \`${near}\`?` : ''} (known: ${registry.names().join(', ')})`, path));
    }
  }
  const operation = 'operation' in file.target ? file.target.operation : undefined;
  const key = compileKey(src, file, resource, problems);
  if (resource && file.direction === 'erp-to-shop') problems.push(...checkTargets(src, file, resource, operation ?? 'upsert'));
  file.allow?.forEach((word, i) => {
    const known = resource ? allowWords(resource) : [];
    if (resource && !known.includes(word)) {
      const near = didYouMean(word, known);
      problems.push(problem(src, 'MAPPING_RULE', `\`allow: ${word}\` means nothing for ${resource.name}${near ? `; did you mean \`${near}\`?` : ''} (${known.length > 0 ? `known: ${known.join(', ')}` : 'it has no such words'})`, ['allow', i]));
    }
  });
  const ownership = compileOwners(src, file, resource);
  problems.push(...ownership.problems);
  file.create_only?.forEach((f, i) => {
    if (!(f in file.fields)) problems.push(problem(src, 'MAPPING_RULE', `create_only names \`${f}\`, which no rule under \`fields\` writes`, ['create_only', i]));
  });

  const expressions: CompiledExpression[] = [];
  const exprLimits: ExprLimits = { timeMs: file.expr_limits?.time_ms ?? DEFAULT_EXPR_LIMITS.timeMs, depth: file.expr_limits?.depth ?? DEFAULT_EXPR_LIMITS.depth };
  const rules = new Map<string, RuleMeta>();
  const cc: CompileContext = {
    file: fileName,
    defaults: {
      locale: file.locale,
      timezone: file.timezone ?? 'Europe/Berlin',
      shopTimezone: file.shop_timezone ?? 'Europe/Berlin',
      truthy: file.true ?? DEFAULT_TRUE,
      falsy: file.false ?? DEFAULT_FALSE,
    },
    tables: file.tables ?? {},
    locate: (path, at) => src.locate(path, at),
    fail: (code, message, path, at) => problems.push(problem(src, code, message, path, at)),
    expression(source, path) {
      try {
        expressions.push(compileExpression(source, exprLimits));
      } catch (err) {
        const e = err as { message?: string; position?: number };
        problems.push(problem(src, 'MAPPING_EXPR', `invalid JSONata expression: ${e.message ?? String(err)}${e.position !== undefined ? ` (at character ${e.position})` : ''}`, path));
        expressions.push({ evaluate: async () => undefined });
      }
      return expressions.length - 1;
    },
    listGuard(target) {
      if (!resource || file.direction !== 'erp-to-shop' || target.includes('.') || target.includes('[')) return undefined;
      const def = resource.lists[target];
      if (!def) return undefined;
      const s = def.semantics;
      return { replace: s.kind === 'replace' || (s.kind === 'upsert' && s.replaceFlag !== undefined && s.replaceFlag in file.fields) };
    },
    // An ERP row's empty is NULL; a shop field's is what its registry entry says.
    emptyValue: (target) => (file.direction === 'shop-to-erp' ? { clear: null, specified: true } : resource ? emptyOf(resource, target) : { never: 'the target resource is unknown' }),
    decimalScale(target) {
      if (!resource || file.direction !== 'erp-to-shop') return undefined;
      return resource.decimalScales?.[target];
    },
  };
  indexRules(file.fields, '', ['fields'], src, rules);
  // Compiled one by one to know which top-level fields contain an expression: in an async apply
  // only those are computed again once the expressions have their values.
  const producers = Object.entries(file.fields).map(([name, rule]) => {
    const before = expressions.length;
    const [producer] = compileFields({ [name]: rule }, '', ['fields'], cc);
    return { ...producer, usesExpr: expressions.length > before };
  });
  if (file.expr_limits && expressions.length === 0) problems.push(problem(src, 'MAPPING_RULE', '`expr_limits` limits the evaluation of `expr` rules, and this file has none; remove it', ['expr_limits'], 'key'));
  if (problems.length > 0) throw new MappingFileError(fileName, problems);

  const guards =
    resource && file.direction === 'erp-to-shop'
      ? compileGuards({
          resource,
          operation: operation ?? 'upsert',
          historyIdentity: file.history_identity,
          allow: file.allow ?? [],
          clearable: new Set(Object.entries(file.fields).flatMap(([k, r]) => (typeof r === 'object' && r.empty === 'clear' ? [k] : []))),
          storageRowsExist: typeof file.fields.storages === 'object' && file.fields.storages.existing_rows_only === true,
          rules,
          file: fileName,
          targets: new Set(Object.keys(file.fields).map((name) => name.split('.')[0])),
          ...(options.maxFieldBytes !== undefined ? { maxFieldBytes: options.maxFieldBytes } : {}),
        })
      : undefined;
  const writeSchema = resource && file.direction === 'erp-to-shop' ? resource.schemas.write : undefined;
  const writeCheck = writeSchema ? compileCheck(writeSchema) : undefined;
  const required = 'erp' in file.target ? (file.target.required ?? []) : [];
  const requiredPaths = required.map((f) => [f, f.split('.')] as const);
  const keyOf = compileGetter(key.path);
  const recordRef = (record: Record<string, unknown>) => {
    const k = keyOf({ item: record, root: record });
    return { erpKey: k === undefined || k === null ? undefined : String(k), resource: resource?.name };
  };

  const run = (record: Record<string, unknown>, env: Env): Record<string, unknown> => {
    const obj = buildObject(producers, { item: record, root: record }, env, '');
    return obj === MISSING ? {} : obj;
  };
  // `rerun` gets the record and trace rather than closing over them: applySync passes one function made here, not a closure per record.
  const finish = (record: Record<string, unknown>, env: Env, payload: Record<string, unknown>, rerun: (record: Record<string, unknown>, ctx: MappingContext, trace: Map<string, unknown>) => void): MappingResult => {
    // Every caller passes an env made for this one record: its lists take the further findings as they are.
    const errors = env.errors;
    const warnings: Finding[] = env.warnings;
    if (guards) guards(payload, errors, warnings);
    if (writeSchema && writeCheck && !writeCheck(payload)) errors.push(...outputErrors(writeSchema, payload, errors, rules, fileName));
    for (const [f, segments] of requiredPaths) {
      if (valueAt(payload, segments) === undefined) errors.push(new MappingError('MAPPING_REQUIRED', `field \`${f}\`: the ERP target requires it but the mapping produced nothing`, { file: fileName, field: f }));
    }
    if (errors.length === 0) return env.files && env.files.length > 0 ? { ok: true, payload, warnings, files: env.files } : { ok: true, payload, warnings };
    const trace = new Map<string, unknown>();
    rerun(record, env.ctx, trace);
    const ref = recordRef(record);
    return { ok: false, warnings, errors: errors.map((e) => explain(e, trace, ref)) };
  };

  const base = {
    name: file.name,
    file: fileName,
    direction: file.direction,
    resource: resource?.name as ResourceName | undefined,
    operation,
    key: key.path,
    shopKey: key.shopKey,
    ...(key.surrogate ? { surrogate: key.surrogate } : {}),
    historyIdentity: file.history_identity,
    createOnly: file.create_only,
    ...(ownership.owners ? { owners: ownership.owners } : {}),
    columns: columnUses(file, (path) => {
      try {
        return src.locate(path).line;
      } catch {
        return undefined;
      }
    }),
    ...(file.allow ? { allow: file.allow } : {}),
    targets: Object.keys(file.fields),
    ...rowKeys(key.path, file.row_key),
    ...(file.duplicates ? { duplicates: file.duplicates } : {}),
    ...(file.stock ? { stock: file.stock } : {}),
    ...shopKeyRule(key.shopKey, producers, fileName),
    erpTarget: 'erp' in file.target ? file.target.erp : undefined,
    ...erpLookupNames(file.fields),
    usesExpressions: expressions.length > 0,
    // A shop variable changes what the file maps to: its values are part of the fingerprint (only when used, so other fingerprints stay as they were).
    fingerprint: createHash('sha256').update(filled.used && options.vars ? `${yamlText}\n${JSON.stringify(options.vars)}` : yamlText).digest('hex'),
  };

  if (expressions.length === 0) {
    const rerunSync = (record: Record<string, unknown>, ctx: MappingContext, trace: Map<string, unknown>) => {
      run(record, { ctx, file: fileName, errors: [], warnings: [], trace });
    };
    const applySync = (record: Record<string, unknown>, ctx: MappingContext): MappingResult => {
      const env: Env = { ctx, file: fileName, errors: [], warnings: [], files: [] };
      const payload = run(record, env);
      return finish(record, env, payload, rerunSync);
    };
    return { ...base, applySync, apply: async (record, ctx) => applySync(record, ctx) };
  }
  return {
    ...base,
    async apply(record, ctx) {
      const expr = createExprRuntime(expressions, options.vars);
      const settled = new Map<number, { value: unknown; errors: MappingError[]; warnings: Finding[]; files: SourceFile[] }>();
      // Expressions only read the source, never each other: one pass discovers them, one more uses their values.
      for (let pass = 0; pass < 8; pass++) {
        const env: Env = { ctx, file: fileName, errors: [], warnings: [], files: [], expr };
        const files = env.files as SourceFile[];
        const payload: Record<string, unknown> = {};
        producers.forEach((p, i) => {
          let done = settled.get(i);
          if (!done) {
            const e0 = env.errors.length;
            const w0 = env.warnings.length;
            const f0 = files.length;
            const value = p.produce({ item: record, root: record }, env, '', p.name);
            done = { value, errors: env.errors.slice(e0), warnings: env.warnings.slice(w0), files: files.slice(f0) };
            // A field without expressions is final after one pass.
            if (!p.usesExpr) settled.set(i, done);
          } else {
            env.errors.push(...done.errors);
            env.warnings.push(...done.warnings);
            files.push(...done.files);
          }
          if (done.value !== MISSING) p.set(payload, done.value);
        });
        if (expr.pending.length === 0) {
          return finish(record, env, payload, (rec, c, trace) => run(rec, { ctx: c, file: fileName, errors: [], warnings: [], expr, trace }));
        }
        await Promise.all(expr.pending.splice(0));
      }
      throw new MappingError('MAPPING_EXPR', `${fileName}: expressions did not settle after 8 passes`, { file: fileName });
    },
  };
}

/** Index rule metadata by normalised target path (`groups[].customers_group_price`). */
function indexRules(fields: Record<string, RuleInput>, prefix: string, yamlPath: PropertyKey[], src: YamlSource, out: Map<string, RuleMeta>): void {
  for (const [name, rule] of Object.entries(fields)) {
    const target = prefix ? `${prefix}.${name}` : name;
    const pos = src.locate([...yamlPath, name], 'key');
    out.set(target, { target, line: pos.line, column: pos.column, text: typeof rule === 'string' ? `from: ${rule}` : ruleSummary(rule as unknown as Record<string, unknown>) });
    if (typeof rule === 'object' && rule.fields) {
      const list = rule.each !== undefined || rule.split !== undefined || rule.folder !== undefined;
      indexRules(rule.fields, list ? `${target}[]` : target, [...yamlPath, name, 'fields'], src, out);
    }
  }
}

/** `ruleText` without the nested blocks (`fields`, `steps`, `item`), which have their own entries. */
function ruleSummary(rule: Record<string, unknown>): string {
  return ruleText(Object.fromEntries(Object.entries(rule).filter(([k]) => k !== 'fields' && k !== 'steps' && k !== 'item')));
}

/**
 * Issues of a payload the compiled check refused (../shop/schema/compiled.ts passes the usual valid
 * payload without zod), from the registry's write schema; issues a rule or guard already reported are not repeated.
 */
function outputErrors(schema: z.ZodType, payload: Record<string, unknown>, already: readonly MappingError[], rules: ReadonlyMap<string, RuleMeta>, file: string): MappingError[] {
  const result = schema.safeParse(payload);
  if (result.success) return [];
  const seen = new Set(already.map((e) => e.field));
  const out: MappingError[] = [];
  for (const issue of result.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    for (const key of keys) {
      const path = key === undefined ? issue.path : [...issue.path, key];
      const field = formatPath(path);
      // A guard or rule already explained this field (or the object or list holding it): do not say it twice.
      if ([...seen].some((f) => f !== undefined && (field === f || field.startsWith(`${f}.`) || field.startsWith(`${f}[`)))) continue;
      const meta = rules.get(normalisePath(field));
      const value = valueAt(payload, path);
      const what = key === undefined ? `${issue.message}, got ${describe(value)}` : `unknown field \`${key}\` (the shop would silently ignore it)`;
      out.push(
        new MappingError('MAPPING_OUTPUT_INVALID', `field \`${field}\`: ${what}${meta ? ` (rule \`${meta.text}\` at ${file}:${meta.line})` : ''}`, {
          file,
          line: meta?.line,
          column: meta?.column,
          field,
          sourceValue: value,
          rule: meta?.text,
        }),
      );
    }
  }
  return out;
}

/** Attach the raw source value (from a traced re-run) and the record reference to an error. */
function explain(err: MappingError, trace: ReadonlyMap<string, unknown>, record: { erpKey?: string; resource?: string }): MappingError {
  const traced = err.field !== undefined && trace.has(err.field);
  const Ctor = err instanceof GuardRailError ? GuardRailError : MappingError;
  return new Ctor(err.code, err.message, {
    file: err.file,
    line: err.line,
    column: err.column,
    field: err.field,
    rule: err.rule,
    sourceValue: traced ? trace.get(err.field!) : err.sourceValue,
    details: traced ? { ...err.details, payloadValue: err.sourceValue } : err.details,
    record: { ...err.record, ...record },
  });
}

export type { MappingFile };

/**
 * `shopKeyOf`, when the shop key is a top-level field whose rule uses no expression: the one rule
 * run alone, so screening a read for shared shop keys costs no full mapping of unchanged rows.
 */
function shopKeyRule(shopKey: string | undefined, producers: readonly (FieldProducer & { usesExpr: boolean })[], file: string): Pick<CompiledMapping, 'shopKeyOf'> {
  const producer = shopKey === undefined || shopKey.includes('.') ? undefined : producers.find((p) => p.name === shopKey);
  if (!producer || producer.usesExpr) return {};
  return {
    shopKeyOf: (record, ctx) => {
      const env: Env = { ctx, file, errors: [], warnings: [], files: [] };
      const out = buildObject([producer], { item: record, root: record }, env, '');
      const v = out === MISSING || env.errors.length > 0 ? undefined : out[shopKey!];
      return v === undefined || v === null || v === '' ? undefined : String(v);
    },
  };
}

/** `sourceKey`, and `recordKey` when the file declares `row_key`. */
function rowKeys(key: string, rowKey: readonly string[] | undefined): Pick<CompiledMapping, 'recordKey' | 'sourceKey'> {
  const keyGetter = compileGetter(key);
  const sourceKey = (record: Record<string, unknown>): string | undefined => {
    const v = keyGetter({ item: record, root: record });
    return v === undefined || v === null || v === '' ? undefined : String(v);
  };
  if (!rowKey) return { sourceKey };
  const getters = rowKey.map(compileGetter);
  return { sourceKey, recordKey: (erpKey, record) => `${erpKey} [${getters.map((g) => String(g({ item: record, root: record }) ?? '')).join('/')}]` };
}

/** The pipeline lookups (`lookup: <name>`) the rules use, at any depth of lists and objects. */
function erpLookupNames(fields: Readonly<Record<string, RuleInput>>): { erpLookups?: string[] } {
  const names = new Set<string>();
  const walk = (rule: RuleInput | undefined): void => {
    if (rule === undefined || typeof rule === 'string') return;
    if (typeof rule.lookup === 'string') names.add(rule.lookup);
    walk(rule.item);
    for (const r of Object.values(rule.fields ?? {})) walk(r);
    for (const r of Object.values(rule.steps?.fields ?? {})) walk(r);
  };
  for (const r of Object.values(fields)) walk(r);
  return names.size > 0 ? { erpLookups: [...names] } : {};
}
