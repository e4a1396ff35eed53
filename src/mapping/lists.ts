/**
 * Lists and nested objects: entries built from nested source arrays (`each`), from delimited
 * strings (`split`), or from child rows grouped by a key (`group_by`, with price `steps`).
 * Replace-on-present lists get their guard rail here, where we still know *why* a list is empty.
 */
import { MISSING, ruleError, type CompileContext, type Env, type Produce } from './env.js';
import { compileGetter, compileSetter, type Getter, type Scope } from './paths.js';
import { compileConditions, compileRule, metaOf } from './rules.js';
import type { RuleInput, RuleObject } from './schema.js';
import { compileFolder, type FolderFile } from './folders.js';

/** One target field and the rule that produces it. */
export interface FieldProducer {
  readonly name: string;
  /** `.name`, joined to the entry's path when a field inside a list or object is produced. */
  readonly suffix: string;
  readonly produce: Produce;
  readonly set: (target: Record<string, unknown>, value: unknown) => void;
}

/** Compile a `fields:` block into producers (dot keys write nested objects). */
export function compileFields(fields: Record<string, RuleInput>, targetPrefix: string, yamlPath: readonly PropertyKey[], cc: CompileContext): FieldProducer[] {
  return Object.entries(fields).map(([name, rule]) => ({
    name,
    suffix: `.${name}`,
    produce: compileRule(rule, targetPrefix === '' ? name : `${targetPrefix}.${name}`, [...yamlPath, name], cc),
    set: compileSetter(name),
  }));
}

/** Run field producers into one object; MISSING when nothing was produced. */
export function buildObject(producers: readonly FieldProducer[], scope: Scope, env: Env, at: string): Record<string, unknown> | typeof MISSING {
  const out: Record<string, unknown> = {};
  return buildInto(producers, scope, env, at, out) ? out : MISSING;
}

/** Run field producers into `out`; true when any produced a value. */
function buildInto(producers: readonly FieldProducer[], scope: Scope, env: Env, at: string, out: Record<string, unknown>): boolean {
  let any = false;
  for (const p of producers) {
    const v = p.produce(scope, env, at, at === '' ? p.name : p.suffix);
    if (v !== MISSING) {
      p.set(out, v);
      any = true;
    }
  }
  return any;
}

/** A nested object target (`billing: { fields: … }`). */
export function compileObject(rule: RuleObject, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): Produce {
  const producers = compileFields(rule.fields ?? {}, target, [...yamlPath, 'fields'], cc);
  const cond = rule.when ? compileConditions(rule.when) : undefined;
  return (scope, env, parent, name) => (cond && !cond(scope) ? MISSING : buildObject(producers, scope, env, parent + name));
}

const POINTS = /\./g;
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * `'10,000'` → 10: digits with at most one comma, up to 15 digits. Their value as an integer over a
 * power of ten is exact in a double, and one division rounds once, to the double Number() reads.
 */
function plainSortNumber(s: string): number | undefined {
  const n = s.length;
  if (n === 0 || n > 16) return undefined;
  let digits = 0;
  let scale = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits = digits * 10 + (c - 48);
    else if (c === 44 && scale === -1 && i > 0 && i < n - 1) scale = n - 1 - i;
    else return undefined;
  }
  if (scale === -1) return n > 15 ? undefined : digits;
  return digits / POWERS_OF_TEN[scale];
}

function sortKey(v: unknown): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const plain = plainSortNumber(v);
    if (plain !== undefined) return plain;
  }
  const s = String(v ?? '').trim();
  const n = Number((s.includes('.') ? s.replace(POINTS, '') : s).replace(',', '.'));
  return s !== '' && Number.isFinite(n) ? n : s;
}

// `[0]`…`[63]` made once: entry paths are built for every entry of every record.
const INDEX = Array.from({ length: 64 }, (_, i) => `[${i}]`);
const indexPath = (at: string, i: number) => at + (i < INDEX.length ? INDEX[i] : `[${i}]`);

/** `'a, b,,c'` → `['a', 'b', 'c']`: trimmed parts, empty ones left out. */
function splitList(text: string, separator: string): string[] {
  // Most cells hold one code: no split needed.
  if (!text.includes(separator)) {
    const t = text.trim();
    return t === '' ? [] : [t];
  }
  const out: string[] = [];
  for (const part of text.split(separator)) {
    const t = part.trim();
    if (t !== '') out.push(t);
  }
  return out;
}

