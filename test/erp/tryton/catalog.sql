-- Tryton 6.0's product catalog, one row per variant (product_product), for shopsync's SQL source.
-- Stock is what Tryton itself computes for the warehouse WH: the moves in state 'done' into its
-- location tree (stock_location "left"/"right") less those out of it, in the product's unit
-- (internal_quantity). The change time is the latest write (or create) of every row read.
WITH wh AS (
  SELECT l."left", l."right" FROM stock_location l WHERE l.code = 'WH' AND l.type = 'warehouse'
), inside AS (
  SELECT s.id FROM stock_location s, wh WHERE s."left" >= wh."left" AND s."right" <= wh."right"
), moves AS (
  SELECT m.product, m.internal_quantity, COALESCE(m.write_date, m.create_date) AS changed,
         m.to_location IN (SELECT id FROM inside) AS into_wh, m.from_location IN (SELECT id FROM inside) AS out_of_wh
  FROM stock_move m WHERE m.state = 'done'
), stock AS (
  SELECT product,
         SUM(CASE WHEN into_wh THEN internal_quantity ELSE -internal_quantity END) AS quantity,
         MAX(changed) AS changed
  FROM moves WHERE into_wh <> out_of_wh GROUP BY product
)
SELECT p.id, p.code, t.name, lp.list_price, ean.code AS ean, (p.active AND t.active) AS active,
       COALESCE(s.quantity, 0) AS quantity,
       GREATEST(COALESCE(p.write_date, p.create_date), COALESCE(t.write_date, t.create_date),
                COALESCE(lp.write_date, lp.create_date), ean.changed, s.changed) AS changed
FROM product_product p
JOIN product_template t ON t.id = p.template
LEFT JOIN product_list_price lp ON lp.template = t.id AND lp.company = (SELECT min(id) FROM company_company)
LEFT JOIN LATERAL (
  SELECT i.code, COALESCE(i.write_date, i.create_date) AS changed FROM product_identifier i
  WHERE i.product = p.id AND i.type = 'ean' ORDER BY i.sequence NULLS LAST, i.id LIMIT 1
) ean ON true
LEFT JOIN stock s ON s.product = p.id
