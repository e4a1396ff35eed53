/**
 * JSON Schemas for editors (yaml-language-server, VS Code, IntelliJ): one for `shopsync.yaml`, one
 * for mapping files, generated from the zod schemas the loaders use, so an editor completes and
 * flags exactly what shopsync accepts. Mapping targets come from the registry: in a mapping that
 * targets `products`, an editor offers `products_ean` and flags `products_eam`.
 */
import { z } from 'zod';
import { configSchema } from '../config/schema.js';
import { shopConfigSchema } from '../config/shop.js';
import { fieldNames } from '../mapping/targets.js';
import { mappingFileSchema } from '../mapping/schema.js';
import { allResources } from '../shop/registry/index.js';

type JsonSchema = Record<string, unknown>;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A `${VAR}` placeholder: replaced before the config is checked, so it may stand where a number or boolean goes. */
const PLACEHOLDER: JsonSchema = { type: 'string', pattern: '\\$\\{[^}]+\\}' };

/** Let every number, integer, boolean and string with a minimum length also be a `${VAR}` placeholder (the config interpolates before it validates). */
function allowPlaceholders(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(allowPlaceholders);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node as JsonSchema)) out[k] = allowPlaceholders(v);
  // A string with a floor (the dashboard token's 32 characters) is often written as a shorter `${VAR}`.
  const flooredString = out.type === 'string' && typeof out.minLength === 'number' && out.minLength > 1;
  if (out.type === 'number' || out.type === 'integer' || out.type === 'boolean' || flooredString) {
    const { default: def, description, ...typed } = out;
    return { anyOf: [typed, PLACEHOLDER], ...(def !== undefined ? { default: def } : {}), ...(description !== undefined ? { description } : {}) };
  }
  return out;
}

/** The JSON Schema of `shopsync.yaml` (the input side: defaults may be left out). */
export function configJsonSchema(): JsonSchema {
  const schema = allowPlaceholders(z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
  return { ...schema, ...EXTENSIONS, title: 'shopsync.yaml', $id: 'https://shopsync.dev/schemas/shopsync.schema.json' };
}

/** Top-level `x-…` blocks hold YAML anchors for merge keys; shopsync ignores them. */
const EXTENSIONS: JsonSchema = { patternProperties: { '^x-': {} } };

/** The JSON Schema of one shop file in `shops.d/` (a shop block, optionally with its `name:`). */
export function shopFileJsonSchema(): JsonSchema {
  const schema = allowPlaceholders(z.toJSONSchema(shopConfigSchema, { io: 'input', unrepresentable: 'any' })) as JsonSchema & { properties: Record<string, JsonSchema> };
  return {
    ...schema,
    ...EXTENSIONS,
    properties: { name: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$', description: 'The shop name. @default the file name without .yaml' }, ...schema.properties },
    title: 'shopsync shop file (shops.d/<name>.yaml)',
    $id: 'https://shopsync.dev/schemas/shop.schema.json',
  };
}

/** The JSON Schema of a mapping file, with the registry's target fields per resource. */
export function mappingJsonSchema(): JsonSchema {
  const base = z.toJSONSchema(mappingFileSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { properties: Record<string, JsonSchema> };
  const rule = base.properties.fields?.additionalProperties ?? {};
  const perResource = allResources.map((r) => {
    const names = fieldNames(r.schemas.write);
    return {
      if: { required: ['direction', 'target'], properties: { direction: { const: 'erp-to-shop' }, target: { required: ['resource'], properties: { resource: { const: r.name } } } } },
      then: {
        properties: {
          fields: {
            // Completion for the top-level fields; deeper paths (languages.de.products_name) start with one of them.
            properties: Object.fromEntries(names.map((n) => [n, rule])),
            propertyNames: { pattern: `^(${names.map(escapeRegex).join('|')})([.\\[].*)?$` },
          },
        },
      },
    };
  });
  return {
    ...base,
    title: 'shopsync mapping file',
    $id: 'https://shopsync.dev/schemas/mapping.schema.json',
    properties: { ...base.properties, target: withResourceEnum(base.properties.target) },
    allOf: perResource,
  };
}

/** The target's `resource` offered from the registry. */
function withResourceEnum(target: JsonSchema | undefined): JsonSchema {
  const names = allResources.map((r) => r.name);
  const patch = (s: JsonSchema): JsonSchema => {
    const props = s.properties as Record<string, JsonSchema> | undefined;
    return props?.resource ? { ...s, properties: { ...props, resource: { ...props.resource, enum: names } } } : s;
  };
  if (!target) return {};
  const anyOf = target.anyOf as JsonSchema[] | undefined;
  return anyOf ? { ...target, anyOf: anyOf.map(patch) } : patch(target);
}
