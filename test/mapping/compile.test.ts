import { describe, expect, it } from 'vitest';
import { compileMapping, type CompiledMapping, type MappingContext, type MappingResult } from '../../src/mapping/index.js';

const refs: Record<string, Record<string, number>> = { manufacturers: { 'H-001': 7 }, categories: { 'WG-1': 11, 'WG-2': 12 } };
const ctx: MappingContext = { lookupReference: (resource, key) => refs[resource]?.[key] };

function products(fields: string, head = ''): CompiledMapping {
  return compileMapping(`name: t\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\n${head}fields:\n${fields}`, 't.yaml');
}

function ok(result: MappingResult): Record<string, unknown> {
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.payload;
}

describe('compiling and applying a mapping', () => {
  it('reads dot paths into nested rows and writes nested targets', () => {
    const m = products('  products_model: Artikel.Nummer\n  languages.de.products_name: Artikel.Texte.de\n  languages.en.products_name: Artikel.Texte.en\n');
    expect(ok(m.applySync!({ Artikel: { Nummer: 'A-1', Texte: { de: 'Tisch', en: 'Table' } } }, ctx))).toEqual({
      products_model: 'A-1',
      languages: { de: { products_name: 'Tisch' }, en: { products_name: 'Table' } },
    });
  });

  it('uses constants, and defaults only when the source has no value', () => {
    const m = products('  products_model: ARTNR\n  products_status: { value: 1 }\n  products_ean: { from: EAN, default: "none" }\n');
    expect(ok(m.applySync!({ ARTNR: 'A' }, ctx))).toEqual({ products_model: 'A', products_status: 1, products_ean: 'none' });
    expect(ok(m.applySync!({ ARTNR: 'A', EAN: '4006' }, ctx)).products_ean).toBe('4006');
  });

  it('omits a field whose source is missing, so the shop keeps its value', () => {
    const m = products('  products_model: ARTNR\n  products_price: { from: VK, type: decimal, locale: de }\n');
    expect(ok(m.applySync!({ ARTNR: 'A', VK: '' }, ctx))).toEqual({ products_model: 'A' });
  });

  it('refuses a record that lacks a required value', () => {
    const m = products('  products_model: { from: ARTNR, required: true }\n');
    const r = m.applySync!({}, ctx);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ code: 'MAPPING_REQUIRED', field: 'products_model' });
  });

  it('coerces decimals with a declared locale to point notation', () => {
    const m = products('  products_price: { from: P, type: decimal }\n  products_weight: { from: W, type: decimal }\n', 'locale: de\n');
    expect(ok(m.applySync!({ P: '1.234,50', W: '50,5' }, ctx))).toEqual({ products_price: '1234.50', products_weight: '50.5' });
    expect(ok(m.applySync!({ P: 12.5, W: '7' }, ctx))).toEqual({ products_price: '12.5', products_weight: '7' });
  });

  it('coerces integers, booleans with explicit values, and flags', () => {
    const m = compileMapping(
      'name: t\ndirection: erp-to-shop\ntarget: { resource: customers, operation: upsert }\nkey: K\nfields:\n  customers_group_id: { from: G, type: integer }\n  addresses:\n    each: .\n    fields:\n      entry_city: Ort\n      _set_default: { from: Std, type: boolean, true: [J], false: [N] }\n',
      'c.yaml',
    );
    expect(ok(m.applySync!({ G: ' 3 ', Ort: 'Kiel', Std: 'J' }, ctx))).toEqual({ customers_group_id: 3, addresses: [{ entry_city: 'Kiel', _set_default: true }] });
    const bad = m.applySync!({ G: '3', Ort: 'Kiel', Std: 'ja' }, ctx);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]).toMatchObject({ code: 'MAPPING_BOOLEAN', field: 'addresses[0]._set_default', sourceValue: 'ja' });
  });

  it('converts dates and datetimes from an input format and zone to the shop format in the shop zone', () => {
    const m = compileMapping(
      'name: t\ndirection: erp-to-shop\ntarget: { resource: orders, operation: update }\nkey: N\nshop_timezone: Europe/Berlin\nfields:\n  orders_id: { value: 5 }\n  date_purchased: { from: D, type: datetime, format: iso }\n',
      'o.yaml',
    );
    // 10:30 UTC in summer is 12:30 in Berlin; in winter 11:30.
    expect(ok(m.applySync!({ D: '2026-07-01T10:30:00Z' }, ctx)).date_purchased).toBe('2026-07-01 12:30:00');
    expect(ok(m.applySync!({ D: '2026-01-15T10:30:00Z' }, ctx)).date_purchased).toBe('2026-01-15 11:30:00');
    const local = compileMapping(
      'name: t\ndirection: erp-to-shop\ntarget: { resource: contracts, operation: upsert }\nkey: N\nfields:\n  contracts_date_start: { from: B, type: date, format: DD.MM.YYYY }\n',
      'c.yaml',
    );
    expect(ok(local.applySync!({ B: '31.12.2026' }, ctx))).toEqual({ contracts_date_start: '2026-12-31' });
    const r = local.applySync!({ B: '31.02.2026' }, ctx);
    expect(r.ok ? null : r.errors[0].code).toBe('MAPPING_DATE');
  });

  it('converts a datetime between zones', () => {
    const m = compileMapping(
      'name: t\ndirection: erp-to-shop\ntarget: { resource: orders, operation: update }\nkey: N\nfields:\n  orders_id: { value: 5 }\n  date_purchased: { from: D, type: datetime, format: "DD.MM.YYYY HH:mm", timezone: America/New_York }\n',
      'o.yaml',
    );
    expect(ok(m.applySync!({ D: '01.07.2026 08:00' }, ctx)).date_purchased).toBe('2026-07-01 14:00:00');
  });

  it('trims, changes case and truncates only where the mapping says so, with a warning', () => {
    const m = products('  products_model: { from: A, trim: true, case: upper }\n  languages.de.products_name: { from: N, truncate: 5 }\n');
    const r = m.applySync!({ A: '  demo-1 ', N: 'Studiokopfhörer' }, ctx);
    expect(ok(r)).toEqual({ products_model: 'DEMO-1', languages: { de: { products_name: 'Studi' } } });
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'TRUNCATED', field: 'languages.de.products_name' })]);
  });

  it('maps enum values and refuses an unmapped value unless a default is given', () => {
    const m = products('  products_status: { from: S, map: { aktiv: 1, inaktiv: 0 } }\n  products_sort_order: { from: T, map: { A: 1 }, default: 99 }\n');
    expect(ok(m.applySync!({ S: 'aktiv', T: 'X' }, ctx))).toEqual({ products_status: 1, products_sort_order: 99 });
    const r = m.applySync!({ S: 'gesperrt' }, ctx);
    expect(r.ok ? null : r.errors[0]).toMatchObject({ code: 'MAPPING_UNMAPPED', field: 'products_status', sourceValue: 'gesperrt' });
  });

  it('applies a field only when its condition holds', () => {
    const m = products('  products_model: ARTNR\n  products_price: { from: P, type: decimal, when: { from: Typ, in: [A, B] } }\n');
    expect(ok(m.applySync!({ ARTNR: 'x', P: '5', Typ: 'A' }, ctx))).toEqual({ products_model: 'x', products_price: '5' });
    expect(ok(m.applySync!({ ARTNR: 'x', P: '5', Typ: 'C' }, ctx))).toEqual({ products_model: 'x' });
  });

  it('fills templates from source paths', () => {
    const m = products('  languages.de.products_name: { template: "{Marke} {Name}", trim: true }\n');
    expect(ok(m.applySync!({ Marke: 'Nordwerk', Name: 'Hammer' }, ctx))).toEqual({ languages: { de: { products_name: 'Nordwerk Hammer' } } });
    expect(ok(m.applySync!({ Name: 'Hammer' }, ctx))).toEqual({ languages: { de: { products_name: 'Hammer' } } });
  });

  it('looks up shop ids through external references and static tables', () => {
    const m = products('  manufacturers_id: { from: H, lookup: { reference: manufacturers } }\n  shipping_profile: { from: V, lookup: { table: profile } }\n', 'tables:\n  profile: { paket: 2, spedition: 5 }\n');
    expect(ok(m.applySync!({ H: 'H-001', V: 'spedition' }, ctx))).toEqual({ manufacturers_id: 7, shipping_profile: 5 });
    const r = m.applySync!({ H: 'H-404', V: 'paket' }, ctx);
    expect(r.ok ? null : r.errors[0]).toMatchObject({ code: 'MAPPING_LOOKUP', field: 'manufacturers_id', sourceValue: 'H-404' });
  });

  it('builds lists from split strings, nested arrays and grouped child rows with price steps', () => {
    const m = products(
      [
        '  categories: { from: WG, split: ",", item: { from: ., lookup: { reference: categories } } }',
        '  groups:',
        '    each: Preise',
        '    group_by: Gruppe',
        '    sort_by: Ab',
        '    fields:',
        '      customers_group_id: { from: Gruppe, type: integer }',
        '      customers_group_price: { from: Preis, type: decimal }',
        '    steps:',
        '      max: 2',
        '      fields:',
        '        "products_price{n}": { from: Preis, type: decimal }',
        '        "products_price{n}_qty": { from: Ab, type: integer }',
        '',
      ].join('\n'),
      'locale: de\n',
    );
    const rows = [
      { Gruppe: '3', Ab: '10', Preis: '8,00' },
      { Gruppe: '3', Ab: '1', Preis: '9,00' },
      { Gruppe: '4', Ab: '1', Preis: '7,50' },
      { Gruppe: '3', Ab: '50', Preis: '7,00' },
      { Gruppe: '3', Ab: '100', Preis: '6,00' },
    ];
    const r = m.applySync!({ WG: 'WG-1, WG-2', Preise: rows }, ctx);
    expect(ok(r)).toEqual({
      categories: [11, 12],
      groups: [
        { customers_group_id: 3, customers_group_price: '9.00', products_price1: '8.00', products_price1_qty: 10, products_price2: '7.00', products_price2_qty: 50 },
        { customers_group_id: 4, customers_group_price: '7.50' },
      ],
    });
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'STEPS_DROPPED', field: 'groups[0]' })]);
  });

  it('filters list entries with where and reads the whole record through $root', () => {
    const m = compileMapping(
      'name: t\ndirection: erp-to-shop\ntarget: { resource: orders, operation: create }\nkey: B\nfields:\n  tax_flag: { value: 0 }\n  external_reference: { fields: { source: { value: phone }, external_id: B } }\n  products:\n    each: Pos\n    where: { from: Menge, not_equals: "0" }\n    fields:\n      products_model: Art\n      quantity: { from: Menge, type: decimal }\n      products_name: { template: "{$root.B}/{$index}" }\n',
      'o.yaml',
    );
    const p = ok(m.applySync!({ B: 'AB-1', Pos: [{ Art: 'X', Menge: '2' }, { Art: 'Y', Menge: '0' }, { Art: 'Z', Menge: '1' }] }, ctx));
    expect(p.products).toEqual([
      { products_model: 'X', quantity: '2', products_name: 'AB-1/1' },
      { products_model: 'Z', quantity: '1', products_name: 'AB-1/2' },
    ]);
    expect(p.external_reference).toEqual({ source: 'phone', external_id: 'AB-1' });
  });

  it('evaluates JSONata expressions asynchronously and only for mappings that use them', async () => {
    const plain = products('  products_model: ARTNR\n');
    expect(plain.usesExpressions).toBe(false);
    expect(plain.applySync).toBeTypeOf('function');
    const m = products('  products_model: ARTNR\n  products_price: { expr: "$sum(Preise.Wert) / $count(Preise)", type: decimal }\n  manufacturers_id: { expr: "$reference(\'manufacturers\', Hersteller)" }\n');
    expect(m.usesExpressions).toBe(true);
    expect(m.applySync).toBeUndefined();
    const r = await m.apply({ ARTNR: 'A', Hersteller: 'H-001', Preise: [{ Wert: 10 }, { Wert: 11 }] }, ctx);
    expect(ok(r)).toEqual({ products_model: 'A', products_price: '10.5', manufacturers_id: 7 });
  });

  it('evaluates an expression per list entry', async () => {
    const m = products('  groups:\n    each: G\n    fields:\n      customers_group_id: { expr: "id * 1" }\n      customers_group_price: { expr: "$string(p * 2)" }\n');
    const r = await m.apply({ G: [{ id: 3, p: 1.5 }, { id: 4, p: 2 }] }, ctx);
    expect(ok(r).groups).toEqual([
      { customers_group_id: 3, customers_group_price: '3' },
      { customers_group_id: 4, customers_group_price: '4' },
    ]);
  });

  it('produces ERP rows with child arrays for shop-to-erp mappings', async () => {
    const m = compileMapping(
      'name: t\ndirection: shop-to-erp\nsource: { resource: orders }\ntarget: { erp: erp_orders, required: [Nr] }\nkey: orders_id\nfields:\n  Nr: orders_id\n  Datum: { from: date_purchased, type: datetime, output_format: "DD.MM.YYYY HH:mm:ss" }\n  Pos:\n    each: products\n    fields:\n      Nr: $root.orders_id\n      Menge: { from: quantity, type: decimal, locale: point }\n',
      'e.yaml',
    );
    expect(m.erpTarget).toBe('erp_orders');
    expect(ok(await m.apply({ orders_id: 9, date_purchased: '2026-03-01 10:00:00', products: [{ quantity: 2 }] }, ctx))).toEqual({
      Nr: 9,
      Datum: '01.03.2026 10:00:00',
      Pos: [{ Nr: 9, Menge: '2' }],
    });
    const r = m.applySync!({ date_purchased: '2026-03-01 10:00:00' }, ctx);
    expect(r.ok ? null : r.errors[0]).toMatchObject({ code: 'MAPPING_REQUIRED', field: 'Nr' });
  });
});

