/**
 * `key: { surrogate, natural }` (issue 46): the ERP's stable id is the ERP key and the registry's
 * number field the shop key; the form is refused, naming the fix, where a rename cannot be.
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/mapping/compile.js';
import { missingColumns } from '../../src/mapping/columns.js';

const file = (head: string, fields = '  products_model: ARTNR\n  languages.de.products_name: Name\n  products_price: { from: Preis, type: decimal, locale: point }') =>
  `name: articles\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\n${head}\nfields:\n${fields}\n`;
const problems = (yaml: string): string => {
  try {
    compileMapping(yaml, 'articles.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the mapping compiled');
};

describe('a stable ERP id beside the number', () => {
  it('keys records by the surrogate and finds them in the shop by the registry\'s number field', () => {
    const m = compileMapping(file('key: { surrogate: ID, natural: ARTNR }'), 'articles.yaml');
    expect({ key: m.key, shopKey: m.shopKey, surrogate: m.surrogate?.surrogate, natural: m.surrogate?.natural, number: m.surrogate?.number }).toEqual({ key: 'ID', shopKey: 'products_model', surrogate: 'ID', natural: 'ARTNR', number: 'products_model' });
    expect(m.sourceKey({ ID: 17, ARTNR: 'ART-1020' })).toBe('17');
    expect(m.surrogate?.naturalOf({ ID: 17, ARTNR: 'ART-1020' })).toBe('ART-1020');
    expect(m.surrogate?.naturalOf({ ID: 17, ARTNR: '' })).toBeUndefined();
    // Both columns are read: a source without the id fails the run before anything is written.
    expect(missingColumns(m.columns, new Set(['ARTNR', 'Name', 'Preis'])).map((u) => [u.column, u.at])).toEqual([['ID', 'key.surrogate']]);
    expect(compileMapping(file('key: { surrogate: ID, natural: ARTNR }\nshop_key: products_model'), 'articles.yaml').shopKey).toBe('products_model');
  });

  it('refuses the form where no rename can be, and says what to write instead', () => {
    expect(problems(file('key: { surrogate: ID, natural: ARTNR }\nshop_key: products_ean', '  products_model: ARTNR\n  products_ean: EAN'))).toContain('with `key: { surrogate, natural }` the shop key is products_model (the number a rename changes), not products_ean');
    expect(problems(file('key: { surrogate: ID, natural: ARTNR }', '  products_ean: EAN'))).toContain('the mapping must write products_model, the field a rename changes (`products_model: ARTNR`)');
    const customers = 'name: c\ndirection: erp-to-shop\ntarget: { resource: customers, operation: upsert }\nkey: { surrogate: ID, natural: KDNR }\nfields:\n  customers_id_extern: KDNR\n';
    expect(problems(customers)).toContain('customers has none. Key its records by the ERP\'s id alone: `key: ID`');
    const pull = 'name: o\ndirection: shop-to-erp\nsource: { resource: orders }\ntarget: { erp: erp_orders }\nkey: { surrogate: orders_id, natural: orders_id }\nfields:\n  Nr: orders_id\n';
    expect(problems(pull)).toContain('is for ERP → shop mappings');
    expect(problems(file('key: { surogate: ID, natural: ARTNR }'))).toContain('key');
  });
});
