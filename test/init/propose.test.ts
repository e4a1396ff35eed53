import { describe, expect, it } from 'vitest';
import { analyseColumn, dominantLocale } from '../../src/init/columns.js';
import { propose } from '../../src/init/propose.js';
import { renderMapping } from '../../src/init/render.js';
import { compileMapping } from '../../src/mapping/compile.js';
import { resources } from '../../src/shop/registry/index.js';
import type { Introspection } from '../../src/init/types.js';

function intro(rows: Record<string, unknown>[]): Introspection {
  const names = Object.keys(rows[0] ?? {});
  const columns = names.map((n) => analyseColumn(n, rows.map((r) => r[n])));
  const locale = dominantLocale(columns);
  return { rows: rows.length, columns, ...(locale ? { locale } : {}) };
}

describe('column analysis', () => {
  it('reads German decimals (1.234,50 and 12,50) as one notation and refuses to guess a column that mixes notations', () => {
    expect(analyseColumn('VK', ['1.234,50', '12,50', '7'])).toMatchObject({ kind: 'decimal', locale: 'de' });
    expect(analyseColumn('VK', ['12.50', '7'])).toMatchObject({ kind: 'decimal', locale: 'point' });
    expect(analyseColumn('VK', ['12,50', '12.50']).kind).toBe('text');
  });

  it('tells yes/no columns, dates and empty columns apart', () => {
    expect(analyseColumn('Aktiv', ['J', 'N', 'J'])).toMatchObject({ kind: 'boolean', booleans: { true: ['J'], false: ['N'] } });
    expect(analyseColumn('Ab', ['01.02.2026', '15.03.2026'])).toMatchObject({ kind: 'date', dateFormat: 'DD.MM.YYYY' });
    expect(analyseColumn('Leer', ['', null, ' '])).toMatchObject({ kind: 'empty', empty: 3 });
    expect(analyseColumn('Nr', ['1', '2', '2']).unique).toBe(false);
  });
});