describe('file-level features', () => {
  it('treats declared null values as missing and builds a one-entry list from a flat row', () => {
    const m = products('  products_model: ARTNR\n  products_date_available: { from: Ab, type: date, format: DD.MM.YYYY, null_values: ["00.00.0000"] }\n  storages:\n    each: .\n    fields:\n      storages_id: { from: Lager, type: integer }\n      products_quantity: { from: Menge, type: decimal }\n      products_safe_quantity: { value: 0 }\n', 'locale: de\n');
    expect(ok(m.applySync!({ ARTNR: 'A', Ab: '00.00.0000', Lager: '1', Menge: '3,5' }, ctx))).toEqual({
      products_model: 'A',
      storages: [{ storages_id: 1, products_quantity: '3.5', products_safe_quantity: 0 }],
    });
  });

  it('exposes key, shop key, operation and create-only fields to the pipeline', () => {
    const m = compileMapping(
      'name: kunden\ndirection: erp-to-shop\ntarget: { resource: customers, operation: upsert }\nkey: KDNR\nshop_key: customers_id_extern\ncreate_only: [addresses]\nfields:\n  customers_id_extern: KDNR\n  addresses: { each: ., fields: { entry_city: Ort } }\n',
      'k.yaml',
    );
    expect(m).toMatchObject({ name: 'kunden', key: 'KDNR', shopKey: 'customers_id_extern', operation: 'upsert', resource: 'customers', direction: 'erp-to-shop', createOnly: ['addresses'] });
  });

  it('names the record in every error', () => {
    const m = products('  products_model: ARTNR\n  products_price: { from: P, type: decimal }\n');
    const r = m.applySync!({ ARTNR: 'DEMO-9', P: '5,5' }, ctx);
    expect(r.ok ? null : r.errors[0].record).toEqual({ erpKey: 'DEMO-9', resource: 'products' });
  });
});

