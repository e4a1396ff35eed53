/**
 * Compiling one field rule into a plain function. All decisions (which source, which coercion,
 * which table) are taken here, once; the returned closure only reads the record.
 */
import { CoerceError, describe, toBoolean, toDecimal, toInteger, toText } from './coerce.js';
import { assertTimeZone, compileDateFormat, convertDate, type DateRule } from './dates.js';
import { ExpressionFailure } from './expr.js';
import { MISSING, PENDING, ruleError, ruleText, type CompileContext, type Produce, type RuleMeta } from './env.js';
import { compileList, compileObject } from './lists.js';
import { compileGetter, templateParts, type Getter, type Scope } from './paths.js';
import { scaleFitter } from './scale.js';
import type { Condition, RuleInput, RuleObject } from './schema.js';
import { emptyPolicy } from './empty.js';

const API_DATE = 'YYYY-MM-DD';
const API_DATETIME = 'YYYY-MM-DD HH:mm:ss';

/** Compile any rule (scalar, list, nested object) for the target path `target`. */
export function compileRule(input: RuleInput, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): Produce {
  const rule: RuleObject = typeof input === 'string' ? { from: input } : input;
  const kind = rule.each !== undefined || rule.split !== undefined || rule.folder !== undefined ? 'list' : rule.fields !== undefined ? 'object' : 'scalar';
  // A key that does not apply to this kind of rule would be ignored silently: refuse it and say where it belongs.
  for (const key of Object.keys(rule) as (keyof RuleObject)[]) {
    if (!ALLOWED[kind].has(key)) cc.fail('MAPPING_RULE', `\`${key}\` does not apply to a ${kind} rule${HINT[kind]}`, [...yamlPath, key], 'key');
  }
  if (kind === 'list') return compileList(rule, target, yamlPath, cc);
  if (kind === 'object') return compileObject(rule, target, yamlPath, cc);
  return compileScalar(rule, target, yamlPath, cc);
}

const SCALAR_KEYS = ['from', 'value', 'default', 'template', 'expr', 'type', 'locale', 'scale', 'format', 'timezone', 'output_format', 'output_timezone', 'true', 'false', 'trim', 'case', 'truncate', 'map', 'lookup', 'when', 'required', 'null_values', 'optional', 'when_empty', 'owner'];
const ALLOWED: Record<'list' | 'object' | 'scalar', ReadonlySet<string>> = {
  list: new Set(['each', 'split', 'folder', 'extensions', 'from', 'when', 'where', 'group_by', 'sort_by', 'steps', 'empty', 'when_missing', 'existing_rows_only', 'item', 'fields', 'optional', 'owner']),
  object: new Set(['fields', 'when', 'owner']),
  scalar: new Set(SCALAR_KEYS),
};
const HINT: Record<'list' | 'object' | 'scalar', string> = {
  list: ' (value rules of entries go under `item:` or into `fields:`)',
  object: ' (a nested object only takes `fields`, `when` and `owner`)',
  scalar: ' (list keys need `each`, `split` or `folder`)',
};

/** Metadata for messages: target, position and a compact rendering of the rule. */
export function metaOf(rule: RuleInput, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): RuleMeta {
  const pos = cc.locate(yamlPath, 'key');
  return { target, line: pos.line, column: pos.column, text: ruleText(rule) };
}

/** Compile conditions (all must hold) into a predicate. */
export function compileConditions(when: Condition | Condition[]): (scope: Scope) => boolean {
  const list = (Array.isArray(when) ? when : [when]).map((c) => {
    const get = compileGetter(c.from);
    const eq = (a: unknown, b: unknown) => a === b || (a !== null && a !== undefined && b !== null && String(a) === String(b));
    // Read from the condition once: condition objects differ in shape, so reading them per record is slow.
    const { equals, not_equals: notEquals, in: oneOf, not_in: noneOf, present } = c;
    return (scope: Scope) => {
      const v = get(scope);
      if (equals !== undefined && !eq(v, equals)) return false;
      if (notEquals !== undefined && eq(v, notEquals)) return false;
      if (oneOf !== undefined && !oneOf.some((x) => eq(v, x))) return false;
      if (noneOf !== undefined && noneOf.some((x) => eq(v, x))) return false;
      if (present !== undefined) {
        const there = v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
        if (there !== present) return false;
      }
      return true;
    };
  });
  return list.length === 1 ? list[0] : (scope) => list.every((p) => p(scope));
}

