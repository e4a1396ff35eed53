/**
 * Editor schemas: generated from the loaders' zod schemas, current in the repository, named at the
 * top of every shipped YAML file, and every shipped YAML file validates against them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, mappingJsonSchema, shopFileJsonSchema } from '../../src/schemas/index.js';

const root = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateMapping = ajv.compile(mappingJsonSchema());
const validateConfig = ajv.compile(configJsonSchema());
const mappings = readdirSync(join(root, 'mappings')).filter((f) => f.endsWith('.yaml'));

describe('editor schemas', () => {
  it('are current in schemas/ (regenerate with npm run schemas)', () => {
    expect(JSON.parse(read('schemas/mapping.schema.json'))).toEqual(JSON.parse(JSON.stringify(mappingJsonSchema())));
    expect(JSON.parse(read('schemas/shopsync.schema.json'))).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
    expect(JSON.parse(read('schemas/shop.schema.json'))).toEqual(JSON.parse(JSON.stringify(shopFileJsonSchema())));
  });

  it('examples/agency: the config and every shop file name their schemas and validate against them', () => {
    const validateShop = ajv.compile(shopFileJsonSchema());
    const config = read('examples/agency/shopsync.yaml');
    expect(config.split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/shopsync.schema.json');
    expect(validateConfig(parse(config, { merge: true })), JSON.stringify(validateConfig.errors)).toBe(true);
    const shops = readdirSync(join(root, 'examples/agency/shops.d'));
    expect(shops.length).toBe(3);
    for (const file of shops) {
      const text = read(`examples/agency/shops.d/${file}`);
      expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../../../schemas/shop.schema.json');
      expect(validateShop(parse(text)), `${file}: ${JSON.stringify(validateShop.errors)}`).toBe(true);
    }
  });

  it.each(mappings)('mappings/%s names the mapping schema and validates against it', (file) => {
    const text = read(`mappings/${file}`);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/mapping.schema.json');
    const ok = validateMapping(parse(text));
    expect(ok, JSON.stringify(validateMapping.errors)).toBe(true);
  });

  it('shopsync.example.yaml names the config schema and validates against it', () => {
    const text = read('shopsync.example.yaml');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./schemas/shopsync.schema.json');
    const ok = validateConfig(parse(text));
    expect(ok, JSON.stringify(validateConfig.errors)).toBe(true);
  });

  it('takes the dashboard token as a placeholder shorter than its 32-character floor, and flags a short literal one', () => {
    const withToken = (token: string) => ({ shop: { baseUrl: 'https://shop.example/api', token: 't' }, dashboard: { token } });
    expect(validateConfig(withToken('${DASHBOARD_TOKEN}')), JSON.stringify(validateConfig.errors)).toBe(true);
    expect(validateConfig(withToken('x'.repeat(32)))).toBe(true);
    expect(validateConfig(withToken('short-token'))).toBe(false);
  });

  it('flags a target field the resource does not have, and accepts its deeper paths', () => {
    const mapping = (field: string) => ({ name: 'm', direction: 'erp-to-shop', target: { resource: 'products', operation: 'upsert' }, key: 'sku', fields: { [field]: 'x' } });
    expect(validateMapping(mapping('products_ean'))).toBe(true);
    expect(validateMapping(mapping('languages.de.products_name'))).toBe(true);
    expect(validateMapping(mapping('products_eam'))).toBe(false);
    expect(validateMapping({ ...mapping('products_ean'), target: { resource: 'prodcts', operation: 'upsert' } })).toBe(false);
  });
});
