/**
 * `key: { surrogate: ID, natural: ARTNR }` (issue 46): the ERP's stable id is the record's ERP key
 * (references, hashes and dead letters are kept by it), and the article number beside it is the
 * value the shop knows the record by. A changed number is then a rename of one shop record, not
 * one record gone and a new one (src/renames). Only for resources whose registry entry says which
 * field holds the number (`renames`), and the mapping must write that field.
 */
import type { MappingError } from '../errors.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { compileGetter } from './paths.js';
import { problem } from './problems.js';
import type { MappingFile } from './schema.js';
import type { SurrogateKey } from './types.js';
import type { YamlSource } from './yaml.js';

/** What the file's `key` compiles to: the ERP key's source path, and the surrogate key when declared. */
export interface CompiledKey {
  readonly path: string;
  readonly surrogate?: SurrogateKey;
  /** The shop key: the file's `shop_key`, or with a surrogate key the registry's number field. */
  readonly shopKey?: string;
}

/** Compile the file's `key`; problems go to `problems`. */
export function compileKey(src: YamlSource, file: MappingFile, resource: ResourceDef | undefined, problems: MappingError[]): CompiledKey {
  if (typeof file.key === 'string') return { path: file.key, ...(file.shop_key !== undefined ? { shopKey: file.shop_key } : {}) };
  const { surrogate, natural } = file.key;
  const base = { path: surrogate, ...(file.shop_key !== undefined ? { shopKey: file.shop_key } : {}) };
  if (file.direction !== 'erp-to-shop') {
    problems.push(problem(src, 'MAPPING_RULE', '`key: { surrogate, natural }` is for ERP → shop mappings (a rename of a shop record); a shop → ERP mapping keys its rows by the shop id field: `key: orders_id`', ['key']));
    return base;
  }
  if (!resource) return base;
  const renames = resource.renames;
  if (!renames) {
    problems.push(problem(src, 'MAPPING_RULE', `\`key: { surrogate, natural }\` tracks renumbered records of resources whose registry entry names their number (src/shop/resources/*.ts \`renames\`: products, manufacturers); ${resource.name} has none. Key its records by the ERP's id alone: \`key: ${surrogate}\``, ['key']));
    return base;
  }
  if (!Object.keys(file.fields).some((t) => t === renames.number)) {
    problems.push(problem(src, 'MAPPING_RULE', `\`key: { surrogate: ${surrogate}, natural: ${natural} }\`: the mapping must write ${renames.number}, the field a rename changes (\`${renames.number}: ${natural}\`)`, ['key']));
    return base;
  }
  if (file.shop_key !== undefined && file.shop_key !== renames.number) {
    problems.push(problem(src, 'MAPPING_RULE', `with \`key: { surrogate, natural }\` the shop key is ${renames.number} (the number a rename changes), not ${file.shop_key}; remove \`shop_key\` or set it to ${renames.number}`, ['shop_key']));
    return base;
  }
  const naturalOf = compileGetter(natural);
  return {
    path: surrogate,
    shopKey: renames.number,
    surrogate: {
      surrogate,
      natural,
      number: renames.number,
      naturalOf: (record) => {
        const v = naturalOf({ item: record, root: record });
        return v === undefined || v === null || v === '' ? undefined : String(v);
      },
    },
  };
}
