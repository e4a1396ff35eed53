/**
 * The orders pull init can write (`--orders-pull`): shop orders into two staging tables shopsync
 * creates in the ERP database, `shopsync_orders` (one row per order, unique on `orders_id`) and
 * `shopsync_order_lines` (unique on `orders_id, pos`). Never the ERP's own sale tables: the ERP (or
 * a person) takes the orders from there into its own documents, so a shopsync upsert can never
 * overwrite an order the ERP has already processed. The columns are the shop's own names, so the
 * mapping needs no guessing; who owns which staging column is a later issue's concern.
 */
import { openSqlWriter, type ConnectionInput, type ConnectionOrigin } from '../erp/index.js';
import type { Logger } from '../log.js';
import type { SqlKind } from './cursor.js';
import { schemaLine } from './render.js';

/** The staging tables, their keys, and the mapping's list field that fills the lines. */
export const ORDER_STAGING = { table: 'shopsync_orders', key: 'orders_id', lines: 'shopsync_order_lines', lineKey: ['orders_id', 'pos'], linesField: 'lines' } as const;

/** The pipeline and mapping name. */
export const ORDERS_PULL_NAME = 'orders-to-erp';

type ColumnType = 'id' | 'text' | 'money' | 'time';
const ORDER_COLUMNS: readonly (readonly [string, ColumnType])[] = [
  ['orders_id', 'id'], ['customers_id', 'id'], ['date_purchased', 'time'], ['orders_status', 'id'], ['payment_method', 'text'], ['shipping_method', 'text'], ['currency', 'text'],
  ['total', 'money'], ['customers_email_address', 'text'], ['billing_name', 'text'], ['billing_company', 'text'], ['billing_street', 'text'], ['billing_postcode', 'text'], ['billing_city', 'text'], ['billing_country', 'text'],
  ['delivery_name', 'text'], ['delivery_street', 'text'], ['delivery_postcode', 'text'], ['delivery_city', 'text'], ['delivery_country', 'text'],
];
const LINE_COLUMNS: readonly (readonly [string, ColumnType])[] = [['orders_id', 'id'], ['pos', 'id'], ['products_model', 'text'], ['products_name', 'text'], ['quantity', 'money'], ['products_price', 'money'], ['products_tax', 'money']];

function sqlType(kind: SqlKind, t: ColumnType): string {
  if (kind === 'sqlite') return t === 'id' ? 'INTEGER' : t === 'money' ? 'NUMERIC' : 'TEXT';
  if (t === 'id') return 'bigint';
  if (t === 'money') return 'decimal(16,4)';
  return t === 'time' ? (kind === 'postgres' ? 'timestamp' : 'datetime') : 'varchar(255)';
}

function quote(kind: SqlKind, name: string): string {
  return kind === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

/** `CREATE TABLE IF NOT EXISTS` of both staging tables, each with its primary key (the sink upserts on it). */
export function stagingDdl(kind: SqlKind): string[] {
  const table = (name: string, columns: typeof ORDER_COLUMNS, key: readonly string[]) =>
    `CREATE TABLE IF NOT EXISTS ${quote(kind, name)} (${columns.map(([c, t]) => `${quote(kind, c)} ${sqlType(kind, t)}${key.includes(c) ? ' NOT NULL' : ''}`).join(', ')}, PRIMARY KEY (${key.map((k) => quote(kind, k)).join(', ')}))`;
  return [table(ORDER_STAGING.table, ORDER_COLUMNS, [ORDER_STAGING.key]), table(ORDER_STAGING.lines, LINE_COLUMNS, ORDER_STAGING.lineKey)];
}

/** Create the staging tables in the ERP database (nothing happens to tables that exist). */
export async function createStaging(kind: SqlKind, connection: ConnectionInput, ctx: { logger: Logger; baseDir: string; origin?: ConnectionOrigin }): Promise<void> {
  const driver = await openSqlWriter(connection, ctx);
  try {
    for (const statement of stagingDdl(kind)) await driver.query(statement, []);
  } finally {
    await driver.close();
  }
}

/** The pull pipeline of the config. */
export function ordersPipeline(): Record<string, unknown> {
  return {
    name: ORDERS_PULL_NAME,
    direction: 'pull',
    resource: 'orders',
    mapping: `mappings/${ORDERS_PULL_NAME}.yaml`,
    sink: { connection: 'erp', table: ORDER_STAGING.table, key: ORDER_STAGING.key, children: [{ field: ORDER_STAGING.linesField, table: ORDER_STAGING.lines, key: [...ORDER_STAGING.lineKey], parentKey: ORDER_STAGING.key }] },
  };
}

/** The mapping of the pull: shop order fields into the staging columns of the same names. */
export function renderOrdersMapping(dir: string): string {
  return `${schemaLine(dir, 'mapping.schema.json')}
# Shop orders → the staging tables ${ORDER_STAGING.table} and ${ORDER_STAGING.lines}, written by \`shopsync init --orders-pull\`.
# shopsync created both tables in the ERP database; the ERP takes the orders from there into its own
# documents. A re-read order is upserted by orders_id, its lines replaced, so never point this at the ERP's own sale tables.
name: ${ORDERS_PULL_NAME}
description: Shop orders with lines into shopsync's staging tables
direction: shop-to-erp
source: { resource: orders }
target: { erp: ${ORDER_STAGING.table}, required: [orders_id, date_purchased] }
key: orders_id
fields:
  orders_id: { from: orders_id, type: integer }
  customers_id: { from: customers_id, type: integer }
  date_purchased: { from: date_purchased, type: datetime, output_format: "YYYY-MM-DD HH:mm:ss" }
  orders_status: { from: orders_status, type: integer }
  payment_method: payment_method
  shipping_method: shipping_method
  currency: { from: currency, default: EUR }
  total: { from: ot_total, type: decimal, locale: point }
  customers_email_address: billing.email_address
  billing_name: { template: "{billing.firstname} {billing.lastname}", trim: true }
  billing_company: billing.company
  billing_street: billing.street_address
  billing_postcode: billing.postcode
  billing_city: billing.city
  billing_country: billing.country_iso_code_2
  delivery_name: { template: "{delivery.firstname} {delivery.lastname}", trim: true }
  delivery_street: delivery.street_address
  delivery_postcode: delivery.postcode
  delivery_city: delivery.city
  delivery_country: delivery.country_iso_code_2
  ${ORDER_STAGING.linesField}:
    each: products
    fields:
      orders_id: { from: $root.orders_id, type: integer }
      pos: { from: $index, type: integer }
      products_model: products_model
      products_name: products_name
      quantity: { from: quantity, type: decimal, locale: point }
      products_price: { from: products_price, type: decimal, locale: point }
      products_tax: { from: products_tax, type: decimal, locale: point }
`;
}