// Module-level: a regex literal inside the closure would be a new RegExp object for every record.
const SPACE_RUNS = /\s{2,}/g;

/** `"{Vorname} {Nachname}"`: placeholders are source paths; all missing = no value. */
function compileTemplate(template: string): Getter {
  const parts = templateParts(template);
  return (scope) => {
    let out = '';
    let any = false;
    for (const p of parts) {
      if (typeof p === 'string') out += p;
      else {
        const v = p(scope);
        if (v !== undefined && v !== null && v !== '') {
          any = true;
          out += typeof v === 'object' ? JSON.stringify(v) : String(v);
        }
      }
    }
    return any ? out.replace(SPACE_RUNS, ' ') : undefined;
  };
}

function compileSource(rule: RuleObject, yamlPath: readonly PropertyKey[], cc: CompileContext): Getter | undefined {
  const given = (['from', 'value', 'template', 'expr'] as const).filter((k) => rule[k] !== undefined);
  if (given.length > 1) {
    cc.fail('MAPPING_RULE', `a rule takes one source, got ${given.join(' and ')}`, [...yamlPath, given[1]], 'key');
    return undefined;
  }
  if (rule.from !== undefined) return compileGetter(rule.from);
  if (rule.value !== undefined) {
    const v = rule.value;
    return v !== null && typeof v === 'object' ? () => structuredClone(v) : () => v;
  }
  if (rule.template !== undefined) return compileTemplate(rule.template);
  if (rule.expr !== undefined) {
    const id = cc.expression(rule.expr, [...yamlPath, 'expr']);
    return (scope) => ({ [EXPR]: id, scope });
  }
  if (rule.default !== undefined) return () => undefined;
  cc.fail('MAPPING_RULE', 'a rule needs a source: `from`, `value`, `template`, `expr` or at least a `default`', yamlPath, 'key');
  return undefined;
}

const EXPR = Symbol('expr');

/** Compile the coercion of a rule's `type` (undefined: values pass as they are). */
function compileCoercion(rule: RuleObject, yamlPath: readonly PropertyKey[], cc: CompileContext): ((v: unknown) => unknown) | undefined {
  const locale = rule.locale ?? cc.defaults.locale;
  const strings = (vals: readonly unknown[]) => new Set(vals.map((v) => String(v)));
  switch (rule.type) {
    case undefined:
      return undefined;
    case 'string':
      return toText;
    case 'integer':
      return (v) => toInteger(v, locale);
    case 'decimal':
      return (v) => toDecimal(v, locale);
    case 'number':
      return (v) => Number(toDecimal(v, locale));
    case 'boolean':
    case 'flag': {
      const t = strings(rule.true ?? cc.defaults.truthy);
      const f = strings(rule.false ?? cc.defaults.falsy);
      const asFlag = rule.type === 'flag';
      return (v) => {
        const b = typeof v === 'boolean' ? v : toBoolean(v, t, f);
        return asFlag ? (b ? 1 : 0) : b;
      };
    }
    case 'date':
    case 'datetime': {
      try {
        const inputZone = rule.timezone ?? cc.defaults.timezone;
        const outputZone = rule.output_timezone ?? cc.defaults.shopTimezone;
        assertTimeZone(inputZone);
        assertTimeZone(outputZone);
        const dr: DateRule = {
          kind: rule.type,
          parser: compileDateFormat(rule.format ?? (rule.type === 'date' ? API_DATE : API_DATETIME)),
          inputZone,
          outputZone,
          outputFormat: rule.output_format ?? (rule.type === 'date' ? API_DATE : API_DATETIME),
        };
        return (v) => convertDate(dr, typeof v === 'number' ? String(v) : toText(v).trim());
      } catch (err) {
        cc.fail('MAPPING_RULE', (err as Error).message, yamlPath, 'key');
        return undefined;
      }
    }
  }
}

