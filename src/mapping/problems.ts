/**
 * Problems found in a mapping file, each with file:line:column and, where we can, a suggestion.
 */
import type { z } from 'zod';
import { MappingError } from '../errors.js';
import { valueAt } from '../util/paths.js';
import { didYouMean } from '../util/suggest.js';
import type { YamlSource } from './yaml.js';

/** A mapping file failed to load: carries every problem found, each a MappingError with a position. */
export class MappingFileError extends MappingError {
  readonly problems: readonly MappingError[];

  constructor(file: string, problems: readonly MappingError[]) {
    const first = problems[0];
    super('MAPPING_INVALID', `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p.message}`).join('\n')}`, {
      file,
      line: first?.line,
      column: first?.column,
      field: first?.field,
    });
    this.problems = problems;
  }
}

/** Build one positioned problem: `file:line:col: message`. */
export function problem(src: YamlSource, code: string, message: string, path: readonly PropertyKey[], at: 'key' | 'value' = 'value'): MappingError {
  const pos = src.locate(path, at);
  const field = path.filter((p) => typeof p === 'string').join('.');
  return new MappingError(code, `${src.file}:${pos.line}:${pos.column}: ${message}`, { file: src.file, line: pos.line, column: pos.column, field });
}

type Issue = z.core.$ZodIssue;

/** Keys that the rule object accepts, for suggestions when a rule key is misspelt. */
const RULE_KEYS = [
  'from', 'value', 'default', 'template', 'expr', 'type', 'locale', 'format', 'timezone', 'output_format', 'output_timezone', 'true', 'false', 'trim', 'case',
  'truncate', 'map', 'lookup', 'when', 'required', 'null_values', 'each', 'split', 'group_by', 'sort_by', 'where', 'steps', 'empty', 'when_missing',
  'existing_rows_only', 'item', 'fields', 'owner',
];
const TOP_KEYS = ['name', 'description', 'direction', 'source', 'target', 'key', 'shop_key', 'history_identity', 'create_only', 'duplicates', 'stock', 'locale', 'timezone', 'shop_timezone', 'true', 'false', 'tables', 'expr_limits', 'fields'];

/** Pick the union branch that explains a failure best (not the "expected string" of the shorthand). */
function unionIssues(issue: Issue & { errors?: Issue[][] }): Issue[] {
  const branches = (issue.errors ?? []).filter((b) => !(b.length === 1 && b[0].code === 'invalid_type' && b[0].path.length === 0));
  const best = branches.sort((a, b) => a.length - b.length)[0];
  if (!best) {
    const rule = issue.path.some((p) => p === 'fields' || p === 'item');
    return [{ ...issue, message: rule ? 'expected a source path (text) or a rule object like `{ from: Spalte, type: decimal }`' : issue.message } as Issue];
  }
  return best.flatMap((i) => (i.code === 'invalid_union' ? unionIssues(i as Issue & { errors?: Issue[][] }) : [i])).map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as Issue);
}

/** Turn zod issues on the parsed file into positioned problems. */
export function zodProblems(src: YamlSource, issues: readonly Issue[]): MappingError[] {
  const out: MappingError[] = [];
  for (const raw of issues) {
    for (const issue of raw.code === 'invalid_union' ? unionIssues(raw as Issue & { errors?: Issue[][] }) : [raw]) {
      const path = issue.path as PropertyKey[];
      if (issue.code === 'unrecognized_keys') {
        const top = path.length === 0;
        for (const key of issue.keys) {
          const near = didYouMean(key, top ? TOP_KEYS : RULE_KEYS);
          const where = top ? 'at the top of the file' : `in \`${path.join('.')}\``;
          out.push(problem(src, 'MAPPING_SCHEMA', `unknown key \`${key}\` ${where}${near ? `; did you mean \`${near}\`?` : ''}`, [...path, key], 'key'));
        }
        continue;
      }
      const got = valueAt(src.data, path);
      const gotText = got === undefined ? '' : ` (got ${JSON.stringify(got)?.slice(0, 60)})`;
      const label = path.length ? `\`${path.join('.')}\`: ` : '';
      out.push(problem(src, 'MAPPING_SCHEMA', `${label}${issue.message}${gotText}`, path, got === undefined ? 'key' : 'value'));
    }
  }
  return out;
}