describe('expressions over plain list items', () => {
  it('evaluates an expression for equal items at different positions separately', async () => {
    const m = products('  categories:\n    from: WG\n    split: ","\n    item: { expr: "$number($) * 10 + $index" }\n');
    const r = await m.apply({ WG: '1,1,2' }, ctx);
    expect(ok(r).categories).toEqual([11, 12, 23]);
  });
});

describe('the cost of expressions', () => {
  it('computes fields without an expression once, even when other fields wait for JSONata', async () => {
    const calls: string[] = [];
    const counting: MappingContext = { lookupReference: (resource, key) => (calls.push(`${resource}:${key}`), 7) };
    const m = products('  manufacturers_id: { from: H, lookup: { reference: manufacturers } }\n  products_sort_order: { expr: "$count(Preise)" }\n');
    const r = await m.apply({ H: 'H-001', Preise: [1, 2, 3] }, counting);
    expect(ok(r)).toEqual({ manufacturers_id: 7, products_sort_order: 3 });
    expect(calls).toEqual(['manufacturers:H-001']);
  });
});

describe('record identity', () => {
  const yaml = (rowKey: string) => `name: t\ndirection: erp-to-shop\ntarget: { resource: products, operation: update }\nkey: ARTNR\nshop_key: products_model\n${rowKey}fields:\n  products_model: ARTNR\n`;

  it('tells apart rows of one ERP key by row_key, and reads the ERP key of a record from key', () => {
    const m = compileMapping(yaml('row_key: [Lager]\n'), 'rows.yaml');
    expect(m.recordKey?.('ART-1', { ARTNR: 'ART-1', Lager: '2' })).toBe('ART-1 [2]');
    expect(m.sourceKey({ ARTNR: 'ART-1', Lager: '2' })).toBe('ART-1');
    expect(m.sourceKey({ ARTNR: '' })).toBeUndefined();
  });

  it('has no record key of its own without row_key (the ERP key is the identity)', () => {
    expect(compileMapping(yaml(''), 'plain.yaml').recordKey).toBeUndefined();
  });
});
