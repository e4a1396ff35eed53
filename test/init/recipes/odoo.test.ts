/**
 * `init --erp odoo` against fixture tables in Odoo 16/17's published layout on PostgreSQL
 * (product_product, product_template with its jsonb name, stock_quant, stock_location with
 * parent_path, stock_warehouse). Odoo itself is not installed here: these tables were written for
 * the test, not copied from Odoo.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureBuilt } from '../../cli/support.js';
import { useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { FILLERS, missingTables, recipeStory, type RecipeFixture } from './support.js';

const pgService = await requireService('postgres');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const schema = `odoo_fixture_${Math.random().toString(36).slice(2, 8)}`;
const empty = `${schema}_empty`;

const NOW = `(now() AT TIME ZONE 'UTC')`;
/** The fixture's rows were written before the lookback of 5 minutes: an incremental read sees only what the steps change. */
const PAST = `(now() AT TIME ZONE 'UTC' - interval '1 hour')`;
const LAYOUT = `
CREATE TABLE stock_location (id serial PRIMARY KEY, name varchar NOT NULL, complete_name varchar, location_id integer REFERENCES stock_location(id),
  parent_path varchar, usage varchar NOT NULL, active boolean DEFAULT true, create_date timestamp, write_date timestamp);
CREATE TABLE stock_warehouse (id serial PRIMARY KEY, name varchar NOT NULL, code varchar(5) NOT NULL, view_location_id integer NOT NULL REFERENCES stock_location(id),
  lot_stock_id integer NOT NULL REFERENCES stock_location(id), active boolean DEFAULT true, create_date timestamp, write_date timestamp);
CREATE TABLE product_template (id serial PRIMARY KEY, name jsonb NOT NULL, default_code varchar, type varchar NOT NULL DEFAULT 'product', list_price numeric,
  sale_ok boolean DEFAULT true, active boolean DEFAULT true, create_date timestamp, write_date timestamp);
CREATE TABLE product_product (id serial PRIMARY KEY, product_tmpl_id integer NOT NULL REFERENCES product_template(id) ON DELETE CASCADE, default_code varchar,
  barcode varchar UNIQUE, active boolean DEFAULT true, combination_indices varchar, create_date timestamp, write_date timestamp);
CREATE TABLE stock_quant (id serial PRIMARY KEY, product_id integer NOT NULL REFERENCES product_product(id), location_id integer NOT NULL REFERENCES stock_location(id),
  quantity numeric NOT NULL DEFAULT 0, reserved_quantity numeric NOT NULL DEFAULT 0, in_date timestamp, create_date timestamp, write_date timestamp)`;

// Locations: a view per warehouse, its stock below it (and a shelf below that), customers outside.
const LOCATIONS = `
INSERT INTO stock_location (id, name, complete_name, location_id, parent_path, usage, create_date, write_date) VALUES
  (1, 'Physical Locations', 'Physical Locations', NULL, '1/', 'view', ${PAST}, ${PAST}),
  (2, 'WH', 'WH', 1, '1/2/', 'view', ${PAST}, ${PAST}),
  (3, 'Stock', 'WH/Stock', 2, '1/2/3/', 'internal', ${PAST}, ${PAST}),
  (4, 'Shelf 1', 'WH/Stock/Shelf 1', 3, '1/2/3/4/', 'internal', ${PAST}, ${PAST}),
  (5, 'Customers', 'Partners/Customers', NULL, '5/', 'customer', ${PAST}, ${PAST}),
  (6, 'W2', 'W2', 1, '1/6/', 'view', ${PAST}, ${PAST}),
  (7, 'Stock', 'W2/Stock', 6, '1/6/7/', 'internal', ${PAST}, ${PAST});
INSERT INTO stock_warehouse (name, code, view_location_id, lot_stock_id, create_date, write_date) VALUES
  ('San Francisco', 'WH', 2, 3, ${PAST}, ${PAST}), ('Second', 'W2', 6, 7, ${PAST}, ${PAST})`;

