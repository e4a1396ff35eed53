/**
 * `when_empty` (docs/mappings.md "Empty values"): what an empty source value does to one field, how
 * it sits with `required`, `default`, `optional`, `null_values` and `trim`, and which fields the
 * registry lets a mapping clear.
 */
import { describe, expect, it } from 'vitest';
import { compileMapping, type CompiledMapping, type MappingContext, type MappingResult } from '../../src/mapping/index.js';
import { MappingFileError } from '../../src/mapping/problems.js';
import { clearedAlike, emptyOf, resources } from '../../src/shop/registry/index.js';

const ctx: MappingContext = { lookupReference: () => undefined };

function products(fields: string): CompiledMapping {
  return compileMapping(`name: t\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\nfields:\n  products_model: { from: ARTNR, required: true }\n${fields}`, 't.yaml');
}

function payload(result: MappingResult): Record<string, unknown> {
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.payload;
}

/** The load problems of a mapping, as `code: message`. */
function problems(fields: string): string[] {
  try {
    products(fields);
  } catch (err) {
    if (err instanceof MappingFileError) return err.problems.map((p) => `${p.code}: ${p.message}`);
    throw err;
  }
  return [];
}

const EMPTY = [undefined, null, '', '   '];

describe('when_empty on a text field', () => {
  it('clear: missing, NULL, \'\' and blanks all send the registry\'s empty value (\'\' for products_ean); a value passes as it is', () => {
    const m = products('  products_ean: { from: EAN, trim: true, when_empty: clear }\n');
    for (const v of EMPTY) expect(payload(m.applySync!({ ARTNR: 'A', EAN: v }, ctx)), `EAN ${JSON.stringify(v)}`).toEqual({ products_model: 'A', products_ean: '' });
    expect(payload(m.applySync!({ ARTNR: 'A', EAN: ' 4006381333931 ' }, ctx)).products_ean).toBe('4006381333931');
  });

  it('keep: every empty form omits the field, so the shop keeps its value', () => {
    const m = products('  products_ean: { from: EAN, when_empty: keep }\n');
    for (const v of EMPTY) expect(payload(m.applySync!({ ARTNR: 'A', EAN: v }, ctx))).toEqual({ products_model: 'A' });
  });

  it('refuse: the record fails with MAPPING_EMPTY naming the record and the field', () => {
    const m = products('  products_ean: { from: EAN, when_empty: refuse }\n');
    for (const v of EMPTY) {
      const r = m.applySync!({ ARTNR: 'A-7', EAN: v }, ctx);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.errors).toHaveLength(1);
        expect(r.errors[0]).toMatchObject({ code: 'MAPPING_EMPTY', field: 'products_ean', record: { erpKey: 'A-7', resource: 'products' } });
        expect(r.errors[0]!.message).toContain('when_empty: refuse');
      }
    }
  });

  it('clears a per-language description with \'\', and null_values count as empty', () => {
    const m = products('  languages.de.products_description: { from: Langtext, null_values: ["-"], when_empty: clear }\n');
    expect(payload(m.applySync!({ ARTNR: 'A', Langtext: '-' }, ctx))).toEqual({ products_model: 'A', languages: { de: { products_description: '' } } });
    expect(payload(m.applySync!({ ARTNR: 'A', Langtext: null }, ctx))).toEqual({ products_model: 'A', languages: { de: { products_description: '' } } });
  });

  it('without when_empty a NULL is omitted and \'\' is sent as text, as before (the default)', () => {
    const m = products('  products_ean: { from: EAN }\n');
    expect(payload(m.applySync!({ ARTNR: 'A', EAN: null }, ctx))).toEqual({ products_model: 'A' });
    expect(payload(m.applySync!({ ARTNR: 'A', EAN: '' }, ctx))).toEqual({ products_model: 'A', products_ean: '' });
  });
});

