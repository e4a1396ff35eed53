/**
 * A scalar rule's empty policy (`when_empty: keep | clear | refuse`, docs/mappings.md "Empty
 * values"), checked once at load: against `required` and `default`, which decide empty values too,
 * and, for `clear`, against the registry, which knows what empties each shop field on the wire.
 */
import type { CompileContext } from './env.js';
import type { RuleObject } from './schema.js';

const SAYS: Readonly<Record<string, string>> = {
  keep: 'to leave the shop\'s value as it is',
  clear: 'to empty the shop\'s value',
};

/**
 * Check the rule's `when_empty` against its other keys and the registry; returns the value a
 * `clear` sends (undefined for other policies, or when a problem was recorded).
 */
export function emptyPolicy(rule: RuleObject, target: string, yamlPath: readonly PropertyKey[], cc: CompileContext): string | null | undefined {
  const policy = rule.when_empty;
  if (policy === undefined) return undefined;
  const at = [...yamlPath, 'when_empty'];
  if (rule.required === true) {
    cc.fail(
      'MAPPING_RULE',
      policy === 'refuse'
        ? '`required: true` and `when_empty: refuse` say the same (an empty value refuses the record); keep one'
        : `\`required: true\` refuses a record with an empty value, and \`when_empty: ${policy}\` says ${SAYS[policy]}; keep one`,
      at,
      'key',
    );
    return undefined;
  }
  if (rule.default !== undefined && rule.map === undefined && rule.lookup === undefined) {
    // With a map or lookup the pair makes sense: `default` for the values they do not know, `when_empty` for empty ones.
    cc.fail('MAPPING_RULE', `\`default\` fills every empty value, so \`when_empty: ${policy}\` would never apply; keep one`, at, 'key');
    return undefined;
  }
  if (policy !== 'clear') return undefined;
  const empty = cc.emptyValue(target);
  if ('never' in empty) {
    cc.fail('MAPPING_NOT_CLEARABLE', `\`when_empty: clear\` on \`${target}\`: ${empty.never}; use \`keep\` (the shop keeps its value) or \`refuse\` (the record is refused until the ERP has a value)`, at, 'key');
    return undefined;
  }
  return empty.clear;
}
