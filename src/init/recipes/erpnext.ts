/** ERPNext (Frappe) on MariaDB (docs/erp/erpnext.md): items, the selling price list, bins of a warehouse tree, barcodes. */
import type { Recipe } from './types.js';
import { catalogFields } from './fields.js';

// Frappe names tables "tab<DocType>". Stock lives in tabBin, one row per item and leaf warehouse;
// a group warehouse's stock is its subtree's bins (tabWarehouse lft/rgt). MariaDB's GREATEST is
// NULL when one argument is, hence a COALESCE for each.
const QUERY = `SELECT i.name AS id, i.item_code AS code, i.item_name AS name, pr.list_price, bc.barcode AS ean,
       (i.disabled = 0) AS active, COALESCE(st.quantity, 0) AS quantity,
       GREATEST(COALESCE(i.modified, i.creation), COALESCE(pr.changed, i.creation), COALESCE(st.changed, i.creation), COALESCE(bc.changed, i.creation)) AS changed
FROM \`tabItem\` i
LEFT JOIN (
  SELECT ip.item_code, MAX(ip.price_list_rate) AS list_price, MAX(ip.modified) AS changed
  FROM \`tabItem Price\` ip WHERE ip.price_list = :price_list AND ip.selling = 1 GROUP BY ip.item_code
) pr ON pr.item_code = i.item_code
LEFT JOIN (
  SELECT b.item_code, SUM(b.actual_qty) AS quantity, MAX(b.modified) AS changed
  FROM \`tabBin\` b JOIN \`tabWarehouse\` w ON w.name = b.warehouse
  JOIN \`tabWarehouse\` top ON top.name = :warehouse AND w.lft >= top.lft AND w.rgt <= top.rgt
  GROUP BY b.item_code
) st ON st.item_code = i.item_code
LEFT JOIN (
  SELECT c.parent, MIN(c.barcode) AS barcode, MAX(c.modified) AS changed
  FROM \`tabItem Barcode\` c WHERE c.parenttype = 'Item' AND c.barcode_type IN ('EAN', 'EAN-13') GROUP BY c.parent
) bc ON bc.parent = i.name
WHERE i.has_variants = 0 AND i.item_code IS NOT NULL AND i.item_code <> ''`;

/** The ERPNext recipe. */
export const erpnext: Recipe = {
  name: 'erpnext',
  title: 'ERPNext',
  kind: 'mysql',
  doc: 'docs/erp/erpnext.md',
  tables: {
    tabItem: ['name', 'item_code', 'item_name', 'disabled', 'has_variants', 'modified', 'creation'],
    'tabItem Price': ['item_code', 'price_list', 'price_list_rate', 'selling', 'modified'],
    tabBin: ['item_code', 'warehouse', 'actual_qty', 'modified'],
    tabWarehouse: ['name', 'lft', 'rgt'],
    'tabItem Barcode': ['parent', 'parenttype', 'barcode', 'barcode_type', 'modified'],
  },
  missingHint: "an ERPNext site's database (the site's db_name in site_config.json) has them; the Stock module creates them",
  notifyTables: ['tabItem', 'tabItem Price', 'tabBin', 'tabItem Barcode'],
  query: QUERY,
  params: {
    warehouse: { value: 'Stores', why: 'the warehouse (tabWarehouse.name, e.g. "Stores - AC") whose stock the shop sells; a group warehouse sums its subtree' },
    price_list: { value: 'Standard Selling', why: 'the selling price list whose rates are the shop prices' },
  },
  // No surrogate: an Item's name is its item code, and renaming the item code in ERPNext renames the document too.
  key: 'code',
  cursor: 'changed',
  fields: catalogFields({ status: { true: [1], false: [0] } }),
};