describe('proposal', () => {
  const products = resources.products;

  it('places ERP names on the registry fields, with the coercion each field needs', () => {
    const p = propose(intro([
      { artnr: 'A-1', Bezeichnung: 'Tisch', GTIN: '4006381333931', Preis: '12,50', Bestand: '3', Gewicht: '1,2', Aktiv: 'ja', Regal: 'R1' },
      { artnr: 'A-2', Bezeichnung: 'Stuhl', GTIN: '4006381333948', Preis: '1.299,00', Bestand: '0', Gewicht: '0,8', Aktiv: 'nein', Regal: 'R2' },
    ]), { resource: products, language: 'en', needsCursor: false });
    const byColumn = Object.fromEntries(p.fields.map((f) => [f.column, f]));
    expect(byColumn.artnr).toMatchObject({ target: 'products_model', required: true });
    expect(byColumn.Bezeichnung).toMatchObject({ target: 'languages.en.products_name' });
    expect(byColumn.GTIN).toMatchObject({ target: 'products_ean' });
    expect(byColumn.Preis).toMatchObject({ target: 'products_price', type: 'decimal' });
    expect(byColumn.Bestand).toMatchObject({ target: 'products_quantity', type: 'decimal' });
    expect(byColumn.Gewicht).toMatchObject({ target: 'products_weight', type: 'decimal' });
    expect(byColumn.Aktiv).toMatchObject({ target: 'products_status', type: 'flag', true: ['ja'], false: ['nein'] });
    expect(p).toMatchObject({ key: 'artnr', shopKey: 'products_model', locale: 'de', unplaced: [{ column: 'Regal', reason: 'no field of products matches its name' }] });
  });

  it('does not place a column whose values do not fit the field its name suggests, and says why', () => {
    const p = propose(intro([{ sku: 'X', preis: 'auf Anfrage' }, { sku: 'Y', preis: 'teuer' }]), { resource: products, language: 'de', needsCursor: false });
    expect(p.fields.map((f) => f.target)).toEqual(['products_model']);
    expect(p.unplaced).toEqual([{ column: 'preis', reason: 'its name suggests products_price, but its values are not numbers (e.g. "auf Anfrage")' }]);
  });

  it('picks a change timestamp as the cursor, and says plainly when there is none', () => {
    const rows = [{ nr: 1, sku: 'A', updated_at: '2026-01-01T10:00:00Z' }, { nr: 2, sku: 'B', updated_at: '2026-01-02T10:00:00Z' }];
    expect(propose(intro(rows), { resource: products, language: 'de', needsCursor: true })).toMatchObject({ key: 'sku', cursor: 'updated_at' });
    const none = propose(intro(rows.map(({ updated_at: _u, ...r }) => r)), { resource: products, language: 'de', needsCursor: true });
    expect(none.cursor).toBe('sku');
    expect(none.cursorNote).toContain('runs see new rows only, never changed ones');
  });

  it('proposes the ERP\'s stable id as the key beside the article number, so a changed number renames the product', () => {
    const rows = [{ id: 17, code: 'ART-1020', name: 'Wasserkocher', updated_at: '2026-01-01T10:00:00Z' }, { id: 18, code: 'ART-2000', name: 'Teekanne', updated_at: '2026-01-02T10:00:00Z' }];
    const p = propose(intro(rows), { resource: products, language: 'de', needsCursor: true });
    expect(p).toMatchObject({ key: 'id', natural: 'code', shopKey: 'products_model', cursor: 'updated_at' });
    expect(p.fields.find((f) => f.column === 'code')).toMatchObject({ target: 'products_model', required: true });
    expect(p.unplaced).toContainEqual({ column: 'id', reason: 'the ERP\'s stable id, the record key: a changed code renames the shop record instead of making a new one' });
    // A database says which column is the primary key; its name need not say id.
    const table: Introspection = { rows: 2, columns: [{ ...analyseColumn('intern', [4711, 4712]), primaryKey: true }, analyseColumn('ArtNr', ['A-1', 'A-2']), analyseColumn('Bezeichnung', ['Tisch', 'Stuhl'])] };
    expect(propose(table, { resource: products, language: 'de', needsCursor: false })).toMatchObject({ key: 'intern', natural: 'ArtNr' });
    // The key a person gives is taken; given the id, the number beside it stays the natural key.
    expect(propose(intro(rows), { resource: products, language: 'de', needsCursor: true, key: 'code' })).not.toHaveProperty('natural');
    expect(propose(intro(rows), { resource: products, language: 'de', needsCursor: true, key: 'code' })).toMatchObject({ key: 'code', shopKey: 'products_model' });
    expect(propose(intro(rows), { resource: products, language: 'de', needsCursor: true, key: 'id' })).toMatchObject({ key: 'id', natural: 'code' });
    // Without a number column there is nothing to rename: the id is an ordinary key; customers have no number at all.
    expect(propose(intro(rows.map(({ code: _c, ...r }) => r)), { resource: products, language: 'de', needsCursor: true })).not.toHaveProperty('natural');
    expect(propose(intro([{ id: 1, email: 'a@example.com' }, { id: 2, email: 'b@example.com' }]), { resource: resources.customers, language: 'de', needsCursor: false })).not.toHaveProperty('natural');
  });

  it('writes the stable id and the number as the mapping\'s key, which compiles', () => {
    const rows = [{ id: 17, code: 'ART-1020', name: 'Wasserkocher', preis: '19,90' }, { id: 18, code: 'ART-2000', name: 'Teekanne', preis: '9,90' }];
    const introspection = intro(rows);
    const proposal = propose(introspection, { resource: products, language: 'de', needsCursor: false });
    const text = renderMapping({ dir: '/tmp', name: 'products', resource: 'products', sourceLabel: 'ERP table article', proposal, introspection });
    expect(text).toContain('key: { surrogate: id, natural: code }');
    expect(text).not.toContain('shop_key:');
    const m = compileMapping(text, 'products.yaml');
    expect({ key: m.key, shopKey: m.shopKey, natural: m.surrogate?.natural, number: m.surrogate?.number }).toEqual({ key: 'id', shopKey: 'products_model', natural: 'code', number: 'products_model' });
  });

  it('names the fields a resource is never created without when no column fills them', () => {
    const p = propose(intro([{ Bestellnr: 'B-1', Summe: '10,00' }]), { resource: resources.orders, language: 'de', needsCursor: false, key: 'Bestellnr' });
    expect(p.missingRequired.length).toBeGreaterThan(0);
    expect(p.missingRequired).toEqual((resources.orders.requiredOnCreate ?? []).map((r) => r.field));
  });

  it('takes the placements and leave-outs a person gives, and refuses a field the resource does not have', () => {
    const rows = [{ nr: 'A', text: 'Tisch', lager: 'R1' }, { nr: 'B', text: 'Stuhl', lager: 'R2' }];
    const p = propose(intro(rows), { resource: products, language: 'de', needsCursor: false, key: 'nr', map: { text: 'languages.de.products_description', lager: '' } });
    expect(p.fields.find((f) => f.column === 'text')).toMatchObject({ target: 'languages.de.products_description', why: 'given' });
    expect(p.unplaced).toContainEqual({ column: 'lager', reason: 'left out as asked' });
    expect(() => propose(intro(rows), { resource: products, language: 'de', needsCursor: false, map: { lager: 'products_lager' } })).toThrow('products_lager is not a field of products');
  });

  it('names the nearest field when --map names a field the resource does not have', () => {
    const rows = [{ nr: 'A', text: 'Tisch', vk: '1,50' }];
    const mapTo = (map: Record<string, string>) => () => propose(intro(rows), { resource: products, language: 'de', needsCursor: false, key: 'nr', map });
    expect(mapTo({ vk: 'products_prise' })).toThrowErrorMatchingInlineSnapshot(`[InitError: --map vk=products_prise: products_prise is not a field of products; did you mean products_price?]`);
    // A per-language field named without its language block is found by its last segment.
    expect(mapTo({ text: 'products_name' })).toThrow('products_name is not a field of products; did you mean languages.de.products_name?');
    // So is a field named as the ERP calls it.
    expect(mapTo({ vk: 'preis' })).toThrow('preis is not a field of products; did you mean products_price?');
    expect(mapTo({ text: 'artikeltext_lang' })).toThrow(/artikeltext_lang is not a field of products; no field is named like it; the nearest are \S+, \S+, \S+$/);
  });
});

