/**
 * `shopsync init` on tables laid out as real ERPs lay them out (fixtures written here after the
 * published layouts, not copied schema files): Tryton (product_product.code + product_template,
 * write_date NULL until the first edit, on SQLite, PostgreSQL and MariaDB), Odoo (default_code,
 * write_date, PostgreSQL), ERPNext (tabItem item_code, modified, creation, MariaDB) and Dolibarr
 * (llx_product ref, tms, datec, MariaDB). init picks the change column over the creation date (the
 * latest of several through GREATEST), the ERP's article number as products_model beside the
 * table's stable id as the key (issue 46), writes onMissing: deactivate with a complete schedule, and
 * the config it writes syncs names and models into the sandbox; a changed article number renames
 * the same shop product, and the complete read finds nothing gone.
 * A products pipeline without a name is refused record by record before anything is written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireService, type ServiceProbe } from '../support/services.js';
import { useSandbox } from '../support/sandbox.js';
import { ensureBuilt, runCli, shopProducts, tempDir } from '../cli/support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const suffix = Math.random().toString(36).slice(2, 8);

/** One ERP database kind: its column types, how to run statements in it, and the init flags that reach it. */
interface Db {
  readonly name: 'SQLite' | 'PostgreSQL' | 'MariaDB';
  readonly available: boolean;
  readonly types: { readonly text: string; readonly money: string; readonly time: string; readonly flag: string; readonly yes: string; readonly no: string };
  exec(dir: string, sql: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

function sqlite(): Db {
  return {
    name: 'SQLite',
    available: true,
    types: { text: 'TEXT', money: 'TEXT', time: 'TEXT', flag: 'INTEGER', yes: '1', no: '0' },
    async exec(dir, sql) {
      const db = new Database(join(dir, 'erp.sqlite'));
      try {
        for (const s of sql) db.exec(s);
      } finally {
        db.close();
      }
      return ['--sqlite', 'erp.sqlite'];
    },
    close: async () => {},
  };
}

function postgres(s: ServiceProbe): Db {
  const schemas: string[] = [];
  let client: pg.Client | undefined;
  return {
    name: 'PostgreSQL',
    available: s.available,
    types: { text: 'varchar(120)', money: 'numeric(16,4)', time: 'timestamp', flag: 'boolean', yes: 'true', no: 'false' },
    async exec(dir, sql) {
      // A schema per test, named after its folder, so the tables keep the ERP's own names.
      const schema = `init_erp_${suffix}_${dir.slice(-6).replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
      if (!client) {
        client = new pg.Client({ host: s.host, port: s.port, user: s.user, database: s.database });
        await client.connect();
      }
      if (!schemas.includes(schema)) {
        schemas.push(schema);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      }
      for (const q of sql) await client.query(`SET search_path TO ${schema}; ${q}`);
      return ['--db-url', `postgres://${s.user}@${s.host}:${s.port}/${s.database}`, '--db-schema', schema];
    },
    async close() {
      for (const schema of schemas) await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client?.end();
    },
  };
}

function mariadb(s: ServiceProbe): Db {
  const databases: string[] = [];
  let conn: mysql.Connection | undefined;
  return {
    name: 'MariaDB',
    available: s.available,
    types: { text: 'varchar(120)', money: 'decimal(16,4)', time: 'datetime(6)', flag: 'tinyint(1)', yes: '1', no: '0' },
    async exec(dir, sql) {
      // A database per test: ERPNext's tabItem and Dolibarr's llx_product keep their names.
      const database = `init_erp_${suffix}_${dir.slice(-6).replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
      conn ??= await mysql.createConnection({ host: s.host, port: s.port, user: s.user });
      if (!databases.includes(database)) {
        databases.push(database);
        await conn.query(`CREATE DATABASE IF NOT EXISTS ${database}`);
      }
      await conn.query(`USE ${database}`);
      for (const q of sql) await conn.query(q);
      return ['--db-url', `mysql://${s.user}@${s.host}:${s.port}/${database}`];
    },
    async close() {
      for (const d of databases) await conn?.query(`DROP DATABASE IF EXISTS ${d}`);
      await conn?.end();
    },
  };
}

const sqliteDb = sqlite();
const pgDb = postgres(pgService);
const myDb = mariadb(myService);
afterAll(async () => {
  for (const d of [sqliteDb, pgDb, myDb]) await d.close();
});

const shopFlags = () => ['--shop-url', sandbox.url, '--shop-token', sandbox.token];
/** `2026-02-01 10:00:00` plus `minutes`. */
const at = (minutes: number) => new Date(Date.UTC(2026, 1, 1, 10, minutes)).toISOString().slice(0, 19).replace('T', ' ');
const N = 30;
const range = (n: number) => Array.from({ length: n }, (_, k) => k + 1);
/** The config comment lines joined into one text. */
const comment = (config: string) => config.split('\n').filter((l) => l.startsWith('# ')).map((l) => l.slice(2)).join(' ');
const nameOf = (p: Record<string, unknown> | undefined) => (p?.languages as Record<string, Record<string, unknown>> | undefined)?.de?.products_name;

/** Tryton's two tables: the variant holds the code, the template the name and price; write_date stays NULL until a row is edited. */
function trytonTables(db: Db, prefix: string): string[] {
  const { text, money, time, flag, yes } = db.types;
  const templates = range(N).map((i) => `(${i}, 'Tryton ${prefix} ${i}', ${i}.5, ${yes}, '${at(0)}', ${i % 3 === 0 ? 'NULL' : `'${at(i)}'`})`);
  const variants = range(N).map((i) => `(${i}, ${i}, '${prefix}-${i}', ${yes}, 1, 1, '${at(0)}', ${i % 2 === 0 ? 'NULL' : `'${at(i)}'`})`);
  return [
    `CREATE TABLE product_template (id INTEGER PRIMARY KEY, name ${text} NOT NULL, list_price ${money}, active ${flag} NOT NULL, create_date ${time} NOT NULL, write_date ${time} NULL)`,
    `CREATE TABLE product_product (id INTEGER PRIMARY KEY, template INTEGER NOT NULL, code ${text}, active ${flag} NOT NULL, create_uid INTEGER, write_uid INTEGER, create_date ${time} NOT NULL, write_date ${time} NULL)`,
    `INSERT INTO product_template VALUES ${templates.join(', ')}`,
    `INSERT INTO product_product VALUES ${variants.join(', ')}`,
  ];
}

const TRYTON_QUERY = 'SELECT p.id, p.code, t.name, t.list_price, p.active, p.create_date, p.write_date, t.create_date AS template_create_date, t.write_date AS template_write_date FROM product_product p JOIN product_template t ON t.id = p.template';

describe.each([sqliteDb, pgDb, myDb])('shopsync init on Tryton tables in $name (spawned)', (db) => {
  const prefix = `TR${db.name.slice(0, 2).toUpperCase()}`;

  it.skipIf(!db.available)('takes code as products_model, the latest of both write_dates as the cursor, writes onMissing: deactivate, and the config syncs names, renames and a changed code', { timeout: 240_000 }, async () => {
    const dir = tempDir('shopsync-init-erp-');
    const flags = await db.exec(dir, trytonTables(db, prefix));
    const init = await runCli(['init', '--yes', ...shopFlags(), ...flags, '--query', TRYTON_QUERY, '--dry-run-records', '2'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout, init.stdout).toMatch(/ code +→ products_model/);
    expect(init.stdout).toContain('cursor: shopsync_changed (write_date and template_write_date look like change timestamps: a row counts as changed when any of them moves');
    expect(init.stdout).not.toContain('the only timestamp');
    expect(init.stdout).toContain('dry run of the first 2 record(s): 2 would be created');

    const configText = readFileSync(join(dir, 'shopsync.yaml'), 'utf8');
    const config = parse(configText);
    const greatest = db.name === 'SQLite' ? 'max(' : 'GREATEST(';
    expect(config.pipelines[0]).toMatchObject({ options: { onMissing: 'deactivate' }, completeSchedule: expect.any(String), source: { cursor: 'shopsync_changed', key: 'id' } });
    expect(config.pipelines[0].source.query).toContain(`${greatest}COALESCE(`);
    expect(config.pipelines[0].options.massDelete).toBeUndefined();
    expect(comment(configText)).toContain('Records are kept by the ERP\'s stable id id, so a changed code renames the shop product');
    const mapping = parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8'));
    expect(mapping.shop_key).toBeUndefined();
    expect(mapping).toMatchObject({ key: { surrogate: 'id', natural: 'code' }, fields: { products_model: { from: 'code', required: true }, 'languages.de.products_name': { from: 'name' }, products_price: { from: 'list_price' }, products_status: { from: 'active' } } });

    const first = await runCli(['sync', 'products', '--json'], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const shop = await shopProducts(sandbox);
    expect(range(N).map((i) => nameOf(shop.get(`${prefix}-${i}`)))).toEqual(range(N).map((i) => `Tryton ${prefix} ${i}`));

    // A rename moves only the template's write_date (this row's variant was never edited): GREATEST sees it.
    await db.exec(dir, [`UPDATE product_template SET name = 'Umbenannt', write_date = '2026-03-01 09:00:00' WHERE id = 4`]);
    const rename = await runCli(['sync', 'products', '--json'], { cwd: dir });
    expect(JSON.parse(rename.stdout)).toMatchObject({ status: 'succeeded', counts: { read: 1, updated: 1 } });
    expect(nameOf((await shopProducts(sandbox)).get(`${prefix}-4`))).toBe('Umbenannt');

    // A changed code renames the product: the same shop product takes it (Tryton's id is the key), and the complete read finds nothing gone.
    const seven = (await shopProducts(sandbox)).get(`${prefix}-7`)?.products_id;
    await db.exec(dir, [`UPDATE product_product SET code = '${prefix}-NEU', write_date = '2026-03-01 09:05:00' WHERE id = 7`]);
    const complete = await runCli(['sync', 'products', '--complete', '--json'], { cwd: dir });
    expect(complete.code, complete.stdout + complete.stderr).toBe(0);
    expect(JSON.parse(complete.stdout)).toMatchObject({ counts: { updated: 1, created: 0 }, missing: { action: 'deactivate', candidates: 0 } });
    const after = await shopProducts(sandbox);
    expect(after.has(`${prefix}-7`)).toBe(false);
    expect([after.get(`${prefix}-NEU`)?.products_id, Number(after.get(`${prefix}-NEU`)?.products_status), nameOf(after.get(`${prefix}-NEU`))]).toEqual([seven, 1, `Tryton ${prefix} 7`]);
  });

  it.skipIf(!db.available)('refuses every product of product_product alone (no name there), active or not, before anything is written, and says how to fix it', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-erp-');
    const flags = await db.exec(dir, [...trytonTables(db, `${prefix}X`), `UPDATE product_product SET active = ${db.types.no} WHERE id <= 3`]);
    const init = await runCli(['init', '--yes', ...shopFlags(), ...flags, '--table', 'product_product', '--dry-run-records', '4'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(1);
    expect(init.stdout).toContain('missing: products are never created without languages.de.products_name');
    expect(init.stdout).toContain('dry run of the first 4 record(s): 0 would be created');
    expect(init.stdout.match(/REFUSED \[GUARD_CREATE_WITHOUT_NAME\] products are never created without `languages.<language>.products_name` \(got none\)/g), init.stdout).toHaveLength(4);
    const sync = await runCli(['sync', 'products', '--json'], { cwd: dir });
    expect(sync.code).not.toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ counts: { created: 0, deadLettered: N } });
    const shop = await shopProducts(sandbox);
    expect(range(N).filter((i) => shop.has(`${prefix}X-${i}`))).toEqual([]);
  });
});

describe('shopsync init on Odoo tables in PostgreSQL (spawned)', () => {
  it.skipIf(!pgDb.available)('takes default_code and barcode, the write_dates of variant and template, and syncs the names', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-erp-');
    const { text, money, time } = pgDb.types;
    const flags = await pgDb.exec(dir, [
      `CREATE TABLE product_template (id serial PRIMARY KEY, name ${text} NOT NULL, list_price ${money}, sale_ok boolean, create_date ${time}, write_date ${time})`,
      `CREATE TABLE product_product (id serial PRIMARY KEY, product_tmpl_id integer NOT NULL, default_code ${text}, barcode ${text}, active boolean, create_uid integer, write_uid integer, create_date ${time}, write_date ${time})`,
      `INSERT INTO product_template (name, list_price, sale_ok, create_date, write_date) SELECT 'Odoo ' || i, i + 0.99, true, '${at(0)}', '${at(0)}'::timestamp + i * interval '1 minute' FROM generate_series(1, 6) i`,
      `INSERT INTO product_product (product_tmpl_id, default_code, barcode, active, create_date, write_date) SELECT i, 'OD-' || i, '400638133393' || i, true, '${at(0)}', '${at(0)}'::timestamp + i * interval '2 minute' FROM generate_series(1, 6) i`,
    ]);
    const query = 'SELECT p.id, p.default_code, p.barcode, t.name, t.list_price, p.active, p.create_date, p.write_date, t.write_date AS template_write_date FROM product_product p JOIN product_template t ON t.id = p.product_tmpl_id';
    const init = await runCli(['init', '--yes', ...shopFlags(), ...flags, '--query', query, '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('cursor: shopsync_changed (write_date and template_write_date look like change timestamps');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'));
    expect(config.pipelines[0]).toMatchObject({ options: { onMissing: 'deactivate' }, source: { key: 'id', cursor: 'shopsync_changed' } });
    expect(parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8')).fields).toMatchObject({ products_model: { from: 'default_code' }, products_ean: { from: 'barcode' } });
    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    const shop = await shopProducts(sandbox);
    expect(range(6).map((i) => [shop.get(`OD-${i}`)?.products_ean, nameOf(shop.get(`OD-${i}`))])).toEqual(range(6).map((i) => [`400638133393${i}`, `Odoo ${i}`]));
  });
});

describe('shopsync init on ERPNext and Dolibarr tables in MariaDB (spawned)', () => {
  it.skipIf(!myDb.available)('ERPNext tabItem: item_code as products_model, item_name as the name (not the docname `name`), modified as the cursor over creation', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-erp-');
    const rows = range(5).map((i) => `('EN-${i}', 'EN-${i}', 'ERPNext Artikel ${i}', ${i}.25, 0, '${at(0)}.000000', '${at(i)}.123456')`);
    const flags = await myDb.exec(dir, [
      'CREATE TABLE `tabItem` (name varchar(140) PRIMARY KEY, item_code varchar(140) NOT NULL, item_name varchar(140), standard_rate decimal(21,9), disabled int NOT NULL DEFAULT 0, creation datetime(6), modified datetime(6))',
      `INSERT INTO \`tabItem\` VALUES ${rows.join(', ')}`,
    ]);
    const init = await runCli(['init', '--yes', ...shopFlags(), ...flags, '--table', 'tabItem', '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('cursor: modified (modified looks like a change timestamp (creation only says when a row was created))');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'));
    expect(config.pipelines[0]).toMatchObject({ options: { onMissing: 'deactivate' }, completeSchedule: expect.any(String), source: { cursor: 'modified', key: 'item_code' } });
    const mapping = parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8'));
    // No column says "for sale": the rule that makes a returning product active again is a constant.
    expect(mapping.fields).toMatchObject({ products_model: { from: 'item_code', required: true }, 'languages.de.products_name': { from: 'item_name' }, products_price: { from: 'standard_rate' }, products_status: { value: 1 } });
    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    const shop = await shopProducts(sandbox);
    expect(range(5).map((i) => nameOf(shop.get(`EN-${i}`)))).toEqual(range(5).map((i) => `ERPNext Artikel ${i}`));
  });

  it.skipIf(!myDb.available)('Dolibarr llx_product: ref as products_model, label as the name, tms as the cursor over datec', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-erp-');
    const rows = range(5).map((i) => `(${i}, 'DB-${i}', 'Dolibarr Artikel ${i}', ${i}.75, 1, '${at(0)}', '${at(i)}')`);
    const flags = await myDb.exec(dir, [
      'CREATE TABLE llx_product (rowid int AUTO_INCREMENT PRIMARY KEY, ref varchar(128) NOT NULL, label varchar(255) NOT NULL, price double(24,8), tosell tinyint DEFAULT 1, datec datetime, tms timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(), fk_user_modif int)',
      `INSERT INTO llx_product (rowid, ref, label, price, tosell, datec, tms) VALUES ${rows.join(', ')}`,
    ]);
    const init = await runCli(['init', '--yes', ...shopFlags(), ...flags, '--table', 'llx_product', '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('cursor: tms (tms looks like a change timestamp (datec only says when a row was created))');
    expect(parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')).pipelines[0]).toMatchObject({ options: { onMissing: 'deactivate' }, source: { cursor: 'tms', key: 'rowid' } });
    expect(parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8')).fields).toMatchObject({ products_model: { from: 'ref' }, 'languages.de.products_name': { from: 'label' }, products_status: { from: 'tosell' } });
    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    const shop = await shopProducts(sandbox);
    expect(range(5).map((i) => nameOf(shop.get(`DB-${i}`)))).toEqual(range(5).map((i) => `Dolibarr Artikel ${i}`));
  });
});
