import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { flatOptionsForImport, flatOptionsOf } from '../../src/shop/resources/products-options.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

// The shipped variants mappings end to end: ERP variant rows → flat options[] → the sandbox over HTTP →
// its export in both grouped shapes → the variants-to-erp pull → the same rows back in the ERP.
const SOURCE = {
  query: 'SELECT * FROM artikel',
  cursor: 'Geaendert',
  key: 'ARTNR',
  children: [
    {
      field: 'Varianten',
      query: `SELECT v.ARTNR, v.VARNR, v.EAN, v.Bestand, v.Aufpreis, v.Sortierung, m.MerkmalPos, m.Merkmal, m.Merkmal_EN, m.Wert, m.Wert_EN
              FROM artikel_varianten v JOIN artikel_varianten_merkmale m ON m.VARNR = v.VARNR WHERE v.ARTNR IN (:keys) ORDER BY v.Sortierung, m.MerkmalPos`,
      parentKey: 'ARTNR',
    },
    {
      field: 'VariantenLager',
      query: 'SELECT l.*, s.Shop_SKU_ID FROM variantenlager l LEFT JOIN (SELECT DISTINCT VARNR, Shop_SKU_ID FROM shop_varianten) s ON s.VARNR = l.VARNR WHERE l.ARTNR IN (:keys)',
      parentKey: 'ARTNR',
    },
  ],
};
const pushDef = { name: 'variants', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'variants.yaml', resource: 'products' };
const pullDef = { name: 'variants-to-erp', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'variants-to-erp.yaml', resource: 'products' };

