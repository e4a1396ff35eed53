/**
 * `init --erp erpnext` against fixture tables in ERPNext's published layout on MariaDB (Frappe's
 * `tab<DocType>` tables: tabItem, tabItem Price, tabBin, tabWarehouse with lft/rgt, tabItem
 * Barcode). ERPNext itself is not installed here: these tables were written for the test, not
 * copied from Frappe's schema.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureBuilt } from '../../cli/support.js';
import { useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { FILLERS, missingTables, recipeStory, type RecipeFixture } from './support.js';

const my = await requireService('mariadb');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const database = `erpnext_fixture_${Math.random().toString(36).slice(2, 8)}`;
const empty = `${database}_empty`;

/** The fixture's rows were written before the lookback of 5 minutes; the steps write now. */
const PAST = 'NOW(6) - INTERVAL 1 HOUR';
const NOW = 'NOW(6)';
// Frappe's standard columns (name, creation, modified, modified_by, owner, docstatus, idx) on every table.
const STD = 'name varchar(140) NOT NULL PRIMARY KEY, creation datetime(6), modified datetime(6), modified_by varchar(140), owner varchar(140), docstatus int NOT NULL DEFAULT 0, idx int NOT NULL DEFAULT 0';
const CHILD = 'parent varchar(140), parentfield varchar(140), parenttype varchar(140)';
const LAYOUT = `
CREATE TABLE \`tabWarehouse\` (${STD}, warehouse_name varchar(140), parent_warehouse varchar(140), is_group int NOT NULL DEFAULT 0, company varchar(140), lft int NOT NULL DEFAULT 0, rgt int NOT NULL DEFAULT 0, disabled int NOT NULL DEFAULT 0);
CREATE TABLE \`tabItem\` (${STD}, item_code varchar(140), item_name varchar(140), item_group varchar(140), stock_uom varchar(140), disabled int NOT NULL DEFAULT 0,
  has_variants int NOT NULL DEFAULT 0, variant_of varchar(140), is_stock_item int NOT NULL DEFAULT 1, is_sales_item int NOT NULL DEFAULT 1, description longtext);
CREATE TABLE \`tabItem Barcode\` (${STD}, ${CHILD}, barcode varchar(140), barcode_type varchar(140), uom varchar(140));
CREATE TABLE \`tabItem Price\` (${STD}, item_code varchar(140), item_name varchar(140), price_list varchar(140), selling int NOT NULL DEFAULT 0, buying int NOT NULL DEFAULT 0,
  currency varchar(140), price_list_rate decimal(21,9) NOT NULL DEFAULT 0, valid_from date, customer varchar(140));
CREATE TABLE \`tabBin\` (${STD}, item_code varchar(140), warehouse varchar(140), actual_qty decimal(21,9) NOT NULL DEFAULT 0, reserved_qty decimal(21,9) NOT NULL DEFAULT 0,
  projected_qty decimal(21,9) NOT NULL DEFAULT 0, stock_uom varchar(140), UNIQUE KEY unique_item_warehouse (item_code, warehouse))`;

const WAREHOUSES = `
INSERT INTO \`tabWarehouse\` (name, creation, modified, warehouse_name, parent_warehouse, is_group, company, lft, rgt) VALUES
  ('All Warehouses - SC', ${PAST}, ${PAST}, 'All Warehouses', NULL, 1, 'Shop Co', 1, 10),
  ('Stores - SC', ${PAST}, ${PAST}, 'Stores', 'All Warehouses - SC', 1, 'Shop Co', 2, 5),
  ('Shelf A - SC', ${PAST}, ${PAST}, 'Shelf A', 'Stores - SC', 0, 'Shop Co', 3, 4),
  ('Finished Goods - SC', ${PAST}, ${PAST}, 'Finished Goods', 'All Warehouses - SC', 0, 'Shop Co', 6, 7),
  ('Transit - SC', ${PAST}, ${PAST}, 'Transit', 'All Warehouses - SC', 0, 'Shop Co', 8, 9)`;

let seq = 0;
/** An item with its selling price, barcode and bins as [warehouse, quantity]. */
function item(code: string, name: string, price: string | null, barcode: string | null, bins: [string, number][], disabled = 0): string {
  const n = () => `'${code}-${++seq}'`;
  return [
    `INSERT INTO \`tabItem\` (name, creation, modified, item_code, item_name, item_group, stock_uom, disabled) VALUES ('${code}', ${PAST}, ${PAST}, '${code}', '${name}', 'Products', 'Nos', ${disabled})`,
    ...(price ? [`INSERT INTO \`tabItem Price\` (name, creation, modified, item_code, item_name, price_list, selling, currency, price_list_rate) VALUES (${n()}, ${PAST}, ${PAST}, '${code}', '${name}', 'Standard Selling', 1, 'EUR', ${price})`,
      `INSERT INTO \`tabItem Price\` (name, creation, modified, item_code, item_name, price_list, buying, currency, price_list_rate) VALUES (${n()}, ${PAST}, ${PAST}, '${code}', '${name}', 'Standard Buying', 1, 'EUR', 1.5)`] : []),
    ...(barcode ? [`INSERT INTO \`tabItem Barcode\` (name, creation, modified, parent, parentfield, parenttype, idx, barcode, barcode_type) VALUES (${n()}, ${PAST}, ${PAST}, '${code}', 'barcodes', 'Item', 1, '${barcode}', 'EAN')`] : []),
    ...bins.map(([wh, q]) => `INSERT INTO \`tabBin\` (name, creation, modified, item_code, warehouse, actual_qty, projected_qty) VALUES (${n()}, ${PAST}, ${PAST}, '${code}', '${wh}', ${q}, ${q})`),
  ].join(';\n');
}