/** A template with one variant, and its quants as [location, quantity]. */
function article(id: number, code: string, name: string, price: string, barcode: string | null, quants: [number, number][], active = true): string {
  const lines = [
    `INSERT INTO product_template (id, name, default_code, list_price, active, create_date, write_date) VALUES (${id}, '${JSON.stringify({ en_US: name })}', '${code}', ${price}, ${active}, ${PAST}, ${PAST})`,
    `INSERT INTO product_product (id, product_tmpl_id, default_code, barcode, active, create_date, write_date) VALUES (${id}, ${id}, '${code}', ${barcode ? `'${barcode}'` : 'NULL'}, ${active}, ${PAST}, ${PAST})`,
    ...quants.map(([loc, q]) => `INSERT INTO stock_quant (product_id, location_id, quantity, in_date, create_date, write_date) VALUES (${id}, ${loc}, ${q}, ${PAST}, ${PAST}, ${PAST})`),
  ];
  return lines.join(';\n');
}

const DATA = [
  article(1, 'FURN_0001', 'Office Chair', '70.00', '4006381333931', [[3, 10], [4, 2.5], [7, 100], [5, 3]]),
  article(2, 'FURN_0002', 'Desk Lamp', '19.90', '4006381333948', [[3, 4]]),
  article(3, 'FURN_0003', 'Cabinet', '120.50', null, []),
  article(4, 'FURN_0004', 'Old Stool', '15.00', '4006381333955', [[3, 1]], false),
  ...FILLERS.map((f, i) => article(100 + i, f.code, f.name, String(f.price), null, f.quantity ? [[3, f.quantity]] : [])),
].join(';\n');

async function exec(sql: string, inSchema = schema): Promise<void> {
  const c = new pg.Client({ host: pgService.host, port: pgService.port, user: 'postgres', database: 'test' });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${inSchema}`);
    for (const statement of sql.split(/;\n/)) if (statement.trim()) await c.query(statement);
  } finally {
    await c.end();
  }
}

const fixture: RecipeFixture = {
  erp: 'odoo',
  initFlags: ['--db-url', `postgres://postgres@${pgService.host}:${pgService.port}/test`, '--db-schema', schema],
  exec,
  articles: {
    // 10 + 2.5 in WH's stock and shelf; W2 and the customers do not count.
    FURN_0001: { name: 'Office Chair', price: 70, quantity: 12.5, ean: '4006381333931', status: 1 },
    FURN_0002: { name: 'Desk Lamp', price: 19.9, quantity: 4, ean: '4006381333948', status: 1 },
    FURN_0003: { name: 'Cabinet', price: 120.5, quantity: 0, ean: '', status: 1 },
    FURN_0004: { name: 'Old Stool', price: 15, quantity: 1, ean: '4006381333955', status: 0 },
  },
  steps: {
    price: { sql: `UPDATE product_template SET list_price = 65.00, write_date = ${NOW} WHERE id = 1`, code: 'FURN_0001', newPrice: 65 },
    stock: { sql: `UPDATE stock_quant SET quantity = 7, write_date = ${NOW} WHERE product_id = 2 AND location_id = 3`, code: 'FURN_0002', quantity: 7 },
    eanCleared: { sql: `UPDATE product_product SET barcode = NULL, write_date = ${NOW} WHERE id = 2`, code: 'FURN_0002' },
    // Odoo unlinks quants that reach 0 (stock.quant._unlink_zero_quants): the row and its time are gone.
    childDeleted: { sql: 'DELETE FROM stock_quant WHERE product_id = 4', code: 'FURN_0004' },
    codeChanged: { sql: `UPDATE product_product SET default_code = 'FURN_0033', write_date = ${NOW} WHERE id = 3`, from: 'FURN_0003', to: 'FURN_0033' },
  },
};

describe.skipIf(!pgService.available)('init --erp odoo against Odoo-layout fixture tables (PostgreSQL)', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    await exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE;\nCREATE SCHEMA ${schema};\nCREATE SCHEMA ${empty}`, 'public');
    await exec(`${LAYOUT};\n${LOCATIONS};\n${DATA}`);
    await exec('CREATE TABLE product_product (id serial PRIMARY KEY, default_code varchar)', empty);
  });
  afterAll(async () => {
    await exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE;\nDROP SCHEMA IF EXISTS ${empty} CASCADE`, 'public');
  });

  it('writes the config from the live tables, syncs every article as Odoo holds it, and follows a price, stock, EAN, deleted quant and changed code', async () => {
    await recipeStory(fixture, sandbox);
  });

  it('stops before writing anything when the database lacks the tables, naming each', async () => {
    await missingTables('odoo', ['--db-url', `postgres://postgres@${pgService.host}:${pgService.port}/test`, '--db-schema', empty], sandbox, ['product_template', 'stock_quant', 'product_product.barcode', `schema ${empty}`]);
  });
});
