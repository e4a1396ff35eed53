/**
 * The orders pull init can write (`--orders-pull`): shop orders into a staging layout of shopsync's
 * own in the ERP database (layout.ts: orders, lines, addresses), never into the ERP's own sale
 * tables. The ERP side claims each order there and imports it through its own API
 * (docs/connectors.md "Orders into your ERP"; docs/erp/tryton.md for Tryton's proteus import).
 */
import { sqlSinkSchema } from '../../erp/index.js';
import { ADDRESSES_FIELD, CHANGES_FIELD, LINES_FIELD, ORDERS_PULL_NAME, OWNER_COLUMN, type StagingLayout } from './layout.js';

export { createStaging, missingColumns, NOW_SQL, stagingDdl } from './ddl.js';
export { ADDRESSES_FIELD, CHANGES_FIELD, DEFAULT_STAGING_SCHEMA, DELIVERED_COLUMN, LINES_FIELD, ORDERS_PULL_NAME, OWNER_COLUMN, stagingLayout, stagingTables, type StagingLayout, type StagingTable } from './layout.js';
export { renderOrdersMapping } from './mapping.js';

/**
 * Whether the SQL sink takes `ownerColumn:` (the sink refuses a row whose owner column names
 * someone else, issue 41 item 2). Asked of the schema itself, so the config init writes is valid
 * on every version and says it once the sink knows it.
 */
export function sinkTakesOwnerColumn(): boolean {
  return 'ownerColumn' in sqlSinkSchema.shape;
}

/** The pull pipeline of the config. */
export function ordersPipeline(layout: StagingLayout): Record<string, unknown> {
  const child = (field: string, table: { name: string; key: readonly string[] }) => ({ field, table: table.name, key: [...table.key], parentKey: 'orders_id' });
  return {
    name: ORDERS_PULL_NAME,
    direction: 'pull',
    resource: 'orders',
    mapping: `mappings/${ORDERS_PULL_NAME}.yaml`,
    sink: {
      connection: 'erp',
      table: layout.orders.name,
      key: 'orders_id',
      ...(sinkTakesOwnerColumn() ? { ownerColumn: OWNER_COLUMN } : {}),
      // The changes child is appended: a row under a new (orders_id, seq) is inserted, one already there is never rewritten (the ERP's marks on it stay).
      children: [child(LINES_FIELD, layout.lines), child(ADDRESSES_FIELD, layout.addresses), ...(layout.changes ? [{ ...child(CHANGES_FIELD, layout.changes), append: true }] : [])],
    },
  };
}
