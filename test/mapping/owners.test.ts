/** `owner: erp | shop | guard` on a rule (issue 46): the compiled table of fields that are not the ERP's, and where an owner cannot go. */
import { describe, expect, it } from 'vitest';
import { compileMapping, type CompiledMapping } from '../../src/mapping/index.js';
import { MappingFileError } from '../../src/mapping/problems.js';

function products(fields: string, head = 'target: { resource: products, operation: upsert }\nkey: ARTNR\nshop_key: products_model'): CompiledMapping {
  const model = fields.includes('products_model:') ? '' : '  products_model: ARTNR\n';
  return compileMapping(`name: t\ndirection: erp-to-shop\n${head}\nfields:\n${model}${fields}`, 't.yaml');
}

function problems(build: () => unknown): string[] {
  try {
    build();
  } catch (err) {
    if (err instanceof MappingFileError) return err.problems.map((p) => `${p.code} ${p.message}`);
    throw err;
  }
  return [];
}

describe('who owns a field', () => {
  it('lists the shop-owned and the guarded fields by target path, top-level and in a language block, written dotted or nested', () => {
    const m = products(
      [
        '  products_price: { from: Preis, type: decimal, owner: guard }',
        '  products_ean: { from: EAN, owner: shop }',
        '  languages.de.products_description: { from: Langtext, owner: guard }',
        '  languages:',
        '    fields:',
        '      en:',
        '        fields:',
        '          products_name: { from: Name_en, owner: shop }',
        '  products_weight: { from: Gewicht, owner: erp }',
        '',
      ].join('\n'),
    );
    expect(m.owners).toEqual({ shop: ['products_ean', 'languages.en.products_name'], guard: ['products_price', 'languages.de.products_description'] });
  });

  it('has no table when every field is the ERP\'s, `owner: erp` written out included', () => {
    expect(products('  products_price: { from: Preis, owner: erp }\n').owners).toBeUndefined();
  });

  it('takes a whole language block or a list as shop-owned', () => {
    const m = products('  languages.en: { fields: { products_name: Name_en } , owner: shop }\n  categories: { from: WG, split: ",", item: { from: ., lookup: { reference: categories } }, owner: shop }\n');
    expect(m.owners?.shop).toEqual(['languages.en', 'categories']);
  });

  it('refuses an owner where leaving the field out of an update would change its siblings, or where it has no meaning, saying why', () => {
    const found = problems(() =>
      products(
        [
          '  products_model: { from: ARTNR, owner: guard }',
          '  products_quantity: { from: Bestand, type: decimal, owner: shop }',
          '  categories: { from: WG, split: ",", item: { from: ., lookup: { reference: categories } }, owner: guard }',
          '  groups:',
          '    each: Preise',
          '    fields:',
          '      customers_group_id: { from: Gruppe, type: integer }',
          '      customers_group_price: { from: Preis, type: decimal, owner: guard }',
          '',
        ].join('\n'),
      ),
    );
    expect(found).toEqual([
      expect.stringMatching(/^MAPPING_OWNER t\.yaml:\d+:\d+: `products_model` is how shopsync finds the record in the shop on update/),
      expect.stringContaining('`products_quantity` is stock'),
      expect.stringContaining('`owner: guard` compares one value with the shop\'s; `categories` is a list: use `owner: shop`'),
      expect.stringContaining('`groups[].customers_group_price` is a field of a list entry'),
    ]);
  });

  it('refuses an owner on a create-only mapping, a shop→erp mapping and a guard beside row_key', () => {
    expect(problems(() => products('  products_price: { from: P, owner: guard }\n', 'target: { resource: products, operation: create }\nkey: ARTNR'))).toEqual([expect.stringContaining('a mapping that only creates never updates a record')]);
    const pull = 'name: t\ndirection: shop-to-erp\nsource: { resource: orders }\ntarget: { erp: erp_orders }\nkey: orders_id\nfields:\n  Nr: { from: orders_id, owner: shop }\n';
    expect(problems(() => compileMapping(pull, 't.yaml'))).toEqual([expect.stringContaining('a shop→erp mapping writes ERP rows')]);
    expect(problems(() => products('  products_price: { from: P, owner: guard }\n', 'target: { resource: products, operation: update }\nkey: ARTNR\nshop_key: products_model\nrow_key: [Lager]'))).toEqual([expect.stringContaining('declares `row_key`')]);
    expect(products('  products_price: { from: P, owner: shop }\n', 'target: { resource: products, operation: update }\nkey: ARTNR\nshop_key: products_model\nrow_key: [Lager]').owners?.shop).toEqual(['products_price']);
  });

  it('refuses an owner inside a plain nested object and an unknown owner word', () => {
    const orders = 'name: t\ndirection: erp-to-shop\ntarget: { resource: orders, operation: upsert }\nkey: Nr\nfields:\n  tax_flag: { value: 0 }\n  external_reference:\n    fields:\n      source: { value: phone }\n      external_id: { from: Nr, owner: guard }\n';
    expect(problems(() => compileMapping(orders, 't.yaml'))).toEqual([expect.stringContaining('`external_reference.external_id` is inside the object `external_reference`, which an update writes as a whole')]);
    expect(problems(() => products('  products_price: { from: P, owner: content-team }\n'))).toEqual([expect.stringContaining('expected owner: erp (updates overwrite the shop), shop (sent on create only) or guard')]);
  });
});