const DATA = [
  item('SKU-001', 'Espresso Machine', '249.000000000', '4006381333931', [['Shelf A - SC', 3], ['Finished Goods - SC', 40]]),
  item('SKU-002', 'Milk Jug', '12.500000000', '4006381333948', [['Shelf A - SC', 20]]),
  item('SKU-003', 'Tamper', '9.990000000', null, []),
  item('SKU-004', 'Descaler', '6.000000000', '4006381333955', [['Shelf A - SC', 5]], 1),
  // A template (has_variants) is not sold itself: its variants are.
  `INSERT INTO \`tabItem\` (name, creation, modified, item_code, item_name, has_variants) VALUES ('TPL-1', ${PAST}, ${PAST}, 'TPL-1', 'Mug (template)', 1)`,
  ...FILLERS.map((f) => item(f.code, f.name, String(f.price), null, f.quantity ? [['Shelf A - SC', f.quantity]] : [])),
].join(';\n');

async function exec(sql: string, db = database): Promise<void> {
  const c = await mysql.createConnection({ host: my.host, port: my.port, user: my.user, ...(db ? { database: db } : {}) });
  try {
    for (const statement of sql.split(/;\n/)) if (statement.trim()) await c.query(statement);
  } finally {
    await c.end();
  }
}

const url = (db: string) => `mysql://${my.user}@${my.host}:${my.port}/${db}`;

const fixture: RecipeFixture = {
  erp: 'erpnext',
  initFlags: ['--db-url', url(database), '--erp-param', 'warehouse=Stores - SC'],
  exec,
  articles: {
    // Stores - SC is a group: Shelf A below it counts, Finished Goods does not.
    'SKU-001': { name: 'Espresso Machine', price: 249, quantity: 3, ean: '4006381333931', status: 1 },
    'SKU-002': { name: 'Milk Jug', price: 12.5, quantity: 20, ean: '4006381333948', status: 1 },
    'SKU-003': { name: 'Tamper', price: 9.99, quantity: 0, ean: '', status: 1 },
    'SKU-004': { name: 'Descaler', price: 6, quantity: 5, ean: '4006381333955', status: 0 },
  },
  steps: {
    price: { sql: `UPDATE \`tabItem Price\` SET price_list_rate = 229, modified = ${NOW} WHERE item_code = 'SKU-001' AND price_list = 'Standard Selling'`, code: 'SKU-001', newPrice: 229 },
    stock: { sql: `UPDATE \`tabBin\` SET actual_qty = 17, modified = ${NOW} WHERE item_code = 'SKU-002'`, code: 'SKU-002', quantity: 17 },
    // Frappe saves the parent with its children: the removed barcode row goes, the item's modified moves.
    eanCleared: { sql: `DELETE FROM \`tabItem Barcode\` WHERE parent = 'SKU-002';\nUPDATE \`tabItem\` SET modified = ${NOW} WHERE name = 'SKU-002'`, code: 'SKU-002' },
    childDeleted: { sql: `DELETE FROM \`tabBin\` WHERE item_code = 'SKU-004'`, code: 'SKU-004' },
    // Frappe's rename_doc changes the name everywhere it is linked.
    codeChanged: { sql: `UPDATE \`tabItem\` SET name = 'SKU-033', item_code = 'SKU-033', modified = ${NOW} WHERE name = 'SKU-003';\nUPDATE \`tabItem Price\` SET item_code = 'SKU-033' WHERE item_code = 'SKU-003'`, from: 'SKU-003', to: 'SKU-033' },
  },
};

describe.skipIf(!my.available)('init --erp erpnext against ERPNext-layout fixture tables (MariaDB)', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    await exec(`CREATE DATABASE ${database} CHARACTER SET utf8mb4;\nCREATE DATABASE ${empty}`, '');
    await exec(`${LAYOUT};\n${WAREHOUSES};\n${DATA}`);
    await exec(`CREATE TABLE \`tabItem\` (${STD}, item_code varchar(140))`, empty);
  });
  afterAll(async () => {
    await exec(`DROP DATABASE IF EXISTS ${database};\nDROP DATABASE IF EXISTS ${empty}`, '');
  });

  it('writes the config from the live tables, syncs every item as ERPNext holds it, and follows a price, stock, barcode, deleted bin and renamed item', async () => {
    await recipeStory(fixture, sandbox);
  });

  it('stops before writing anything when the database lacks the tables, naming each', async () => {
    await missingTables('erpnext', ['--db-url', url(empty)], sandbox, ['tabBin', 'tabItem Price', 'tabItem.item_name', `database ${empty}`]);
  });
});
