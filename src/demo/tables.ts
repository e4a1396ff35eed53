/**
 * The demo ERP as tables: what `shopsync demo` loads into state/demo/erp.sqlite and what
 * `writeDemoCsv` writes as export files. Columns are TEXT holding exactly what the CSV export
 * holds ('12,50', '31.12.2026'), as in a staging database fed by ERP exports; the `Geaendert`
 * column is an ISO timestamp so that it sorts and can serve as a sync cursor.
 */
import { demoArticles, demoCategories, demoManufacturers, demoPriceTiers, demoSpecials, demoStock, demoVariants, type ErpRow } from './catalog.js';
import { demoContracts, demoCustomerDiscounts, demoCustomers, demoOrderLines, demoOrders, demoOrderStatus } from './sales.js';

/** One demo table: its name, key, CREATE TABLE statement and rows. */
export interface DemoTable {
  readonly name: string;
  readonly primaryKey: readonly string[];
  readonly columns: readonly string[];
  /** SQLite CREATE TABLE statement (all columns TEXT). */
  readonly create: string;
  readonly rows: readonly ErpRow[];
}

function table(name: string, primaryKey: string[], rows: ErpRow[]): DemoTable {
  const columns = Object.keys(rows[0] ?? {});
  const cols = columns.map((c) => `"${c}" TEXT${primaryKey.length === 1 && c === primaryKey[0] ? ' PRIMARY KEY' : ''}`);
  const pk = primaryKey.length > 1 ? `, PRIMARY KEY (${primaryKey.map((k) => `"${k}"`).join(', ')})` : '';
  return { name, primaryKey, columns, create: `CREATE TABLE IF NOT EXISTS "${name}" (${cols.join(', ')}${pk})`, rows };
}

/** Every demo ERP table with its CREATE TABLE statement and rows, in load order. */
export function demoTables(): DemoTable[] {
  return [
    table('artikel', ['ARTNR'], demoArticles()),
    table('artikel_preise', ['ARTNR', 'Preisgruppe', 'AbMenge'], demoPriceTiers()),
    table('artikel_aktionen', ['ARTNR', 'Gueltig_Von'], demoSpecials()),
    table('lagerbestand', ['ARTNR', 'Lager'], demoStock()),
    table('artikel_varianten', ['VARNR'], demoVariants().varianten),
    table('artikel_varianten_merkmale', ['VARNR', 'MerkmalPos'], demoVariants().merkmale),
    table('variantenlager', ['VARNR', 'Lager'], demoVariants().lager),
    table('hersteller', ['HerstellerNr'], demoManufacturers()),
    table('warengruppen', ['WGR'], demoCategories()),
    table('kunden', ['KDNR'], demoCustomers()),
    table('kunden_rabatte', ['KDNR', 'WGR'], demoCustomerDiscounts()),
    table('auftraege', ['BelegNr'], demoOrders()),
    table('auftrag_positionen', ['BelegNr', 'Pos'], demoOrderLines()),
    table('auftrag_status', ['Vorgang'], demoOrderStatus()),
    table('vertraege', ['VertragsNr'], demoContracts()),
  ];
}

/** A suggested SQL source for one shipped mapping (ops wires these into the demo's pipelines). */
export interface DemoSource {
  /** Mapping file under mappings/ (without extension). */
  readonly mapping: string;
  readonly query: string;
  readonly cursor: string;
  readonly key: string;
  readonly children: readonly { field: string; query: string; parentKey: string }[];
}

/** SQL sources that feed the shipped erp→shop mappings from the demo tables. */
export function demoSources(): DemoSource[] {
  return [
    { mapping: 'categories', query: 'SELECT * FROM warengruppen', cursor: 'Geaendert', key: 'WGR', children: [] },
    { mapping: 'manufacturers', query: 'SELECT * FROM hersteller', cursor: 'Geaendert', key: 'HerstellerNr', children: [] },
    {
      mapping: 'products',
      query: 'SELECT * FROM artikel',
      cursor: 'Geaendert',
      key: 'ARTNR',
      children: [
        { field: 'Preise', query: 'SELECT * FROM artikel_preise WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' },
        { field: 'Aktionen', query: 'SELECT * FROM artikel_aktionen WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' },
      ],
    },
    {
      mapping: 'stock',
      query: 'SELECT ARTNR, Bestand, Mindestbestand, Meldebestand, Geaendert FROM artikel',
      cursor: 'Geaendert',
      key: 'ARTNR',
      children: [{ field: 'Lagerbestand', query: 'SELECT * FROM lagerbestand WHERE ARTNR IN (:keys)', parentKey: 'ARTNR' }],
    },
    {
      mapping: 'variants',
      // The cursor also moves when the variants-to-erp pull learnt the shop's SKU ids (Shop_Geaendert), so the stock per Lager follows.
      query: `SELECT a.ARTNR, MAX(a.Geaendert, COALESCE(s.Shop_Geaendert, '')) AS Geaendert FROM artikel a LEFT JOIN shop_artikel s ON s.ARTNR = a.ARTNR
              WHERE a.ARTNR IN (SELECT ARTNR FROM artikel_varianten)`,
      cursor: 'Geaendert',
      key: 'ARTNR',
      children: [
        {
          field: 'Varianten',
          query: `SELECT v.ARTNR, v.VARNR, v.EAN, v.Bestand, v.Aufpreis, v.Sortierung, m.MerkmalPos, m.Merkmal, m.Merkmal_EN, m.Wert, m.Wert_EN
                  FROM artikel_varianten v JOIN artikel_varianten_merkmale m ON m.VARNR = v.VARNR WHERE v.ARTNR IN (:keys) ORDER BY CAST(v.Sortierung AS INTEGER), m.MerkmalPos`,
          parentKey: 'ARTNR',
        },
        {
          field: 'VariantenLager',
          query: 'SELECT l.*, s.Shop_SKU_ID FROM variantenlager l LEFT JOIN (SELECT DISTINCT VARNR, Shop_SKU_ID FROM shop_varianten) s ON s.VARNR = l.VARNR WHERE l.ARTNR IN (:keys)',
          parentKey: 'ARTNR',
        },
      ],
    },
    {
      mapping: 'customers',
      query: 'SELECT * FROM kunden',
      cursor: 'Geaendert',
      key: 'KDNR',
      children: [{ field: 'Rabatte', query: 'SELECT * FROM kunden_rabatte WHERE KDNR IN (:keys)', parentKey: 'KDNR' }],
    },
    {
      mapping: 'orders-from-erp',
      query: 'SELECT * FROM auftraege',
      cursor: 'Geaendert',
      key: 'BelegNr',
      children: [{ field: 'Positionen', query: 'SELECT * FROM auftrag_positionen WHERE BelegNr IN (:keys)', parentKey: 'BelegNr' }],
    },
    { mapping: 'order-status', query: 'SELECT * FROM auftrag_status', cursor: 'Geaendert', key: 'Vorgang', children: [] },
    { mapping: 'contracts', query: 'SELECT * FROM vertraege', cursor: 'Geaendert', key: 'VertragsNr', children: [] },
  ];
}
