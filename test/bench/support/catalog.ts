/**
 * The benchmark catalog: an ERP SQLite file of products with names in two languages, a net price,
 * stock and prices for two customer groups (a child table, as ERPs keep them), the shopsync mapping
 * for it, and the same mapping written by hand (what a script would do).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Shop customer groups the ERP's price groups map to. */
const GROUPS = [3, 4] as const;

/** Write `n` products into `<dir>/erp.sqlite` (streamed in one transaction); returns the file. */
export function writeCatalog(dir: string, n: number, file = 'erp.sqlite'): string {
  const path = join(dir, file);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE products (sku TEXT PRIMARY KEY, name_de TEXT NOT NULL, name_en TEXT NOT NULL, price TEXT NOT NULL, qty INTEGER NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE group_prices (sku TEXT NOT NULL, group_id INTEGER NOT NULL, price TEXT NOT NULL, PRIMARY KEY (sku, group_id));
    -- What docs/connectors.md asks of an ERP table read with a cursor: an index on (cursor, key), so each page is a range.
    CREATE INDEX products_cursor ON products (updated_at, sku);`);
  const product = db.prepare('INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)');
  const group = db.prepare('INSERT INTO group_prices VALUES (?, ?, ?)');
  const chunk = 50_000;
  for (let start = 1; start <= n; start += chunk) {
    db.transaction(() => {
      for (let i = start; i < Math.min(n + 1, start + chunk); i++) {
        const sku = skuOf(i);
        const price = 5 + (i % 200) / 4;
        product.run(sku, `Artikel ${i} Edelstahl`, `Item ${i} stainless steel`, price.toFixed(2), i % 100, '2026-01-01 00:00:00');
        for (const g of GROUPS) group.run(sku, g, (price * (g === 3 ? 0.9 : 0.85)).toFixed(2));
      }
    })();
  }
  db.close();
  return path;
}

/** The ERP key of the i-th product. */
export function skuOf(i: number): string {
  return `B-${String(i).padStart(7, '0')}`;
}

/** The SQL source config of the catalog (products with their group prices as children); `query` may narrow it. */
export function catalogSource(query = 'SELECT * FROM products') {
  return {
    query,
    cursor: 'updated_at',
    key: 'sku',
    children: [{ field: 'prices', query: 'SELECT sku, group_id, price FROM group_prices WHERE sku IN (:keys) ORDER BY group_id', parentKey: 'sku' }],
  };
}

/** The shopsync mapping of the catalog. */
export const CATALOG_MAPPING = `
name: bench-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
locale: point
fields:
  products_model: { from: sku, required: true }
  products_price: { from: price, type: decimal, required: true }
  products_quantity: { from: qty, type: decimal }
  products_status: { value: 1 }
  languages.de.products_name: { from: name_de, required: true }
  languages.en.products_name: name_en
  groups:
    each: prices
    when_missing: omit
    fields:
      customers_group_id: { from: group_id, type: integer }
      customers_group_price: { from: price, type: decimal, required: true }
`;

/** Write the mapping next to the catalog; returns its path. */
export function writeCatalogMapping(dir: string): string {
  const path = join(dir, 'bench-products.yaml');
  writeFileSync(path, CATALOG_MAPPING);
  return path;
}

/** A catalog row as the script reads it (product row plus its group prices). */
export interface CatalogRow {
  readonly sku: string;
  readonly name_de: string;
  readonly name_en: string;
  readonly price: string;
  readonly qty: number;
  readonly prices: readonly { readonly group_id: number; readonly price: string }[];
}

/** The mapping written by hand: what the script sends for a row. */
export function mapByHand(r: CatalogRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    products_model: r.sku,
    products_price: r.price,
    products_quantity: String(r.qty),
    products_status: 1,
    languages: { de: { products_name: r.name_de }, en: { products_name: r.name_en } },
  };
  if (r.prices.length > 0) out.groups = r.prices.map((p) => ({ customers_group_id: p.group_id, customers_group_price: p.price }));
  return out;
}

/** Read the catalog in key order, `pageSize` rows at a time with their group prices (what a script does). */
export function* readCatalog(path: string, limit: number, pageSize = 1000): Generator<CatalogRow[]> {
  const db = new Database(path, { readonly: true });
  try {
    const page = db.prepare('SELECT sku, name_de, name_en, price, qty FROM products WHERE sku > ? ORDER BY sku LIMIT ?');
    const prices = db.prepare('SELECT sku, group_id, price FROM group_prices WHERE sku >= ? AND sku <= ? ORDER BY sku, group_id');
    let after = '';
    let read = 0;
    while (read < limit) {
      const rows = page.all(after, Math.min(pageSize, limit - read)) as Omit<CatalogRow, 'prices'>[];
      if (rows.length === 0) return;
      const bySku = new Map<string, { group_id: number; price: string }[]>();
      for (const p of prices.all(rows[0]!.sku, rows.at(-1)!.sku) as { sku: string; group_id: number; price: string }[]) {
        let list = bySku.get(p.sku);
        if (!list) bySku.set(p.sku, (list = []));
        list.push({ group_id: p.group_id, price: p.price });
      }
      yield rows.map((r) => ({ ...r, prices: bySku.get(r.sku) ?? [] }));
      read += rows.length;
      after = rows.at(-1)!.sku;
    }
  } finally {
    db.close();
  }
}
