/**
 * Load-time checks of an erp→shop mapping against the registry: every target field must exist in
 * the resource's strict write schema (a typo the shop would silently ignore never gets out), and the
 * declarations some traps need (order tax flag and external reference, history identity) are present.
 */
import type { z } from 'zod';
import type { MappingError } from '../errors.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { IGNORED_FIELDS } from './guards.js';
import { problem } from './problems.js';
import type { MappingFile, RuleInput } from './schema.js';
import { arrayElement, isObjectLike, resolveTarget } from './targets.js';
import type { YamlSource } from './yaml.js';

/** Check target names and trap declarations; returns positioned problems (empty when fine). */
export function checkTargets(src: YamlSource, file: MappingFile, resource: ResourceDef, operation: string): MappingError[] {
  const out: MappingError[] = [];
  const ignored = IGNORED_FIELDS[resource.name] ?? {};

  const checkFields = (schema: z.ZodType, fields: Record<string, RuleInput>, yamlPath: PropertyKey[], prefix: string, top: boolean) => {
    for (const [name, rule] of Object.entries(fields)) {
      const here = [...yamlPath, name];
      if (top && ignored[name]) {
        out.push(problem(src, 'GUARD_IGNORED_FIELD', `\`${name}\`: ${ignored[name]}`, here, 'key'));
        continue;
      }
      // A target naming a shop variable (`languages.${shop.language}.products_name`) is checked once a pipeline fills it in (`shopsync config check`).
      if (name.includes('${shop.')) continue;
      const res = resolveTarget(schema, name);
      if (!res.ok) {
        const full = prefix ? `${prefix}.${name}` : name;
        const hint = res.suggestion ? `; did you mean \`${res.suggestion}\`?` : '';
        out.push(problem(src, 'MAPPING_UNKNOWN_FIELD', `target \`${full}\`: ${res.message} of ${resource.name}${hint} (the shop would silently ignore it)`, here, 'key'));
        continue;
      }
      if (typeof rule === 'string') continue;
      const full = prefix ? `${prefix}.${name}` : name;
      if (rule.each !== undefined || rule.split !== undefined || rule.folder !== undefined) {
        const element = arrayElement(res.schema);
        if (!element) {
          out.push(problem(src, 'MAPPING_NOT_A_LIST', `target \`${full}\` is not a list field of ${resource.name}; \`each\`/\`split\` build lists`, here, 'key'));
          continue;
        }
        if (rule.fields) {
          if (!isObjectLike(element)) out.push(problem(src, 'MAPPING_RULE', `entries of \`${full}\` are plain values; use \`item:\` instead of \`fields:\``, [...here, 'fields'], 'key'));
          else checkFields(element, rule.fields, [...here, 'fields'], `${full}[]`, false);
        }
        if (rule.steps) {
          const one: Record<string, RuleInput> = {};
          for (const [k, r] of Object.entries(rule.steps.fields)) one[k.replace(/\{n\}/g, '1')] = r;
          checkFields(element, one, [...here, 'steps', 'fields'], `${full}[]`, false);
        }
      } else if (rule.fields) {
        if (!isObjectLike(res.schema)) out.push(problem(src, 'MAPPING_RULE', `target \`${full}\` is not an object; \`fields:\` builds nested objects`, here, 'key'));
        else checkFields(res.schema, rule.fields, [...here, 'fields'], full, false);
      }
    }
  };
  checkFields(resource.schemas.write, file.fields, ['fields'], '', true);

  if (file.shop_key !== undefined && !resolveTarget(resource.schemas.write, file.shop_key).ok) {
    out.push(problem(src, 'MAPPING_UNKNOWN_FIELD', `shop_key \`${file.shop_key}\` is not a field of ${resource.name}`, ['shop_key']));
  }

  const histories = Object.entries(resource.lists).filter(([, d]) => d.semantics.kind === 'append-only');
  for (const [list, def] of histories) {
    if (!(list in file.fields)) continue;
    if (!file.history_identity) {
      const suggested = def.semantics.kind === 'append-only' ? def.semantics.identity.join(', ') : '';
      out.push(problem(src, 'GUARD_HISTORY_IDENTITY', `\`${list}\` is append-only (each entry sent is appended again); declare \`history_identity: [${suggested}]\` so a pipeline sends each entry exactly once`, ['fields', list], 'key'));
    } else {
      const element = arrayElement(resolveTarget(resource.schemas.write, list).ok ? (resolveTarget(resource.schemas.write, list) as { schema: z.ZodType }).schema : resource.schemas.write);
      file.history_identity.forEach((f, i) => {
        if (element && !resolveTarget(element, f).ok) out.push(problem(src, 'GUARD_HISTORY_IDENTITY', `history_identity field \`${f}\` is not a field of \`${list}[]\` entries`, ['history_identity', i]));
      });
    }
  }
  if (file.history_identity && histories.every(([l]) => !(l in file.fields))) {
    out.push(problem(src, 'MAPPING_RULE', `history_identity is declared but the mapping writes no append-only list of ${resource.name}`, ['history_identity'], 'key'));
  }

  if (operation !== 'update') {
    for (const rule of resource.requiredOnCreate ?? []) {
      // A rule a mapping may waive (a product's price) is decided per record: the mapping may create inactive ones, or update only.
      if (rule.allowedBy !== undefined) continue;
      const mapped = rule.field in file.fields || Object.keys(file.fields).some((target) => target.startsWith(`${rule.field}.`));
      if (!mapped) out.push(problem(src, rule.guard, `a mapping that creates ${resource.name} must map \`${rule.field}\`: ${rule.why}`, ['fields'], 'key'));
    }
  }
  return out;
}
