/**
 * `init --erp dolibarr` against fixture tables in Dolibarr's published layout on MariaDB
 * (llx_product with its net price, barcode and tms, llx_entrepot, llx_product_stock). Dolibarr
 * itself is not installed here: these tables were written for the test, not copied from
 * Dolibarr's install scripts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, tempDir } from '../../cli/support.js';
import { shopEnv, useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { FILLERS, missingTables, recipeStory, type RecipeFixture } from './support.js';

const my = await requireService('mariadb');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const database = `dolibarr_fixture_${Math.random().toString(36).slice(2, 8)}`;
const empty = `${database}_empty`;

/** The fixture's rows were written before the lookback of 5 minutes; the steps write now (tms moves by itself on UPDATE). */
const PAST = 'NOW() - INTERVAL 1 HOUR';
const LAYOUT = `
CREATE TABLE llx_entrepot (rowid integer AUTO_INCREMENT PRIMARY KEY, ref varchar(255) NOT NULL, datec datetime, tms timestamp DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  entity integer NOT NULL DEFAULT 1, description text, lieu varchar(64), statut tinyint DEFAULT 1, fk_parent integer DEFAULT 0, UNIQUE KEY uk_entrepot_label (ref, entity));
CREATE TABLE llx_product (rowid integer AUTO_INCREMENT PRIMARY KEY, ref varchar(128) NOT NULL, entity integer NOT NULL DEFAULT 1, ref_ext varchar(255), datec datetime,
  tms timestamp DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, fk_parent integer DEFAULT 0, label varchar(255) NOT NULL, description text,
  price double(24,8) DEFAULT 0, price_ttc double(24,8) DEFAULT 0, price_base_type varchar(3) DEFAULT 'HT', tva_tx double(7,4), tosell tinyint DEFAULT 1, tobuy tinyint DEFAULT 1,
  fk_product_type integer DEFAULT 0, barcode varchar(180), fk_barcode_type integer, stock real, UNIQUE KEY uk_product_ref (ref, entity));
CREATE TABLE llx_product_stock (rowid integer AUTO_INCREMENT PRIMARY KEY, tms timestamp DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, fk_product integer NOT NULL,
  fk_entrepot integer NOT NULL, reel real, import_key varchar(14), UNIQUE KEY uk_product_stock (fk_product, fk_entrepot))`;

const WAREHOUSES = `INSERT INTO llx_entrepot (rowid, ref, datec, tms, lieu) VALUES (1, 'WH', ${PAST}, ${PAST}, 'Lyon'), (2, 'WH2', ${PAST}, ${PAST}, 'Paris')`;

let id = 0;
/** A product with its stock rows as [warehouse rowid, quantity]; type 1 is a service. */
function product(ref: string, label: string, price: number, barcode: string | null, stock: [number, number][], o: { tosell?: number; type?: number; entity?: number } = {}): string {
  const rowid = ++id;
  const total = stock.reduce((s, [, q]) => s + q, 0);
  return [
    `INSERT INTO llx_product (rowid, ref, entity, datec, tms, label, price, price_ttc, tva_tx, tosell, fk_product_type, barcode, fk_barcode_type, stock) VALUES
      (${rowid}, '${ref}', ${o.entity ?? 1}, ${PAST}, ${PAST}, '${label}', ${price}, ${price * 1.2}, 20, ${o.tosell ?? 1}, ${o.type ?? 0}, ${barcode ? `'${barcode}'` : 'NULL'}, ${barcode ? 2 : 'NULL'}, ${total})`,
    ...stock.map(([wh, q]) => `INSERT INTO llx_product_stock (tms, fk_product, fk_entrepot, reel) VALUES (${PAST}, ${rowid}, ${wh}, ${q})`),
  ].join(';\n');
}

