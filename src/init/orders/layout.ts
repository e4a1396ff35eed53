/**
 * The staging layout `shopsync init --orders-pull` creates: three tables of shopsync's own
 * (orders, their lines, their billing and delivery addresses as rows), and with `follow:` a fourth,
 * the changes of followed orders, where the ERP side picks the orders up (docs/connectors.md "Orders into your ERP").
 *
 * Where they live: PostgreSQL, a schema of their own (`shopsync_in`, or `--staging-schema`);
 * MariaDB/MySQL, a database of their own when `--staging-schema` names one (init creates it, which
 * needs the CREATE privilege), else tables prefixed `shopsync_in_` in the ERP database, which every
 * user that may create tables can do; SQLite, prefixed tables in the file.
 *
 * Who writes what: the mapping writes the shop's columns, the sink `shopsync_pipeline` (its owner mark, `ownerColumn`);
 * `shopsync_delivered_at` is set by the database on insert and by a trigger when an update changed
 * a column shopsync writes; the ERP columns (`status`, `imported_at`, `erp_reference`,
 * `import_error`) are never in the mapping, so the sink's upsert, which writes only the record's
 * columns, never resets an order the ERP has claimed or imported.
 */
import type { SqlKind } from '../cursor.js';

/** The pipeline and mapping name. */
export const ORDERS_PULL_NAME = 'orders-to-erp';

/** The default PostgreSQL schema of the staging tables. */
export const DEFAULT_STAGING_SCHEMA = 'shopsync_in';

/** The mapping's list fields that fill the child tables. */
export const LINES_FIELD = 'lines';
export const ADDRESSES_FIELD = 'addresses';
/** The mapping's list of a followed order's changes (from the record's `_changes`), filling the changes table. */
export const CHANGES_FIELD = 'changes';

/** The owner column (`ownerColumn:` of the sink) and the delivery time column. */
export const OWNER_COLUMN = 'shopsync_pipeline';
export const DELIVERED_COLUMN = 'shopsync_delivered_at';

/** Column kinds, typed per database in ddl.ts. */
export type ColumnType = 'id' | 'text' | 'long' | 'money' | 'time' | 'stamp';

/** A column of a staging table. */
export interface StagingColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** `shop`: written by the mapping; `delivered`: by the database; `erp`: by the ERP side only. */
  readonly owner: 'shop' | 'delivered' | 'erp';
}

const shop = (name: string, type: ColumnType): StagingColumn => ({ name, type, owner: 'shop' });
const erp = (name: string, type: ColumnType): StagingColumn => ({ name, type, owner: 'erp' });

/** The orders table: one row per shop order, unique on `orders_id`. */
export const ORDER_COLUMNS: readonly StagingColumn[] = [
  shop('orders_id', 'id'), shop(OWNER_COLUMN, 'text'), shop('customers_id', 'id'), shop('customers_email_address', 'text'), shop('customers_name', 'text'),
  shop('date_purchased', 'time'), shop('shop_last_modified', 'time'), shop('orders_status', 'id'), shop('language_id', 'id'), shop('payment_method', 'text'), shop('shipping_method', 'text'),
  shop('currency', 'text'), shop('tax_flag', 'id'), shop('subtotal', 'money'), shop('shipping', 'money'), shop('tax', 'money'), shop('total', 'money'), shop('comments', 'long'),
  { name: DELIVERED_COLUMN, type: 'stamp', owner: 'delivered' },
  erp('status', 'text'), erp('imported_at', 'stamp'), erp('erp_reference', 'text'), erp('import_error', 'long'),
];

/** The lines table, unique on `orders_id, pos` (pos counts from 1 in the shop's order). */
export const LINE_COLUMNS: readonly StagingColumn[] = [
  shop('orders_id', 'id'), shop('pos', 'id'), shop('products_id', 'id'), shop('products_model', 'text'), shop('products_name', 'text'),
  shop('quantity', 'money'), shop('products_price', 'money'), shop('products_tax', 'money'), shop('final_price', 'money'),
];

/** The addresses table, unique on `orders_id, kind` (`billing`, `delivery`). */
export const ADDRESS_COLUMNS: readonly StagingColumn[] = [
  shop('orders_id', 'id'), shop('kind', 'text'), shop('name', 'text'), shop('firstname', 'text'), shop('lastname', 'text'), shop('company', 'text'),
  shop('street', 'text'), shop('additional', 'text'), shop('postcode', 'text'), shop('city', 'text'), shop('state', 'text'), shop('country', 'text'),
  shop('country_code', 'text'), shop('email', 'text'), shop('telephone', 'text'),
];

/**
 * The changes table of a pull with `follow:`, unique on `orders_id, seq`: one row per change a
 * followed order went through after its first delivery (src/follow/types.ts FollowChange), appended
 * by the sink (`append: true`) and never rewritten, so the ERP acts on each (orders_id, seq) once and
 * its own columns survive every re-delivery. The change's `status` is `orders_status` here, as in
 * the orders table: `status` is the ERP's claim column in every staging table.
 */
export const CHANGE_COLUMNS: readonly StagingColumn[] = [
  shop('orders_id', 'id'), shop('seq', 'id'), shop('kind', 'text'), shop('detected_at', 'stamp'), shop('orders_status', 'id'), shop('previous_status', 'id'),
  shop('comment', 'long'), shop('history_at', 'time'), shop('tracking_code', 'text'), shop('service_provider', 'text'), shop('field', 'text'),
  { name: DELIVERED_COLUMN, type: 'stamp', owner: 'delivered' },
  erp('status', 'text'), erp('imported_at', 'stamp'), erp('import_error', 'long'),
];

/** One staging table: its (qualified) name, columns and unique key. */
export interface StagingTable {
  readonly name: string;
  readonly columns: readonly StagingColumn[];
  readonly key: readonly string[];
}

/** Where the tables live on one database. */
export interface StagingLayout {
  readonly kind: SqlKind;
  /** The schema (PostgreSQL) or database (MariaDB) init creates; undefined: the ERP database's own. */
  readonly schema?: string;
  readonly orders: StagingTable;
  readonly lines: StagingTable;
  readonly addresses: StagingTable;
  /** The changes of followed orders: only for a pull with `follow:`. */
  readonly changes?: StagingTable;
}

/** The layout for a database kind; `schema` is `--staging-schema` (SQLite has none); `follow`: the pull follows orders, so it has the changes table. */
export function stagingLayout(kind: SqlKind, schema?: string, follow = false): StagingLayout {
  const own = kind === 'postgres' ? (schema ?? DEFAULT_STAGING_SCHEMA) : kind === 'mysql' ? schema : undefined;
  const name = (table: string) => (own ? `${own}.${table}` : `${DEFAULT_STAGING_SCHEMA}_${table}`);
  return {
    kind,
    ...(own ? { schema: own } : {}),
    orders: { name: name('orders'), columns: ORDER_COLUMNS, key: ['orders_id'] },
    lines: { name: name('order_lines'), columns: LINE_COLUMNS, key: ['orders_id', 'pos'] },
    addresses: { name: name('order_addresses'), columns: ADDRESS_COLUMNS, key: ['orders_id', 'kind'] },
    ...(follow ? { changes: { name: name('order_changes'), columns: CHANGE_COLUMNS, key: ['orders_id', 'seq'] } } : {}),
  };
}

/** The tables, parent first (the changes table last, when there is one). */
export function stagingTables(layout: StagingLayout): readonly StagingTable[] {
  return [layout.orders, layout.lines, layout.addresses, ...(layout.changes ? [layout.changes] : [])];
}