describe('proposal for the tables of real ERPs', () => {
  const products = resources.products;
  const placed = (rows: Record<string, unknown>[]) => Object.fromEntries(propose(intro(rows), { resource: products, language: 'de', needsCursor: true }).fields.map((f) => [f.column, f.target]));

  it.each([
    { erp: 'Tryton', model: 'code', qty: 'qty_on_hand' },
    { erp: 'Odoo', model: 'default_code', qty: 'qty_available' },
    { erp: 'ERPNext', model: 'item_code', qty: 'actual_qty' },
    { erp: 'Dolibarr', model: 'ref', qty: 'stock' },
    { erp: 'a German ERP', model: 'Artikelnummer', qty: 'Bestand' },
    { erp: 'a web shop export', model: 'SKU', qty: 'quantity' },
  ])('places $erp\'s $model on products_model and $qty on products_quantity', ({ model, qty }) => {
    const rows = [1, 2].map((i) => ({ id: i, [model]: `A-${i}`, [qty]: String(i * 1.5) }));
    expect(placed(rows)).toMatchObject({ [model]: 'products_model', [qty]: 'products_quantity' });
  });

  it('places ERPNext\'s item_name, Dolibarr\'s label and Odoo\'s list_price and barcode', () => {
    expect(placed([{ item_code: 'A', item_name: 'Tisch', standard_rate: '1.5' }, { item_code: 'B', item_name: 'Stuhl', standard_rate: '2' }])).toEqual({ item_code: 'products_model', item_name: 'languages.de.products_name', standard_rate: 'products_price' });
    expect(placed([{ ref: 'A', label: 'Tisch', tosell: 1 }, { ref: 'B', label: 'Stuhl', tosell: 0 }])).toEqual({ ref: 'products_model', label: 'languages.de.products_name', tosell: 'products_status' });
    expect(placed([{ default_code: 'A', list_price: '1.5', barcode: '4006381333931' }, { default_code: 'B', list_price: '2', barcode: '4006381333948' }])).toEqual({ default_code: 'products_model', list_price: 'products_price', barcode: 'products_ean' });
  });
});