const DATA = [
  product('PR-100', 'Bicycle Bell', 8.5, '4006381333931', [[1, 14], [2, 30]]),
  product('PR-101', 'Saddle', 39.9, '4006381333948', [[1, 6]]),
  product('PR-102', 'Pump', 24, null, []),
  product('PR-103', 'Old Lamp', 15, '4006381333955', [[1, 2]], { tosell: 0 }),
  // Not articles of the shop: a service, and a product of another company (multicompany entity 2).
  product('SRV-1', 'Repair hour', 50, null, [], { type: 1 }),
  product('PR-900', 'Other company', 1, null, [], { entity: 2 }),
  ...FILLERS.map((f) => product(f.code, f.name, f.price, null, f.quantity ? [[1, f.quantity]] : [])),
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
  erp: 'dolibarr',
  initFlags: ['--db-url', url(database)],
  exec,
  articles: {
    // WH only: the 30 in WH2 do not count.
    'PR-100': { name: 'Bicycle Bell', price: 8.5, quantity: 14, ean: '4006381333931', status: 1 },
    'PR-101': { name: 'Saddle', price: 39.9, quantity: 6, ean: '4006381333948', status: 1 },
    'PR-102': { name: 'Pump', price: 24, quantity: 0, ean: '', status: 1 },
    'PR-103': { name: 'Old Lamp', price: 15, quantity: 2, ean: '4006381333955', status: 0 },
  },
  steps: {
    price: { sql: "UPDATE llx_product SET price = 7.9, price_ttc = 9.48 WHERE ref = 'PR-100'", code: 'PR-100', newPrice: 7.9 },
    stock: { sql: 'UPDATE llx_product_stock SET reel = 4 WHERE fk_product = 2 AND fk_entrepot = 1', code: 'PR-101', quantity: 4 },
    eanCleared: { sql: "UPDATE llx_product SET barcode = NULL, fk_barcode_type = NULL WHERE ref = 'PR-101'", code: 'PR-101' },
    // A stock row deleted (as Dolibarr does when a warehouse's row is removed): no tms is left.
    childDeleted: { sql: 'DELETE FROM llx_product_stock WHERE fk_product = 4', code: 'PR-103' },
    codeChanged: { sql: "UPDATE llx_product SET ref = 'PR-122' WHERE ref = 'PR-102'", from: 'PR-102', to: 'PR-122' },
  },
};

describe.skipIf(!my.available)('init --erp dolibarr against Dolibarr-layout fixture tables (MariaDB)', { timeout: 600_000 }, () => {
  beforeAll(async () => {
    await exec(`CREATE DATABASE ${database} CHARACTER SET utf8mb4;\nCREATE DATABASE ${empty}`, '');
    await exec(`${LAYOUT};\n${WAREHOUSES};\n${DATA}`);
    await exec('CREATE TABLE llx_product (rowid integer AUTO_INCREMENT PRIMARY KEY, ref varchar(128) NOT NULL, label varchar(255))', empty);
  });
  afterAll(async () => {
    await exec(`DROP DATABASE IF EXISTS ${database};\nDROP DATABASE IF EXISTS ${empty}`, '');
  });

  it('writes the config from the live tables, syncs every product as Dolibarr holds it, and follows a price, stock, barcode, deleted stock row and changed ref', async () => {
    await recipeStory(fixture, sandbox);
  });

  it('stops before writing anything when the database lacks the tables, naming each', async () => {
    await missingTables('dolibarr', ['--db-url', url(empty)], sandbox, ['llx_product_stock', 'llx_entrepot', 'llx_product.price', `database ${empty}`]);
  });

  it('with --orders-pull, proposes following orders after checkout on the pull: written with the default statuses and said so, without a terminal', async () => {
    const dir = tempDir('shopsync-recipe-follow-');
    const init = await runCli(['init', '--yes', '--erp', 'dolibarr', '--db-url', url(database), '--orders-pull', '--no-verify'], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('follow: yes (until 4, 5, cancelled 4, returned 5, 14 days, every 1h) (not asked: the default; --follow no leaves it out)');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')) as { pipelines: { name: string; follow?: unknown }[] };
    expect(config.pipelines.find((p) => p.name === 'orders-to-erp')?.follow).toEqual({ every: '1h', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 });
    expect(config.pipelines.find((p) => p.name === 'products')?.follow).toBeUndefined();
  });

  it('refuses a parameter the recipe does not have, naming the ones it has', async () => {
    const init = await runCli(['init', '--yes', '--erp', 'dolibarr', '--db-url', url(database), '--erp-param', 'shelf=A1'], { cwd: tempDir('shopsync-recipe-'), env: shopEnv(sandbox) });
    expect(init.code).toBe(2);
    expect(init.stderr).toContain('--erp-param shelf: the Dolibarr recipe has no such parameter; it has warehouse (');
    expect(init.stderr).toContain('entity (the company (entity) of a multicompany installation');
  });
});
