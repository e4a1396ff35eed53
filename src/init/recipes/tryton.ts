/** Tryton 6.x on PostgreSQL (docs/erp/tryton.md): variants, list price, EAN and the warehouse's stock computed from its moves. */
import type { Recipe } from './types.js';
import { catalogFields } from './fields.js';

// Stock is what Tryton's Product.quantity gives inside the warehouse's context: the done moves into
// its location tree ("left"/"right" nested set) less those out of it, in the product's unit, rounded
// to the unit's digits as Tryton rounds it (the double precision sum of 0.1 + 0.2 kg is not 0.3).
const QUERY = `WITH wh AS (
  SELECT l."left", l."right" FROM stock_location l WHERE l.code = :warehouse AND l.type = 'warehouse'
), inside AS (
  SELECT s.id FROM stock_location s, wh WHERE s."left" >= wh."left" AND s."right" <= wh."right"
), moves AS (
  SELECT m.product, m.internal_quantity, COALESCE(m.write_date, m.create_date) AS changed,
         m.to_location IN (SELECT id FROM inside) AS into_wh, m.from_location IN (SELECT id FROM inside) AS out_of_wh
  FROM stock_move m WHERE m.state = 'done'
), stock AS (
  SELECT product, SUM(CASE WHEN into_wh THEN internal_quantity ELSE -internal_quantity END) AS quantity, MAX(changed) AS changed
  FROM moves WHERE into_wh <> out_of_wh GROUP BY product
)
SELECT p.id, p.code, t.name, lp.list_price, ean.code AS ean, (p.active AND t.active) AS active,
       ROUND(CAST(COALESCE(s.quantity, 0) AS numeric), COALESCE(u.digits, 2)) AS quantity,
       GREATEST(COALESCE(p.write_date, p.create_date), COALESCE(t.write_date, t.create_date),
                COALESCE(lp.write_date, lp.create_date), ean.changed, s.changed) AS changed
FROM product_product p
JOIN product_template t ON t.id = p.template
LEFT JOIN product_uom u ON u.id = t.default_uom
LEFT JOIN product_list_price lp ON lp.template = t.id AND lp.company = (SELECT min(id) FROM company_company)
LEFT JOIN LATERAL (
  SELECT i.code, COALESCE(i.write_date, i.create_date) AS changed FROM product_identifier i
  WHERE i.product = p.id AND i.type = 'ean' ORDER BY i.sequence NULLS LAST, i.id LIMIT 1
) ean ON true
LEFT JOIN stock s ON s.product = p.id
WHERE p.code IS NOT NULL AND p.code <> ''`;

/** The Tryton recipe. */
export const tryton: Recipe = {
  name: 'tryton',
  title: 'Tryton',
  kind: 'postgres',
  doc: 'docs/erp/tryton.md',
  tables: {
    product_product: ['id', 'code', 'template', 'active', 'write_date', 'create_date'],
    product_template: ['id', 'name', 'active', 'default_uom', 'write_date', 'create_date'],
    product_uom: ['id', 'digits'],
    product_list_price: ['template', 'company', 'list_price', 'write_date', 'create_date'],
    product_identifier: ['product', 'type', 'code', 'sequence', 'write_date', 'create_date'],
    stock_move: ['product', 'internal_quantity', 'state', 'from_location', 'to_location', 'write_date', 'create_date'],
    stock_location: ['id', 'code', 'type', 'left', 'right'],
    company_company: ['id'],
  },
  missingHint: 'a Tryton database has them once the modules product, company and stock are activated (trytond-admin -u product company stock --activate-dependencies)',
  notifyTables: ['product_product', 'product_template', 'product_list_price', 'product_identifier', 'stock_move'],
  query: QUERY,
  params: { warehouse: { value: 'WH', why: "the code of the warehouse (stock_location of type warehouse) whose stock the shop sells; Tryton's first is WH" } },
  key: 'code',
  surrogate: 'id',
  cursor: 'changed',
  fields: catalogFields({ status: { true: [true], false: [false] } }),
};
