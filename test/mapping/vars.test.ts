/**
 * Shop variables in a mapping file: one file serves every shop, each pipeline filling in its own
 * shop's values (`${shop.priceColumn}`, a category map for `tables:`, `$shop` in JSONata).
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/mapping/index.js';
import { MappingFileError } from '../../src/mapping/problems.js';

const FILE = `name: products-per-shop
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: artnr
shop_key: products_model
tables:
  categories: \${shop.categoryMap}
fields:
  products_model: { from: artnr, required: true }
  products_price:
    from: \${shop.priceColumn}
    type: decimal
  languages.\${shop.language}.products_name:
    from: name
  products_weight:
    expr: "$shop.weightFactor * gewicht"
  products_status:
    from: warengruppe
    lookup: { table: categories }
`;

const ctx = { lookupReference: () => undefined };
const record = { artnr: 'A-1', name: 'Hammer', vk_de: '10.00', vk_at: '11.50', gewicht: 2, warengruppe: 'WG1' };
const de = { name: 'de', priceColumn: 'vk_de', language: 'de', weightFactor: 1, categoryMap: { WG1: 1 } };
const at = { name: 'at', priceColumn: 'vk_at', language: 'en', weightFactor: 1.5, categoryMap: { WG1: 0 } };

describe('shop variables in a mapping file', () => {
  it("fills each pipeline's shop variables into sources, target keys, tables and expressions", async () => {
    const [forDe, forAt] = [compileMapping(FILE, 'products.yaml', { vars: de }), compileMapping(FILE, 'products.yaml', { vars: at })];
    expect(await forDe.apply(record, ctx)).toMatchObject({ ok: true, payload: { products_price: '10.00', languages: { de: { products_name: 'Hammer' } }, products_weight: 2, products_status: 1 } });
    expect(await forAt.apply(record, ctx)).toMatchObject({ ok: true, payload: { products_price: '11.50', languages: { en: { products_name: 'Hammer' } }, products_weight: 3, products_status: 0 } });
  });

  it("gives each shop's compiled file its own fingerprint, and leaves files without variables as they were", () => {
    const plain = 'name: p\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: artnr\nshop_key: products_model\nfields:\n  products_model: { from: artnr }\n';
    expect(compileMapping(FILE, 'p.yaml', { vars: de }).fingerprint).not.toBe(compileMapping(FILE, 'p.yaml', { vars: at }).fingerprint);
    expect(compileMapping(plain, 'p.yaml', { vars: de }).fingerprint).toBe(compileMapping(plain, 'p.yaml').fingerprint);
  });

  it('refuses a variable the shop does not define, naming the file, the line and the variables it has', () => {
    let err: unknown;
    try {
      compileMapping(FILE, 'products.yaml', { vars: { ...de, priceColumn: undefined } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MappingFileError);
    const problem = (err as MappingFileError).problems[0]!;
    expect(problem).toMatchObject({ code: 'MAPPING_VAR', line: 11 });
    expect(problem.message).toMatch(/`\$\{shop\.priceColumn\}`: the pipeline's shop has no variable `priceColumn`; add it under the shop's `vars:` \(known: .*\$\{shop\.language\}/);
  });
});