function compileScalar(rule: RuleObject, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): Produce {
  const meta = metaOf(rule, target, yamlPath, cc);
  const source = compileSource(rule, yamlPath, cc) ?? (() => undefined);
  const cond = rule.when ? compileConditions(rule.when) : undefined;
  const coerce = compileCoercion(rule, yamlPath, cc);
  if (rule.scale !== undefined && rule.type !== undefined && rule.type !== 'decimal' && rule.type !== 'number') {
    cc.fail('MAPPING_RULE', `\`scale\` rounds decimals; it does not apply to \`type: ${rule.type}\` (use \`type: decimal\` or \`number\`)`, [...yamlPath, 'scale'], 'key');
  }
  // The places the shop stores for this field (registry), unless the rule says otherwise.
  const fit = scaleFitter(rule.type, rule.scale ?? cc.decimalScale(target), rule.scale !== undefined);
  const hasDefault = rule.default !== undefined;
  // An empty string is a value only for plain text targets; for numbers, dates, flags and lookups it means "nothing".
  const stringTyped = (rule.type === undefined || rule.type === 'string') && rule.lookup === undefined;
  const nulls = rule.null_values ? new Set(rule.null_values.map(String)) : undefined;
  // Value maps and tables as Maps, made once: one hash lookup per value instead of hasOwnProperty and a read.
  const map = rule.map ? new Map(Object.entries(rule.map)) : undefined;
  const mapKeys = rule.map ? Object.keys(rule.map).join(', ') : '';
  let table: ReadonlyMap<string, unknown> | undefined;
  let reference: string | undefined;
  const erpLookup = typeof rule.lookup === 'string' ? rule.lookup : undefined;
  // An ERP lookup (a name under the pipeline's `lookups:`) is answered by the run; the pipeline checks the name.
  if (rule.lookup && typeof rule.lookup !== 'string' && 'table' in rule.lookup) {
    const declared = cc.tables[rule.lookup.table];
    table = declared ? new Map(Object.entries(declared)) : undefined;
    if (!declared) cc.fail('MAPPING_RULE', `unknown lookup table \`${rule.lookup.table}\`; declare it under \`tables:\``, [...yamlPath, 'lookup', 'table']);
  } else if (rule.lookup && typeof rule.lookup !== 'string') reference = rule.lookup.reference;

  // The rule's settings as constants of the closure: rule objects differ in shape (each has its own
  // keys), so reading `rule.trim` and the like per record is a slow, megamorphic property load.
  const { trim, case: letterCase, required, truncate, default: fallback, when_empty: whenEmpty, optional } = rule;
  const clearTo = emptyPolicy(rule, target, yamlPath, cc);
  // With an explicit policy, '' and blanks are empty for text rules too: NULL and '' mean the same.
  const blankIsEmpty = !stringTyped || whenEmpty !== undefined;
  const isMissing = (v: unknown) =>
    v === undefined || v === null || (blankIsEmpty && typeof v === 'string' && v.trim() === '') || (nulls !== undefined && nulls.has(String(v)));

  return (scope, env, parent, name) => {
    if (cond && !cond(scope)) return MISSING;
    let raw = source(scope);
    if (raw !== null && typeof raw === 'object' && EXPR in raw) {
      if (!env.expr) return MISSING;
      raw = env.expr.value((raw as { [EXPR]: number })[EXPR], scope, env.ctx);
      if (raw === PENDING) return MISSING;
      if (raw instanceof ExpressionFailure) {
        env.errors.push(ruleError(env, meta, parent + name, raw.code, raw.code === 'MAPPING_EXPR_BUDGET' ? raw.message : `the expression failed: ${raw.message}`, undefined));
        return MISSING;
      }
    }
    if (env.trace) env.trace.set(parent + name, raw);
    let v: unknown = trim && typeof raw === 'string' ? raw.trim() : raw;
    try {
      if (isMissing(v)) {
        if (whenEmpty !== undefined) {
          // A column the source lacks (`optional: true`) says nothing about the value: never clear or refuse on it.
          if (whenEmpty === 'keep' || (optional && raw === undefined)) return MISSING;
          if (whenEmpty === 'clear') return clearTo;
          env.errors.push(ruleError(env, meta, parent + name, 'MAPPING_EMPTY', `the source has no value (${describe(raw)}) and the rule says \`when_empty: refuse\`; fill it in the ERP, or say \`when_empty: keep\` (the shop keeps its value) or \`clear\``, raw));
          return MISSING;
        }
        if (!hasDefault) {
          if (required) env.errors.push(ruleError(env, meta, parent + name, 'MAPPING_REQUIRED', 'no value in the source and no default', raw));
          return MISSING;
        }
        v = fallback;
      } else {
        if (letterCase && typeof v === 'string') v = letterCase === 'upper' ? v.toUpperCase() : v.toLowerCase();
        if (map) {
          const k = String(v);
          if (map.has(k)) v = map.get(k);
          else if (hasDefault) v = fallback;
          else throw new CoerceError('MAPPING_UNMAPPED', `${describe(v)} is not in the value map (${mapKeys}); add it or give a \`default\``);
        }
        if (table) {
          const k = String(v);
          if (table.has(k)) v = table.get(k);
          else if (hasDefault) v = fallback;
          else throw new CoerceError('MAPPING_LOOKUP', `${describe(v)} is not in the lookup table; add it or give a \`default\``);
        } else if (erpLookup !== undefined) {
          const answer = env.ctx.lookupErp?.(erpLookup, typeof v === 'number' ? v : String(v));
          if (answer === undefined) throw new CoerceError('MAPPING_LOOKUP', `lookup \`${erpLookup}\` is answered by the ERP during a pull run of a pipeline that declares it under \`lookups:\`; it has no answer here`);
          // Pending: the run asks the ERP and maps the record again; the error keeps this pass from ever being delivered.
          if (answer.kind === 'pending') throw new CoerceError('LOOKUP_PENDING', `lookup \`${erpLookup}\` for ${describe(v)} has not been asked yet`);
          if (answer.kind === 'found') v = answer.value;
          else if (answer.code === 'LOOKUP_NOT_FOUND' && hasDefault) v = fallback;
          else throw new CoerceError(answer.code, answer.message);
        } else if (reference) {
          const id = env.ctx.lookupReference(reference, String(v));
          if (id !== undefined) v = id;
          else if (hasDefault) v = fallback;
          else throw new CoerceError('MAPPING_LOOKUP', `no shop id is known for ${reference} with ERP key ${describe(v)}; sync ${reference} first or give a \`default\``);
        }
      }
      if (coerce && v !== null) v = coerce(v);
      if (fit && v !== null && v !== undefined) v = fit(v, env.warnings, parent + name);
      if (truncate !== undefined && typeof v === 'string' && v.length > truncate) {
        env.warnings.push({ code: 'TRUNCATED', field: parent + name, message: `cut from ${v.length} to ${truncate} characters as the mapping declares` });
        v = v.slice(0, truncate);
      }
      return v;
    } catch (err) {
      if (!(err instanceof CoerceError)) throw err;
      env.errors.push(ruleError(env, meta, parent + name, err.code, err.message, raw));
      return MISSING;
    }
  };
}
