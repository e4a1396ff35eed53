/**
 * Who owns a field after the record is created (issue 46, docs/mappings.md "Who owns a field"):
 * the rule key `owner: erp | shop | guard`, compiled once into the table the push, the preview and
 * reconcile all read (`CompiledMapping.owners`).
 *
 * - `erp` (the default): every update sends the ERP's value, whatever the shop holds.
 * - `shop`: sent when the record is created, never in an update, and left out of the change hash.
 * - `guard`: sent in an update only while the shop still holds what shopsync last sent; a value
 *   the shop's people changed is left as it is and reported as a conflict.
 *
 * An owner is allowed where leaving the field out of an update leaves the rest as it is: a
 * top-level field, or a field of a per-language block (a `merge-language` list such as products'
 * `languages`, where the shop writes only what is sent). Inside a list entry or a plain nested
 * object, dropping one field would change what the update writes to its siblings.
 */
import type { MappingError } from '../errors.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { problem } from './problems.js';
import type { MappingFile, RuleInput } from './schema.js';
import type { FieldOwners } from './types.js';
import type { YamlSource } from './yaml.js';

/** The fields of a mapping that are not the ERP's, and the problems of misplaced `owner:` keys. */
export function compileOwners(src: YamlSource, file: MappingFile, resource: ResourceDef | undefined): { owners?: FieldOwners; problems: MappingError[] } {
  const problems: MappingError[] = [];
  const shop: string[] = [];
  const guard: string[] = [];
  const operation = 'operation' in file.target ? file.target.operation : undefined;
  const stockFields = new Set((resource?.stock?.fields ?? []).map((f) => (f.kind === 'scalar' ? f.field : f.list)));

  const place = (target: string, rule: Exclude<RuleInput, string>): string | undefined => {
    if (file.direction !== 'erp-to-shop') return 'a shop→erp mapping writes ERP rows, which have no shop side to own a field';
    if (operation === 'create') return 'a mapping that only creates never updates a record, so every field is the shop\'s once it exists; remove `owner`';
    const segments = target.split('.');
    const top = segments[0]!;
    const perLanguage = resource?.lists[top]?.semantics.kind === 'merge-language';
    if (segments.length > 1 && !(perLanguage && segments.length <= 3)) {
      return `\`${target}\` is inside the object \`${top}\`, which an update writes as a whole; put \`owner\` on \`${top}\`, or on a field of a language block (\`languages.<code>.<field>\`)`;
    }
    if (target === file.shop_key || (resource && target === resource.key.id)) return `\`${target}\` is how shopsync finds the record in the shop on update; it is always the ERP's`;
    if (file.create_only?.includes(target)) return `\`${target}\` is in \`create_only\` already (sent on create only); keep one of the two`;
    if (stockFields.has(top)) return `\`${target}\` is stock, which follows the ERP and the shop's orders (\`stock:\`, docs/catalog.md "Stock and orders in flight"); it has no owner`;
    if (rule.owner === 'guard') {
      const list = rule.each !== undefined || rule.split !== undefined || rule.folder !== undefined;
      if (list || rule.fields !== undefined) return `\`owner: guard\` compares one value with the shop's; \`${target}\` is a ${list ? 'list' : 'nested object'}: use \`owner: shop\`, or guard its fields one by one`;
      if (file.row_key) return `\`owner: guard\` needs one source record per shop record, but the file declares \`row_key\` (several rows per record: which row's value was last sent is not one value)`;
    }
    return undefined;
  };

  const walk = (fields: Readonly<Record<string, RuleInput>>, prefix: string, yamlPath: PropertyKey[], within: 'record' | 'list' | 'owned'): void => {
    for (const [name, rule] of Object.entries(fields)) {
      if (typeof rule === 'string') continue;
      const target = prefix ? `${prefix}.${name}` : name;
      const here = [...yamlPath, name];
      const owned = rule.owner !== undefined && rule.owner !== 'erp';
      // `owner: erp` says the default out loud: fine anywhere.
      if (owned) {
        const why = within === 'list' ? `\`${target}\` is a field of a list entry; an owner belongs to the list (\`owner: shop\` on it) or to a field outside lists` : within === 'owned' ? `\`${target}\` is inside a field that names its owner already; set \`owner\` once` : place(target, rule);
        if (why) problems.push(problem(src, 'MAPPING_OWNER', why, [...here, 'owner']));
        else if (rule.owner === 'shop') shop.push(target);
        else if (rule.owner === 'guard') guard.push(target);
      }
      const list = rule.each !== undefined || rule.split !== undefined || rule.folder !== undefined;
      const inner = within !== 'record' ? within : list ? 'list' : owned ? 'owned' : 'record';
      if (rule.fields) walk(rule.fields, list ? `${target}[]` : target, [...here, 'fields'], inner);
      if (rule.item && typeof rule.item !== 'string' && rule.item.owner !== undefined && rule.item.owner !== 'erp') problems.push(problem(src, 'MAPPING_OWNER', `the entries of \`${target}\` have no owner of their own; put \`owner\` on \`${target}\``, [...here, 'item', 'owner']));
      if (rule.steps) walk(rule.steps.fields, `${target}[]`, [...here, 'steps', 'fields'], 'list');
    }
  };
  walk(file.fields, '', ['fields'], 'record');
  return shop.length > 0 || guard.length > 0 ? { owners: { shop, guard }, problems } : { problems };
}