describe('when_empty with optional, required and default', () => {
  it('optional: a column the source lacks is kept even under clear or refuse; a NULL in a column it has is empty', () => {
    for (const policy of ['clear', 'refuse']) {
      const m = products(`  products_ean: { from: EAN, optional: true, when_empty: ${policy} }\n`);
      expect(payload(m.applySync!({ ARTNR: 'A' }, ctx)), policy).toEqual({ products_model: 'A' });
    }
    expect(payload(products('  products_ean: { from: EAN, optional: true, when_empty: clear }\n').applySync!({ ARTNR: 'A', EAN: null }, ctx))).toEqual({ products_model: 'A', products_ean: '' });
    expect(products('  products_ean: { from: EAN, optional: true, when_empty: refuse }\n').applySync!({ ARTNR: 'A', EAN: null }, ctx).ok).toBe(false);
  });

  it('required: true already refuses an empty value, so a when_empty beside it is refused at load', () => {
    expect(problems('  products_ean: { from: EAN, required: true, when_empty: clear }\n')).toEqual([expect.stringMatching(/^MAPPING_RULE: .*`required: true` refuses a record with an empty value, and `when_empty: clear` says to empty the shop's value; keep one/)]);
    expect(problems('  products_ean: { from: EAN, required: true, when_empty: keep }\n')).toEqual([expect.stringMatching(/keep one/)]);
    expect(problems('  products_ean: { from: EAN, required: true, when_empty: refuse }\n')).toEqual([expect.stringMatching(/say the same .*keep one/)]);
  });

  it('default fills every empty value, so a when_empty beside it is refused at load, unless a map or lookup leaves the default the unknown values', () => {
    expect(problems('  products_ean: { from: EAN, default: "", when_empty: keep }\n')).toEqual([expect.stringMatching(/`default` fills every empty value, so `when_empty: keep` would never apply/)]);
    const m = products('  products_status: { from: Status, map: { A: 1, P: 0 }, default: 0, when_empty: keep }\n');
    expect(payload(m.applySync!({ ARTNR: 'A', Status: '' }, ctx))).toEqual({ products_model: 'A' });
    expect(payload(m.applySync!({ ARTNR: 'A', Status: 'X' }, ctx))).toEqual({ products_model: 'A', products_status: 0 });
    expect(payload(m.applySync!({ ARTNR: 'A', Status: 'A' }, ctx))).toEqual({ products_model: 'A', products_status: 1 });
  });

  it('applies to scalar rules only: a list says what its emptiness means with `empty` and `when_missing`', () => {
    expect(problems('  categories: { from: WG, split: ",", item: { from: . }, when_empty: clear }\n')).toEqual([expect.stringMatching(/`when_empty` does not apply to a list rule/)]);
  });
});

describe('fields the registry does not let a mapping clear', () => {
  it('refuses clear on a price or a quantity at load: the shop stores an empty decimal as 0, and an empty cell is unknown, never 0', () => {
    for (const field of ['products_price', 'products_quantity']) {
      expect(problems(`  ${field}: { from: X, type: decimal, when_empty: clear }\n`), field).toEqual([
        expect.stringMatching(new RegExp(`^MAPPING_NOT_CLEARABLE: .*\`when_empty: clear\` on \`${field}\`: the shop stores '' and null in a decimal field as 0, and an empty cell is unknown, never 0; use \`keep\``)),
      ]);
    }
  });

  it('refuses clear on a list entry\'s decimal (a warehouse quantity, a special price) and on the status, the model and the name', () => {
    expect(problems('  storages:\n    each: Lager\n    fields:\n      storages_id: { from: Nr, type: integer }\n      products_quantity: { from: Menge, type: decimal, when_empty: clear }\n')).toEqual([expect.stringMatching(/MAPPING_NOT_CLEARABLE: .*storages\[\]\.products_quantity/)]);
    expect(problems('  specials:\n    each: Aktionen\n    fields:\n      specials_new_products_price: { from: Preis, type: decimal, when_empty: clear }\n')).toEqual([expect.stringMatching(/MAPPING_NOT_CLEARABLE: .*specials\[\]\.specials_new_products_price/)]);
    expect(problems('  products_status: { from: Aktiv, type: flag, when_empty: clear }\n')).toEqual([expect.stringMatching(/MAPPING_NOT_CLEARABLE: .*the product offline/)]);
    expect(problems('  languages.de.products_name: { from: Name, when_empty: clear }\n')).toEqual([expect.stringMatching(/MAPPING_NOT_CLEARABLE: .*empty title/)]);
  });

  it('refuses clear on a field the registry does not describe, saying where its empty value would be declared', () => {
    expect(problems('  manufacturers_id: { from: H, type: integer, when_empty: clear }\n')).toEqual([expect.stringMatching(/the registry does not say what empties `manufacturers_id` of products on the wire/)]);
  });

  it('a shop→ERP mapping clears an ERP column with NULL', () => {
    const m = compileMapping('name: t\ndirection: shop-to-erp\nsource: { resource: orders }\ntarget: { erp: erp_orders }\nkey: orders_id\nfields:\n  Nr: orders_id\n  Firma: { from: customers_company, when_empty: clear }\n', 't.yaml');
    expect(payload(m.applySync!({ orders_id: 7, customers_company: '' }, ctx))).toEqual({ Nr: 7, Firma: null });
  });

  it('keep and refuse are allowed on every field, prices and stock included', () => {
    expect(problems('  products_price: { from: P, type: decimal, when_empty: keep }\n  products_quantity: { from: Q, type: decimal, when_empty: refuse }\n')).toEqual([]);
  });
});

describe('the registry\'s empty values', () => {
  it('clears text with \'\', which the export may show as null, and has no empty value for decimals', () => {
    const p = resources.products;
    expect(emptyOf(p, 'products_ean')).toMatchObject({ clear: '' });
    expect(emptyOf(p, 'warranty_type')).toMatchObject({ clear: '', specified: true });
    expect(emptyOf(p, 'languages.en.products_short_description')).toMatchObject({ clear: '' });
    expect(emptyOf(p, 'groups[].customers_group_price')).toHaveProperty('never');
    expect(clearedAlike(p, 'products_ean', null, '')).toBe(true);
    expect(clearedAlike(p, 'products_ean', '4006381333931', '')).toBe(false);
    expect(clearedAlike(p, 'products_price', null, '')).toBe(false);
  });

  it('clears a customer\'s address line with \'\' (customers write rule 3: "an empty string clears a field") and the fax', () => {
    const m = compileMapping('name: c\ndirection: erp-to-shop\ntarget: { resource: customers, operation: update }\nkey: KdNr\nfields:\n  customers_id_extern: { from: KdNr, required: true }\n  customers_fax: { from: Fax, when_empty: clear }\n  addresses:\n    each: .\n    fields:\n      address_book_id: { from: AdrId, type: integer }\n      entry_company: { from: Firma, when_empty: clear }\n', 'c.yaml');
    expect(payload(m.applySync!({ KdNr: 'K1', Fax: null, AdrId: 4, Firma: null }, ctx))).toEqual({ customers_id_extern: 'K1', customers_fax: '', addresses: [{ address_book_id: 4, entry_company: '' }] });
    expect(emptyOf(resources.customers, 'addresses[].entry_country_id')).toHaveProperty('never');
  });
});
