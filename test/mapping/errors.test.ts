import { describe, expect, it } from 'vitest';
import { MappingError } from '../../src/errors.js';
import { compileMapping, MappingFileError } from '../../src/mapping/index.js';

function problemsOf(yaml: string): MappingError[] {
  try {
    compileMapping(yaml, 'bad.yaml');
  } catch (err) {
    if (err instanceof MappingFileError) return [...err.problems];
    if (err instanceof MappingError) return [err];
    throw err;
  }
  throw new Error('expected the mapping to be refused');
}

const head = 'name: t\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\nfields:\n';

describe('errors in mapping files', () => {
  it('names file, line and column of a misspelt target field and suggests the nearest valid name', () => {
    const [p] = problemsOf(`${head}  products_model: ARTNR\n  products_modle: ARTNR\n`);
    expect(p).toMatchObject({ code: 'MAPPING_UNKNOWN_FIELD', file: 'bad.yaml', line: 7, column: 3 });
    expect(p.message).toMatchInlineSnapshot(`"bad.yaml:7:3: target \`products_modle\`: unknown field \`products_modle\` of products; did you mean \`products_model\`? (the shop would silently ignore it)"`);
  });

  it('checks nested targets inside language blocks and list entries', () => {
    const problems = problemsOf(`${head}  languages.de.products_nam: X\n  groups:\n    each: P\n    fields:\n      customers_group_prize: Y\n`);
    expect(problems.map((p) => [p.line, p.message.includes('did you mean `products_name`') || p.message.includes('did you mean `customers_group_price`')])).toEqual([
      [6, true],
      [10, true],
    ]);
  });

  it('refuses a language key that is not a language code', () => {
    const [p] = problemsOf(`${head}  languages.deutsch.products_name: X\n`);
    expect(p.code).toBe('MAPPING_UNKNOWN_FIELD');
    expect(p.message).toContain('language code');
  });

  it('suggests the right rule key for a misspelt one', () => {
    const [p] = problemsOf(`${head}  products_model: { from: ARTNR, defualt: x }\n`);
    expect(p).toMatchObject({ code: 'MAPPING_SCHEMA', line: 6 });
    expect(p.message).toContain('did you mean `default`?');
  });

  it('reports a wrong value with what was expected and what came', () => {
    const [p] = problemsOf(`${head}  products_price: { from: P, type: decimals }\n`);
    expect(p.line).toBe(6);
    expect(p.message).toContain('expected a type');
    expect(p.message).toContain('"decimals"');
  });

  it('suggests the nearest resource for an unknown one', () => {
    const [p] = problemsOf('name: t\ndirection: erp-to-shop\ntarget: { resource: product, operation: upsert }\nkey: A\nfields:\n  x: A\n');
    expect(p).toMatchObject({ code: 'MAPPING_UNKNOWN_RESOURCE', line: 3 });
    expect(p.message).toContain('did you mean `products`?');
  });

  it('points at YAML syntax errors', () => {
    const [p] = problemsOf('name: t\nfields:\n  a: [1, 2\n');
    expect(p.code).toBe('MAPPING_YAML');
    expect(p.line).toBeGreaterThan(1);
  });

  it('refuses an invalid JSONata expression at load, with its position', () => {
    const [p] = problemsOf(`${head}  products_price: { expr: "Preis +" }\n`);
    expect(p).toMatchObject({ code: 'MAPPING_EXPR', line: 6 });
  });

  it('refuses an unknown lookup table and a list rule on a scalar target', () => {
    const problems = problemsOf(`${head}  shipping_profile: { from: V, lookup: { table: nope } }\n  products_ean: { each: X }\n`);
    expect(problems.map((p) => p.code).sort()).toEqual(['MAPPING_NOT_A_LIST', 'MAPPING_RULE']);
  });

  it('reports every problem of a file at once', () => {
    const problems = problemsOf(`${head}  products_modle: A\n  products_prise: B\n  manufacturer_id: C\n`);
    expect(problems.map((p) => p.line)).toEqual([6, 7, 8]);
    expect(problems[2].message).toContain('did you mean `manufacturers_id`?');
  });
});

describe('output validation', () => {
  it('names field, source value and rule when a produced payload breaks the write schema', () => {
    const m = compileMapping(`${head}  products_model: ARTNR\n  manufacturers_id: { from: H }\n`, 'v.yaml');
    const r = m.applySync!({ ARTNR: 'A-1', H: 'H-001' }, { lookupReference: () => undefined });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'MAPPING_OUTPUT_INVALID', field: 'manufacturers_id', sourceValue: 'H-001', rule: 'from: H', line: 7, record: { erpKey: 'A-1', resource: 'products' } });
    expect(r.errors[0].message).toContain('v.yaml:7');
  });

  it('refuses an unknown field produced by an expression before anything is sent', async () => {
    const m = compileMapping(`${head}  languages: { expr: "{'de': {'products_nmae': Name}}" }\n`, 'v.yaml');
    const r = await m.apply({ Name: 'X' }, { lookupReference: () => undefined });
    expect(r.ok ? null : r.errors.map((e) => [e.code, e.field])).toEqual([['MAPPING_OUTPUT_INVALID', 'languages.de.products_nmae']]);
  });
});

describe('rule keys that would be ignored', () => {
  it('refuses a value key on a list rule and points to item', () => {
    const [p] = problemsOf(`${head}  categories: { from: WG, split: ",", lookup: { reference: categories } }\n`);
    expect(p).toMatchObject({ code: 'MAPPING_RULE', line: 6 });
    expect(p.message).toContain('`lookup` does not apply to a list rule');
    expect(p.message).toContain('item:');
  });

  it('refuses list keys on a plain field', () => {
    const [p] = problemsOf(`${head}  products_model: { from: A, empty: clear }\n`);
    expect(p.message).toContain('`empty` does not apply to a scalar rule');
  });
});

describe('rules of the wrong shape', () => {
  it('says what a rule may be when it is neither a path nor an object', () => {
    const [p] = problemsOf(`${head}  products_model: 123\n`);
    expect(p.line).toBe(6);
    expect(p.message).toContain('expected a source path (text) or a rule object');
    expect(p.message).toContain('(got 123)');
  });
});
