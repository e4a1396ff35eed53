/** Dolibarr on MariaDB (docs/erp/dolibarr.md): llx_product with its net price and barcode, one warehouse's llx_product_stock. */
import type { Recipe } from './types.js';
import { catalogFields } from './fields.js';

// Dolibarr keeps the real stock per warehouse in llx_product_stock.reel (llx_product.stock is the
// total of all warehouses, a cache). tms is a TIMESTAMP ... ON UPDATE CURRENT_TIMESTAMP, datec the
// creation; GREATEST is NULL when one argument is, hence the COALESCEs.
const QUERY = `SELECT p.rowid AS id, p.ref AS code, p.label AS name, p.price AS list_price, NULLIF(p.barcode, '') AS ean,
       (p.tosell = 1) AS active, COALESCE(ps.reel, 0) AS quantity,
       GREATEST(COALESCE(p.tms, p.datec), COALESCE(ps.tms, p.tms, p.datec)) AS changed
FROM llx_product p
LEFT JOIN llx_entrepot e ON e.ref = :warehouse AND e.entity = p.entity
LEFT JOIN llx_product_stock ps ON ps.fk_product = p.rowid AND ps.fk_entrepot = e.rowid
WHERE p.fk_product_type = 0 AND p.entity = :entity AND p.ref IS NOT NULL AND p.ref <> ''`;

/** The Dolibarr recipe. */
export const dolibarr: Recipe = {
  name: 'dolibarr',
  title: 'Dolibarr',
  kind: 'mysql',
  doc: 'docs/erp/dolibarr.md',
  tables: {
    llx_product: ['rowid', 'ref', 'label', 'price', 'barcode', 'tosell', 'fk_product_type', 'entity', 'tms', 'datec'],
    llx_product_stock: ['fk_product', 'fk_entrepot', 'reel', 'tms'],
    llx_entrepot: ['rowid', 'ref', 'entity'],
  },
  missingHint: 'a Dolibarr database has them once the modules Products and Stocks are enabled; a prefix other than llx_ (chosen at install) needs the query edited',
  notifyTables: ['llx_product', 'llx_product_stock'],
  query: QUERY,
  params: {
    warehouse: { value: 'WH', why: 'the reference (llx_entrepot.ref) of the warehouse whose stock the shop sells' },
    entity: { value: 1, why: 'the company (entity) of a multicompany installation; 1 without multicompany' },
  },
  key: 'code',
  surrogate: 'id',
  cursor: 'changed',
  fields: catalogFields({ status: { true: [1], false: [0] } }),
};
