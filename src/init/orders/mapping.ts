/** The mapping init writes for the orders pull: shop orders into the staging layout (layout.ts). */
import { FOLLOW_CHANGES_FIELD } from '../../follow/changes.js';
import { schemaLine } from '../render.js';
import { ADDRESSES_FIELD, CHANGES_FIELD, LINES_FIELD, ORDERS_PULL_NAME, type StagingLayout, type StagingTable } from './layout.js';

// One row per address block present: billing and delivery become rows of the addresses table
// (key orders_id, kind), so the ERP side reads both the same way. JSONata, because the declarative
// list rules build entries from one source array and an order has two address objects.
const ADDRESSES_EXPR = [
  '[["billing", "delivery"].($a := $lookup($$, $); $a ? {',
  '  "kind": $,',
  '  "name": $trim($join([$a.firstname, $a.lastname], " ")),',
  '  "firstname": $a.firstname, "lastname": $a.lastname, "company": $a.company,',
  '  "street": $a.street_address, "additional": $a.additional_address,',
  '  "postcode": $a.postcode, "city": $a.city, "state": $a.state,',
  '  "country": $a.country, "country_code": $a.country_iso_code_2,',
  '  "email": $a.email_address, "telephone": $a.telephone',
  '})]',
];

/**
 * The changes list of a pull with `follow:`: every change of the order so far (`_changes`, old and
 * new); the sink appends the rows whose (orders_id, seq) is new. detected_at is shopsync's ISO time,
 * written in UTC like the database's own stamps; history_at is the shop's time, as date_purchased.
 */
function changesRules(table: StagingTable): string {
  return `  # What changed in the shop after checkout (the pull's follow:), into ${table.name}: one row per
  # change, numbered per order (seq); the sink appends them and never rewrites one, so the ERP acts on
  # each (orders_id, seq) once. Never map status, imported_at or import_error here either.
  ${CHANGES_FIELD}:
    each: ${FOLLOW_CHANGES_FIELD}
    fields:
      orders_id: { from: $root.orders_id, type: integer }
      seq: { from: seq, type: integer }
      kind: kind                                   # status | cancelled | return | comment | tracking | address | items
      detected_at: { from: detected_at, type: datetime, format: iso, output_format: "YYYY-MM-DD HH:mm:ss", output_timezone: UTC }
      orders_status: { from: status, type: integer }   # the status after the change
      previous_status: { from: previous_status, type: integer }
      comment: comment
      history_at: { from: history_at, type: datetime, output_format: "YYYY-MM-DD HH:mm:ss" }
      tracking_code: tracking_code
      service_provider: service_provider
      field: field                                 # address: billing | delivery
`;
}

/** The mapping file's text. */
export function renderOrdersMapping(dir: string, layout: StagingLayout): string {
  return `${schemaLine(dir, 'mapping.schema.json')}
# Shop orders → shopsync's staging tables ${layout.orders.name}, ${layout.lines.name} and
# ${layout.addresses.name}${layout.changes ? ` (and ${layout.changes.name}, the changes of followed orders)` : ''}, written by \`shopsync init --orders-pull\` (docs/connectors.md
# "Orders into your ERP"). A re-read order updates its own row by orders_id; its lines and
# addresses are replaced. Never map status, imported_at, erp_reference or import_error: the ERP
# side sets them, and a column the mapping does not write is never touched by a re-delivery.
# shopsync_delivered_at is the database's (set on insert, moved by a trigger when a column here changed).
name: ${ORDERS_PULL_NAME}
description: Shop orders with lines and addresses into shopsync's staging tables
direction: shop-to-erp
source: { resource: orders }
target: { erp: ${layout.orders.name}, required: [orders_id, date_purchased] }
key: orders_id
fields:
  orders_id: { from: orders_id, type: integer }
  customers_id: { from: customers_id, type: integer }
  customers_email_address: { from: customers_email_address, trim: true }
  customers_name: customers_name
  date_purchased: { from: date_purchased, type: datetime, output_format: "YYYY-MM-DD HH:mm:ss" }
  shop_last_modified: { from: last_modified, type: datetime, output_format: "YYYY-MM-DD HH:mm:ss" }
  orders_status: { from: orders_status, type: integer }
  language_id: { from: language_id, type: integer }
  payment_method: payment_method
  shipping_method: shipping_method
  currency: { from: currency, default: EUR }
  tax_flag: { from: tax_flag, type: integer }          # 0 net prices, 1 gross, 2 tax-free
  subtotal: { from: ot_subtotal, type: decimal, locale: point }
  shipping: { from: ot_shipping, type: decimal, locale: point }
  tax: { from: ot_tax, type: decimal, locale: point }
  total: { from: ot_total, type: decimal, locale: point }
  comments: comments
  ${LINES_FIELD}:
    each: products
    fields:
      orders_id: { from: $root.orders_id, type: integer }
      pos: { from: $index, type: integer }
      products_id: { from: products_id, type: integer }
      products_model: products_model
      products_name: products_name
      quantity: { from: quantity, type: decimal, locale: point }
      products_price: { from: products_price, type: decimal, locale: point }
      products_tax: { from: products_tax, type: decimal, locale: point }
      final_price: { from: final_price, type: decimal, locale: point }
  ${ADDRESSES_FIELD}:
    expr: |-
${ADDRESSES_EXPR.map((line) => `      ${line}`).join('\n')}
${layout.changes ? changesRules(layout.changes) : ''}`;
}