/** [ARTNR, VARNR, EAN, Bestand, Aufpreis, Sortierung, [Merkmal, Merkmal_EN, Wert, Wert_EN][]]. */
const VARIANTS: [string, string, string, string, string, string, [string, string, string, string][]][] = [
  ['SHIRT-1', 'SHIRT-1-RT-S', '4006381400011', '7', '0', '1', [['Farbe', 'Colour', 'Rot', 'Red'], ['Größe', 'Size', 'S', 'S']]],
  ['SHIRT-1', 'SHIRT-1-RT-L', '4006381400028', '3', '2,50', '2', [['Farbe', 'Colour', 'Rot', 'Red'], ['Größe', 'Size', 'L', 'L']]],
  ['SHIRT-1', 'SHIRT-1-BL-L', '4006381400035', '0', '2,50', '3', [['Farbe', 'Colour', 'Blau', 'Blue'], ['Größe', 'Size', 'L', 'L']]],
  ['CAP-1', 'CAP-1-M', '4006381400042', '12', '0', '1', [['Größe', 'Size', 'M', 'M']]],
  ['CAP-1', 'CAP-1-XL', '4006381400059', '4,5', '-1,00', '2', [['Größe', 'Size', 'XL', 'XL']]],
];

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Geaendert TEXT NOT NULL);
    CREATE TABLE artikel_varianten (VARNR TEXT PRIMARY KEY, ARTNR TEXT NOT NULL, EAN TEXT, Bestand TEXT, Aufpreis TEXT, Sortierung TEXT);
    CREATE TABLE artikel_varianten_merkmale (VARNR TEXT NOT NULL, MerkmalPos TEXT NOT NULL, Merkmal TEXT, Merkmal_EN TEXT, Wert TEXT, Wert_EN TEXT, PRIMARY KEY (VARNR, MerkmalPos));
    CREATE TABLE variantenlager (VARNR TEXT NOT NULL, ARTNR TEXT NOT NULL, Lager TEXT NOT NULL, Bestand TEXT, Mindestbestand TEXT, PRIMARY KEY (VARNR, Lager));
    CREATE TABLE shop_artikel (ARTNR TEXT PRIMARY KEY, Shop_ID INTEGER, Shop_Geaendert TEXT);
    CREATE TABLE shop_varianten (ARTNR TEXT NOT NULL, VARNR TEXT NOT NULL, EAN TEXT, Bestand TEXT, Aufpreis TEXT, Sortierung INTEGER, MerkmalPos INTEGER, Merkmal TEXT, Merkmal_EN TEXT, Wert TEXT, Wert_EN TEXT, Shop_SKU_ID INTEGER, PRIMARY KEY (VARNR, MerkmalPos))`);
  for (const artnr of ['SHIRT-1', 'CAP-1']) f.erp.prepare('INSERT INTO artikel VALUES (?, ?)').run(artnr, '2026-01-01 00:00:00');
  for (const [artnr, varnr, ean, bestand, aufpreis, sort, merkmale] of VARIANTS) {
    f.erp.prepare('INSERT INTO artikel_varianten VALUES (?, ?, ?, ?, ?, ?)').run(varnr, artnr, ean, bestand, aufpreis, sort);
    merkmale.forEach((m, i) => f.erp.prepare('INSERT INTO artikel_varianten_merkmale VALUES (?, ?, ?, ?, ?, ?)').run(varnr, String(i + 1), ...m));
  }
  const created = await f.shop.create('products', [
    { products_model: 'SHIRT-1', products_price: '19.90', languages: { de: { products_name: 'Hemd' } } },
    { products_model: 'CAP-1', products_price: '9.90', languages: { de: { products_name: 'Mütze' } } },
  ]);
  expect(created.outcomes.every((o) => o.ok)).toBe(true);
});
afterEach(async () => {
  await f.close();
});

async function push() {
  const mapping = await loadMapping(path.resolve('mappings/variants.yaml'));
  return runPipeline(pushDef, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) });
}

async function pull() {
  const mapping = await loadMapping(path.resolve('mappings/variants-to-erp.yaml'));
  const sink = () => createSink({ kind: 'sqlite', path: f.erpFile }, { table: 'shop_artikel', key: 'ARTNR', children: [{ field: 'Varianten', table: 'shop_varianten', key: ['VARNR', 'MerkmalPos'], parentKey: 'ARTNR' }] }, { logger: silentLogger, baseDir: '/' });
  return runPipeline(pullDef, { state: f.state, shop: f.shop, mapping, sink });
}

async function product(model: string): Promise<Record<string, unknown>> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return p;
  throw new Error(`no product ${model}`);
}

const erpNumber = (s: string) => Number(s.replace(',', '.'));
const COLUMNS = 'ARTNR, VARNR, EAN, Bestand, Aufpreis, Sortierung, MerkmalPos, Merkmal, Merkmal_EN, Wert, Wert_EN';
type VariantRow = Record<string, string | number>;

/** Rows normalised for comparison: numbers as numbers, whatever notation the table holds. */
function normalised(rows: VariantRow[]): VariantRow[] {
  return rows.map((r) => ({ ...r, Bestand: erpNumber(String(r.Bestand)), Aufpreis: erpNumber(String(r.Aufpreis)), Sortierung: Number(r.Sortierung), MerkmalPos: Number(r.MerkmalPos) }));
}

describe('variant articles (shipped variants.yaml and variants-to-erp.yaml)', () => {
  it('round-trips ERP variant rows through the shop: flat import, both grouped export shapes, and back to the same rows', async () => {
    const pushed = await push();
    expect(pushed.counts).toMatchObject({ updated: 2, deadLettered: 0 });

    // Several attributes per SKU: a combination of an attribute group, SKU data per combination.
    const shirt = await product('SHIRT-1');
    const groups = shirt.option_groups as { options: { languages: Record<string, { name: string }> }[]; combinations: Record<string, unknown>[] }[];
    expect(groups).toHaveLength(1);
    expect(groups[0]!.options.map((o) => o.languages.en!.name)).toEqual(['Colour', 'Size']);
    expect(groups[0]!.combinations.map((c) => [c.model, c.ean, c.quantity, c.price])).toEqual([
      ['SHIRT-1-RT-S', '4006381400011', 7, 0],
      ['SHIRT-1-RT-L', '4006381400028', 3, 2.5],
      ['SHIRT-1-BL-L', '4006381400035', 0, 2.5],
    ]);
    expect(shirt.options).toEqual({});
    // One attribute per SKU: values of options{}, SKU data per value, a negative surcharge as prefix '-'.
    const cap = await product('CAP-1');
    const sizes = Object.values(cap.options as Record<string, { languages: Record<string, { name: string }>; values: Record<string, unknown>[] }>);
    expect(sizes).toHaveLength(1);
    expect(sizes[0]!.languages).toEqual({ de: { name: 'Größe' }, en: { name: 'Size' } });
    expect(sizes[0]!.values.map((v) => [v.model, v.quantity, v.price_prefix, v.price])).toEqual([['CAP-1-M', 12, '+', 0], ['CAP-1-XL', 4.5, '-', 1]]);
    expect(cap.option_groups).toEqual([]);

    const pulled = await pull();
    expect(pulled.counts).toMatchObject({ created: 2, deadLettered: 0 });
    const back = f.erp.prepare(`SELECT ${COLUMNS} FROM shop_varianten ORDER BY ARTNR, Sortierung, MerkmalPos`).all() as VariantRow[];
    const original = f.erp.prepare(`SELECT v.ARTNR, v.VARNR, v.EAN, v.Bestand, v.Aufpreis, v.Sortierung, m.MerkmalPos, m.Merkmal, m.Merkmal_EN, m.Wert, m.Wert_EN
      FROM artikel_varianten v JOIN artikel_varianten_merkmale m ON m.VARNR = v.VARNR ORDER BY v.ARTNR, CAST(v.Sortierung AS INTEGER), m.MerkmalPos`).all() as VariantRow[];
    expect(back).toHaveLength(8);
    expect(normalised(back)).toEqual(normalised(original));
  });

  it('puts per-warehouse variant stock on storages[].options_id once the pull wrote the SKU ids back, and keeps those ids on later imports', async () => {
    f.erp.prepare('INSERT INTO variantenlager VALUES (?, ?, ?, ?, ?)').run('SHIRT-1-RT-L', 'SHIRT-1', '1', '2', '1');
    f.erp.prepare('INSERT INTO variantenlager VALUES (?, ?, ?, ?, ?)').run('CAP-1-XL', 'CAP-1', '2', '4,5', '0');
    expect((await push()).counts).toMatchObject({ updated: 2, deadLettered: 0 });
    // No SKU id known yet: the variants land, no storage row is guessed.
    expect((await product('SHIRT-1')).storages).toEqual([]);
    await pull();
    const skuOf = (varnr: string) => (f.erp.prepare('SELECT DISTINCT Shop_SKU_ID AS id FROM shop_varianten WHERE VARNR = ?').get(varnr) as { id: number }).id;
    f.erp.prepare("UPDATE artikel SET Geaendert = '2026-01-02 00:00:00'").run();
    expect((await push()).counts).toMatchObject({ updated: 2, deadLettered: 0 });

    const shirt = await product('SHIRT-1');
    expect(shirt.storages).toEqual([expect.objectContaining({ storages_id: 1, options_id: skuOf('SHIRT-1-RT-L'), products_quantity: 2, products_safe_quantity: 1 })]);
    const cap = await product('CAP-1');
    expect(cap.storages).toEqual([expect.objectContaining({ storages_id: 3, options_id: skuOf('CAP-1-XL'), products_quantity: 4.5 })]);
    // The SKU ids the export shows are still the ones the ERP holds.
    expect(flatOptionsOf(shirt).map((e) => [e.model, e.sku_id])).toEqual(['SHIRT-1-RT-S', 'SHIRT-1-RT-L', 'SHIRT-1-BL-L'].map((v) => [v, skuOf(v)]));
  });

  it('takes its own export back unchanged: the grouped shapes converted to flat entries re-import to the same SKUs', async () => {
    await push();
    const before = await product('SHIRT-1');
    const answer = await f.shop.update('products', [{ products_model: 'SHIRT-1', options: flatOptionsForImport(flatOptionsOf(before)) }]);
    expect(answer.outcomes[0]).toMatchObject({ ok: true, warnings: [] });
    const after = await product('SHIRT-1');
    expect(after.option_groups).toEqual(before.option_groups);
  });

  it('refuses an article whose variant has no stock figure, and leaves its variants in the shop as they were', async () => {
    await push();
    const before = await product('CAP-1');
    f.erp.prepare("UPDATE artikel_varianten SET Bestand = '' WHERE VARNR = 'CAP-1-M'").run();
    f.erp.prepare("UPDATE artikel SET Geaendert = '2026-01-02 00:00:00'").run();
    const summary = await push();
    expect(summary.counts).toMatchObject({ deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: 'variants' }))[0]).toMatchObject({ erpKey: 'CAP-1', code: 'MAPPING_REQUIRED' });
    expect((await product('CAP-1')).options).toEqual(before.options);
  });
});
