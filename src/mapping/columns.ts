/**
 * Source columns: which columns of the ERP record a mapping reads, and which of them a source does
 * not have. A column that is not there reads the same as a NULL, so a typo in `from:` (`pries` for
 * `preis`) would otherwise sync an empty price forever without a word. Paths inside lists (`each`,
 * `split`, `group_by`, `folder` entries) read list entries, not columns, and are left out; so are JSONata
 * expressions, whose inputs are not known before they run.
 */
import { MappingError } from '../errors.js';
import { didYouMean } from '../util/suggest.js';
import type { MappingFile, RuleInput } from './schema.js';

/** One place where a mapping reads a column of the source record. */
export interface ColumnUse {
  /** The column (the first part of the path). */
  readonly column: string;
  /** The path as written (`Artikel.Nummer`). */
  readonly path: string;
  /** What reads it: `fields.products_price`, `key`, `row_key`. */
  readonly at: string;
  readonly line?: number;
  /** The rule says `optional: true`: the source may lack the column. */
  readonly optional: boolean;
}

/** Where to find a path in the mapping file (line), when known. */
type Locate = (path: readonly PropertyKey[]) => number | undefined;

/** The columns a mapping file reads at record level. */
export function columnUses(file: MappingFile, locate: Locate): ColumnUse[] {
  const uses: ColumnUse[] = [];
  const add = (path: string | undefined, at: string, yamlPath: readonly PropertyKey[], optional: boolean, inList: boolean) => {
    if (path === undefined) return;
    const rooted = path.startsWith('$root.');
    if (inList && !rooted) return;
    const rest = rooted ? path.slice(6) : path;
    if (rest === '' || rest.startsWith('$') || rest === '.') return;
    const line = locate(yamlPath);
    uses.push({ column: rest.split('.')[0]!, path: rest, at, ...(line !== undefined ? { line } : {}), optional });
  };
  if (typeof file.key === 'string') add(file.key, 'key', ['key'], false, false);
  else {
    add(file.key.surrogate, 'key.surrogate', ['key', 'surrogate'], false, false);
    add(file.key.natural, 'key.natural', ['key', 'natural'], false, false);
  }
  file.row_key?.forEach((p, i) => add(p, 'row_key', ['row_key', i], false, false));
  const walk = (rules: Record<string, RuleInput>, prefix: string, yaml: readonly PropertyKey[], inList: boolean) => {
    for (const [target, rule] of Object.entries(rules)) {
      const at = `${prefix}${target}`;
      const here = [...yaml, target];
      if (typeof rule === 'string') {
        add(rule, `fields.${at}`, here, false, inList);
        continue;
      }
      // A list that says what a missing source means (`when_missing: omit`) expects the column may be absent.
      const optional = rule.optional === true || rule.when_missing === 'omit';
      add(rule.from, `fields.${at}`, [...here, 'from'], optional, inList);
      add(rule.each, `fields.${at}`, [...here, 'each'], optional, inList);
      for (const [i, c] of (Array.isArray(rule.when) ? rule.when : rule.when ? [rule.when] : []).entries()) add(c.from, `fields.${at} (when)`, [...here, 'when', ...(Array.isArray(rule.when) ? [i] : []), 'from'], optional, inList);
      for (const m of rule.template?.matchAll(/\{([^{}]+)\}/g) ?? []) add(m[1]!.trim(), `fields.${at} (template)`, [...here, 'template'], optional, inList);
      // Entries of a list are read from its elements; a nested object reads the same record.
      const entries = rule.each !== undefined || rule.split !== undefined || rule.group_by !== undefined || rule.folder !== undefined;
      if (rule.fields) walk(rule.fields, `${at}.`, [...here, 'fields'], inList || entries);
      if (rule.item && typeof rule.item === 'object') walk({ item: rule.item }, `${at}.`, here, true);
      if (rule.steps) walk(rule.steps.fields, `${at}.`, [...here, 'steps', 'fields'], true);
    }
  };
  walk(file.fields, '', ['fields'], false);
  return uses;
}

/** The uses whose column none of the `seen` records had (a column any of them had is there). */
export function missingColumns(uses: readonly ColumnUse[], seen: ReadonlySet<string>): ColumnUse[] {
  return uses.filter((u) => !u.optional && !seen.has(u.column) && !seen.has(u.path));
}

/** MAPPING_SOURCE_COLUMN_MISSING: every missing column with file:line and the nearest real column. */
export function missingColumnsError(file: string, missing: readonly ColumnUse[], seen: ReadonlySet<string>, source: string): MappingError {
  const columns = [...seen].sort();
  const lines = missing.map((u) => {
    const near = didYouMean(u.column, columns);
    return `${file}${u.line !== undefined ? `:${u.line}` : ''}: ${u.at} reads \`${u.path}\`, but ${source} has no column \`${u.column}\`${near ? `; did you mean \`${near}\`?` : ''}`;
  });
  return new MappingError(
    'MAPPING_SOURCE_COLUMN_MISSING',
    `the mapping reads column(s) the source does not have, which would read as empty on every record: ${lines.join(' | ')}. The source's columns: ${columns.join(', ') || '(none)'}. Fix the name in the mapping, or mark a rule \`optional: true\` when the source may lack that column`,
    { details: { missing: missing.map((u) => ({ column: u.column, path: u.path, at: u.at, line: u.line })), columns } },
  );
}