/** A list target built from `each` (array path) or `split` (delimited string in `from`). */
export function compileList(rule: RuleObject, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): Produce {
  const meta = metaOf(rule, target, yamlPath, cc);
  const listTarget = `${target}[]`;
  const guard = cc.listGuard(target);
  const replace = guard?.replace ?? false;
  let source: Getter;
  const folder = rule.folder !== undefined ? compileFolder(rule.folder, cc.file, rule.extensions) : undefined;
  const sourceName = rule.each ?? rule.from ?? `folder: ${rule.folder ?? ''}`;
  // `each: .` turns the current record into a one-entry list: flat CSV rows (one row per warehouse) feed list targets too.
  if (rule.each === '.') source = (scope) => (scope.item === undefined || scope.item === null ? undefined : [scope.item]);
  else if (rule.each !== undefined) source = compileGetter(rule.each);
  else if (rule.from !== undefined) source = compileGetter(rule.from);
  else if (folder) source = () => undefined;
  else {
    cc.fail('MAPPING_RULE', '`split` needs `from`: the source field holding the delimited list', yamlPath, 'key');
    source = () => undefined;
  }
  const split = rule.split;
  const cond = rule.when ? compileConditions(rule.when) : undefined;
  const where = rule.where ? compileConditions(rule.where) : undefined;
  const sortBy = rule.sort_by !== undefined ? compileGetter(rule.sort_by) : undefined;
  const groupBy = rule.group_by === undefined ? undefined : (Array.isArray(rule.group_by) ? rule.group_by : [rule.group_by]).map(compileGetter);
  // One key (the usual case) needs no array and no join per item.
  const groupKey: ((scope: Scope) => string) | undefined = !groupBy
    ? undefined
    : groupBy.length === 1
      ? (sc) => String(groupBy[0](sc) ?? '')
      : (sc) => groupBy.map((g) => String(g(sc) ?? '')).join('\u0000');
  const entryFields = rule.fields ? compileFields(rule.fields, listTarget, [...yamlPath, 'fields'], cc) : undefined;
  const itemRule: Produce | undefined = entryFields ? undefined : compileRule(rule.item ?? '.', listTarget, [...yamlPath, rule.item ? 'item' : 'each'], cc);
  const steps = rule.steps;
  const stepFields: FieldProducer[][] = [];
  if (steps) {
    if (!groupBy) cc.fail('MAPPING_RULE', '`steps` needs `group_by`: steps are built from the rows of one group', [...yamlPath, 'steps'], 'key');
    for (let n = 1; n <= steps.max; n++) {
      const fields: Record<string, RuleInput> = {};
      for (const [k, r] of Object.entries(steps.fields)) fields[k.replace(/\{n\}/g, String(n))] = r;
      stepFields.push(compileFields(fields, listTarget, [...yamlPath, 'steps', 'fields'], cc));
    }
  }
  const fromRow = (steps?.from_row ?? 2) - 1;
  const flatSteps = stepFields.every((fields) => fields.every((f) => !f.name.includes('.') && f.name !== '__proto__'));
  const { when_missing: whenMissing, empty } = rule;

  const entry = (scope: Scope, env: Env, at: string): unknown => {
    if (itemRule) return itemRule(scope, env, at, '');
    const obj = buildObject(entryFields ?? [], scope, env, at);
    if (!steps || !scope.rows) return obj;
    const out = obj === MISSING ? {} : obj;
    // buildObject gives MISSING or an object with keys, so this says whether `out` has any.
    let any = obj !== MISSING;
    const rows = scope.rows;
    for (let i = fromRow, n = 0; i < rows.length && n < stepFields.length; i++, n++) {
      const stepScope = { item: rows[i], root: scope.root, rows, index: n + 1 };
      // Flat step fields (the usual `products_price{n}`) go straight into the entry: the same as
      // assigning a step object, without making one. Dotted names keep the step object, because
      // Object.assign replaces a nested object that a direct write would merge into.
      if (flatSteps) {
        if (buildInto(stepFields[n], stepScope, env, at, out)) any = true;
        continue;
      }
      const stepObj = buildObject(stepFields[n], stepScope, env, at);
      if (stepObj !== MISSING) {
        Object.assign(out, stepObj);
        any = true;
      }
    }
    if (rows.length - fromRow > stepFields.length) {
      env.warnings.push({ code: 'STEPS_DROPPED', field: at, message: `${rows.length - fromRow - stepFields.length} rows beyond the ${stepFields.length} price steps the shop takes were not sent` });
    }
    return any ? out : MISSING;
  };

  return (scope, env, parent, name) => {
    if (cond && !cond(scope)) return MISSING;
    // A top-level list ('' + name) makes no new string.
    const at = parent + name;
    let src = source(scope);
    let missingWhy = '';
    if (folder) {
      const read = folder(scope);
      // Never an empty list: an unreadable folder (unmounted share, permissions) says nothing about the shop's list.
      if (read.kind === 'unreadable') {
        env.errors.push(ruleError(env, meta, at, 'GUARD_FOLDER_UNREADABLE', `${read.reason}; nothing is sent for \`${at}\`, so the shop's list stays as it is`, read.folder));
        return MISSING;
      }
      if (read.kind === 'missing') missingWhy = ` (${read.reason})`;
      src = read.kind === 'files' ? read.files : undefined;
    }
    // An empty cell is how CSV and SQL exports say "nothing": it counts as missing, not as an empty list.
    if (split !== undefined && typeof src === 'string') src = src.trim() === '' ? undefined : splitList(src, split);
    else if (split !== undefined && typeof src === 'number') src = [src];
    if (src === undefined || src === null) {
      if (replace && whenMissing !== 'omit') {
        env.errors.push(
          ruleError(env, meta, at, 'GUARD_EMPTY_REPLACE_LIST', `the source \`${sourceName}\` is missing${missingWhy}, and sending \`${at}\` would replace the shop's list; declare \`when_missing: omit\` to leave it untouched`, src),
        );
      }
      return MISSING;
    }
    if (!Array.isArray(src)) {
      env.errors.push(ruleError(env, meta, at, 'MAPPING_NOT_A_LIST', `expected a list at \`${sourceName}\``, src));
      return MISSING;
    }
    let items: readonly unknown[] = src;
    if (where) items = items.filter((item) => where({ item, root: scope.root }));
    // One entry is sorted already (and keys have no side effects): no key, no sort.
    if (sortBy && items.length > 1) {
      // Keys computed once per item, not twice per comparison (sortKey may parse a string).
      const keyed = items.map((item) => ({ item, k: sortKey(sortBy({ item, root: scope.root })) }));
      keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
      items = keyed.map((e) => e.item);
    }
    const out: unknown[] = [];
    const errorsBefore = env.errors.length;
    if (groupKey) {
      const groups = new Map<string, unknown[]>();
      for (const item of items) {
        const k = groupKey({ item, root: scope.root });
        const rows = groups.get(k);
        if (rows) rows.push(item);
        else groups.set(k, [item]);
      }
      for (const rows of groups.values()) {
        const v = entry({ item: rows[0], root: scope.root, rows, index: out.length + 1 }, env, indexPath(at, out.length));
        if (v !== MISSING) out.push(v);
      }
    } else {
      for (const item of items) {
        const v = entry({ item, root: scope.root, index: out.length + 1 }, env, indexPath(at, out.length));
        if (v === MISSING) continue;
        // The pipeline uploads these where the registry says the entries name files (product images).
        if (folder) env.files?.push({ field: at, index: out.length, path: (item as FolderFile).path });
        out.push(v);
      }
    }
    if (out.length === 0 && empty === 'omit') return MISSING;
    if (out.length === 0 && replace && empty !== 'clear') {
      // Entries that failed (a lookup without a reference, say) already carry their own error: the source was not empty.
      if (env.errors.length > errorsBefore) return MISSING;
      env.errors.push(
        ruleError(env, meta, at, 'GUARD_EMPTY_REPLACE_LIST', `the source gave no entries, and an empty \`${at}\` would clear the shop's list; declare \`empty: clear\` if that is meant, or \`empty: omit\` to leave it untouched`, src),
      );
      return MISSING;
    }
    return out;
  };
}
