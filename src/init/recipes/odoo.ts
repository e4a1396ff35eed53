/** Odoo 16/17 on PostgreSQL (docs/erp/odoo.md): variants, the template's list price and name, the warehouse's quants. */
import type { Recipe } from './types.js';
import { catalogFields } from './fields.js';

// A warehouse's stock is the quants of the internal locations below its view location
// (parent_path is "1/7/12/"), as Odoo's qty_available in the warehouse's context sums them.
// Odoo deletes quants that reach 0 (stock.quant._unlink_zero_quants): then no row and no time is
// left, which only a complete read sees (docs/erp/odoo.md).
const QUERY = `WITH wh AS (
  SELECT v.parent_path FROM stock_warehouse w JOIN stock_location v ON v.id = w.view_location_id WHERE w.code = :warehouse
), stock AS (
  SELECT q.product_id, SUM(q.quantity) AS quantity, MAX(COALESCE(q.write_date, q.create_date)) AS changed
  FROM stock_quant q JOIN stock_location l ON l.id = q.location_id, wh
  WHERE l.usage = 'internal' AND l.parent_path LIKE wh.parent_path || '%'
  GROUP BY q.product_id
)
SELECT p.id, p.default_code AS code, COALESCE(t.name->>CAST(:language AS text), t.name->>'en_US') AS name, t.list_price,
       NULLIF(p.barcode, '') AS ean, (p.active AND t.active AND t.sale_ok) AS active,
       COALESCE(s.quantity, 0) AS quantity,
       GREATEST(COALESCE(p.write_date, p.create_date), COALESCE(t.write_date, t.create_date), s.changed) AS changed
FROM product_product p
JOIN product_template t ON t.id = p.product_tmpl_id
LEFT JOIN stock s ON s.product_id = p.id
WHERE p.default_code IS NOT NULL AND p.default_code <> ''`;

/** The Odoo recipe. */
export const odoo: Recipe = {
  name: 'odoo',
  title: 'Odoo',
  kind: 'postgres',
  doc: 'docs/erp/odoo.md',
  tables: {
    product_product: ['id', 'product_tmpl_id', 'default_code', 'barcode', 'active', 'write_date', 'create_date'],
    product_template: ['id', 'name', 'list_price', 'active', 'sale_ok', 'write_date', 'create_date'],
    stock_quant: ['product_id', 'location_id', 'quantity', 'write_date', 'create_date'],
    stock_location: ['id', 'parent_path', 'usage'],
    stock_warehouse: ['code', 'view_location_id'],
  },
  missingHint: 'an Odoo database has them once the apps Sales and Inventory (modules sale, stock) are installed; this recipe reads the layout of Odoo 16 and 17 (product_template.name as jsonb)',
  notifyTables: ['product_product', 'product_template', 'stock_quant'],
  query: QUERY,
  params: {
    warehouse: { value: 'WH', why: "the short name (stock_warehouse.code) of the warehouse whose stock the shop sells; Odoo's first is WH" },
    language: { value: 'en_US', why: 'the language of product_template.name to sell under (a key of its jsonb, e.g. de_DE)' },
  },
  key: 'code',
  surrogate: 'id',
  cursor: 'changed',
  fields: catalogFields({ status: { true: [true], false: [false] } }),
};
