/**
 * SQL lookups of a pull: shop orders placed in the sandbox are pulled into sale import tables, the
 * party found by the order's e-mail and each line's product by its code in the ERP's own tables
 * (`lookups:` with a query on an ERP connection). Each value is asked once per run; a code the ERP
 * does not know, or an e-mail two parties share, dead-letters its order with the lookup's code and
 * the value, never a silent null, and the retry after the ERP was fixed delivers it once. On SQLite,
 * PostgreSQL and MariaDB ERP databases.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, type ConnectionInput } from '../../../src/erp/index.js';
import type { SqlDriver } from '../../../src/erp/sql/driver.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { lookupConnections, type LookupConnections } from '../../../src/pipeline/lookups/index.js';
import { retryDeadLetters, runPipeline, type PipelineDefinitionInput } from '../../../src/pipeline/index.js';
import { requireService } from '../../support/services.js';
import { pushFixture, type PushFixture } from '../support.js';

const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const tag = `lookups_${randomBytes(4).toString('hex')}`;

const MAPPING = `
name: orders-into-sales
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale_in }
key: orders_id
fields:
  order_id: { from: orders_id, type: integer }
  party_id: { from: customers_email_address, lookup: party_by_email, type: integer }
  lines:
    each: products
    fields:
      order_id: { from: $root.orders_id, type: integer }
      pos: { from: $index, type: integer }
      product_id: { from: products_model, lookup: product_by_code, type: integer }
      qty: { from: quantity, type: decimal, locale: point }
`;
const SINK = { table: 'sale_in', key: 'order_id', children: [{ field: 'lines', table: 'sale_line_in', key: ['order_id', 'pos'], parentKey: 'order_id' }] };

/** The ERP database the lookups ask: products by code, parties by e-mail. */
interface ErpDb {
  readonly connection: ConnectionInput;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}
interface Backend {
  readonly name: string;
  readonly available: boolean;
  open(dir: string): Promise<ErpDb>;
}
const TABLES = ['CREATE TABLE product (id INTEGER PRIMARY KEY, code VARCHAR(40) NOT NULL)', 'CREATE TABLE party (id INTEGER PRIMARY KEY, email VARCHAR(100) NOT NULL)'];

const sqlite: Backend = {
  name: 'SQLite',
  available: true,
  async open(dir) {
    const file = join(dir, 'erp-master.sqlite');
    const db = new Database(file);
    for (const t of TABLES) db.exec(t);
    return { connection: { kind: 'sqlite', path: file }, exec: async (sql) => void db.exec(sql), close: async () => void db.close() };
  },
};
const postgres: Backend = {
  name: 'PostgreSQL',
  available: pgService.available,
  async open() {
    const admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE; CREATE SCHEMA ${tag}; SET search_path TO ${tag}`);
    for (const t of TABLES) await admin.query(t);
    return {
      connection: { kind: 'postgres', host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database, schema: tag },
      exec: async (sql) => void (await admin.query(sql)),
      async close() {
        await admin.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`);
        await admin.end();
      },
    };
  },
};
const mariadb: Backend = {
  name: 'MariaDB',
  available: myService.available,
  async open() {
    const admin = await mysql.createConnection({ host: myService.host, port: myService.port, user: myService.user });
    await admin.query(`DROP DATABASE IF EXISTS ${tag}`);
    await admin.query(`CREATE DATABASE ${tag}`);
    await admin.query(`USE ${tag}`);
    for (const t of TABLES) await admin.query(t);
    return {
      connection: { kind: 'mysql', host: myService.host, port: myService.port, user: myService.user, database: tag },
      exec: async (sql) => void (await admin.query(sql)),
      async close() {
        await admin.query(`DROP DATABASE IF EXISTS ${tag}`);
        await admin.end();
      },
    };
  },
};

function order(email: string, codes: readonly string[]): Record<string, unknown> {
  return {
    customers_id: 0,
    auto_stock: false,
    tax_flag: 0,
    billing: { firstname: 'Erika', lastname: 'Muster', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE', email_address: email },
    products: codes.map((c, i) => ({ products_model: c, products_name: `Artikel ${c}`, quantity: i + 1, products_price: 10 })),
  };
}

describe.each([sqlite, postgres, mariadb])('SQL lookups on $name', (backend) => {
  let f: PushFixture;
  let erp: ErpDb;
  let sinkDb: Database.Database;
  let sinkFile: string;
  /** Statements the lookups ran on the ERP, counted through the drivers they opened. */
  let queries: number;

  beforeEach(async (ctx) => {
    if (!backend.available) return ctx.skip();
    f = await pushFixture();
    erp = await backend.open(f.dir);
    await erp.exec("INSERT INTO product (id, code) VALUES (101, 'ART-1'), (102, 'ART-2'), (103, 'ART-3')");
    await erp.exec("INSERT INTO party (id, email) VALUES (7, 'erika@example.com'), (8, 'max@example.com')");
    sinkFile = join(f.dir, 'sales-in.sqlite');
    sinkDb = new Database(sinkFile);
    sinkDb.exec('CREATE TABLE sale_in (order_id INTEGER PRIMARY KEY, party_id INTEGER); CREATE TABLE sale_line_in (order_id INTEGER, pos INTEGER, product_id INTEGER, qty TEXT, PRIMARY KEY (order_id, pos))');
    writeFileSync(join(f.dir, 'orders-into-sales.yaml'), MAPPING);
    queries = 0;
  });
  afterEach(async () => {
    if (!backend.available) return;
    sinkDb.close();
    await erp.close();
    await f.close();
  });

  const lookups = (onMissing: 'refuse' | 'null' = 'refuse') => ({
    party_by_email: { connection: 'erp', query: 'SELECT id FROM party WHERE email = :value', onMissing },
    product_by_code: { connection: 'erp', query: 'SELECT id FROM product WHERE code = :value' },
  });
  const def = (onMissing: 'refuse' | 'null' = 'refuse'): PipelineDefinitionInput => ({ name: 'orders-into-sales', direction: 'pull', sink: { connection: 'sales' }, lookups: lookups(onMissing), mapping: 'orders-into-sales.yaml', resource: 'orders' });
  const counting = (): LookupConnections => {
    const real = lookupConnections({ erp: erp.connection }, { logger: silentLogger, baseDir: f.dir, env: {} });
    return {
      ...real,
      async sql(name) {
        const driver = await real.sql(name);
        return new Proxy(driver, {
          get(target, key) {
            if (key === 'query') return (sql: string, params: readonly unknown[]) => (queries++, target.query(sql, params));
            const v = Reflect.get(target, key) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        }) as SqlDriver;
      },
    };
  };
  const deps = async () => ({ state: f.state, shop: f.shop, mapping: await loadMapping(join(f.dir, 'orders-into-sales.yaml')), lookups: counting, sink: () => createSink({ kind: 'sqlite', path: sinkFile }, SINK, { logger: silentLogger, baseDir: f.dir, env: {} }) });
  async function place(...orders: Record<string, unknown>[]): Promise<number[]> {
    const created = await f.shop.create('orders', orders);
    expect(created.outcomes.every((o) => o.ok), JSON.stringify(created.outcomes.find((o) => !o.ok)?.error)).toBe(true);
    return created.outcomes.map((o) => Number(o.data!.orders_id));
  }
  const sales = () => sinkDb.prepare('SELECT order_id, party_id FROM sale_in ORDER BY order_id').all();
  const lines = (id: number) => sinkDb.prepare('SELECT pos, product_id, qty FROM sale_line_in WHERE order_id = ? ORDER BY pos').all(id);

  it("delivers each order with the ERP's party id found by e-mail and each line's product id found by code, asking each value once per run", async () => {
    const [a, b, c] = await place(order('erika@example.com', ['ART-1', 'ART-2']), order('erika@example.com', ['ART-2', 'ART-3']), order('max@example.com', ['ART-1']));
    const summary = await runPipeline(def(), await deps());
    expect(summary).toMatchObject({ status: 'succeeded', counts: { created: 3, deadLettered: 0 } });
    expect(sales()).toEqual([{ order_id: a, party_id: 7 }, { order_id: b, party_id: 7 }, { order_id: c, party_id: 8 }]);
    expect(lines(a!)).toEqual([{ pos: 1, product_id: 101, qty: '1' }, { pos: 2, product_id: 102, qty: '2' }]);
    expect(lines(b!)).toEqual([{ pos: 1, product_id: 102, qty: '1' }, { pos: 2, product_id: 103, qty: '2' }]);
    // Two e-mails and three codes: five statements, however often the orders name them.
    expect(queries).toBe(5);
  });

  it('dead-letters an order whose product code the ERP does not know (LOOKUP_NOT_FOUND, naming the lookup and the code), delivers the others, and delivers it once after the product exists', async () => {
    const [good, bad] = await place(order('erika@example.com', ['ART-1']), order('max@example.com', ['ART-1', 'ART-404']));
    const summary = await runPipeline(def(), await deps());
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 1 } });
    expect(sales()).toEqual([{ order_id: good, party_id: 7 }]);
    const letter = await f.state.deadLetters.getByKey('orders-into-sales', String(bad));
    expect(letter).toMatchObject({ code: 'LOOKUP_NOT_FOUND' });
    expect(letter!.reason).toContain('lookup `product_by_code`');
    expect(letter!.reason).toContain('"ART-404"');

    await erp.exec("INSERT INTO product (id, code) VALUES (104, 'ART-404')");
    const retry = await retryDeadLetters(def(), await deps());
    expect(retry).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(lines(bad!)).toEqual([{ pos: 1, product_id: 101, qty: '1' }, { pos: 2, product_id: 104, qty: '2' }]);
    expect(await runPipeline(def(), await deps())).toMatchObject({ counts: { created: 0, unchanged: 2 } });
    expect(sales()).toHaveLength(2);
  });

  it('refuses an order whose e-mail two ERP parties share (LOOKUP_AMBIGUOUS) rather than picking one', async () => {
    await erp.exec("INSERT INTO party (id, email) VALUES (9, 'max@example.com')");
    const [id] = await place(order('max@example.com', ['ART-1']));
    const summary = await runPipeline(def(), await deps());
    expect(summary).toMatchObject({ status: 'partial', counts: { created: 0, deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-sales', String(id));
    expect(letter).toMatchObject({ code: 'LOOKUP_AMBIGUOUS' });
    expect(letter!.reason).toMatch(/2 records for "max@example.com" \((8, 9|9, 8)\)/);
    expect(sales()).toEqual([]);
  });

  it('sends no party for an unknown e-mail only where the lookup says onMissing: null', async () => {
    const [id] = await place(order('new@example.com', ['ART-3']));
    expect(await runPipeline(def('null'), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(sales()).toEqual([{ order_id: id, party_id: null }]);
  });
});

describe('a mapping and its lookups', () => {
  let f: PushFixture;
  beforeEach(async () => {
    f = await pushFixture();
    writeFileSync(join(f.dir, 'orders-into-sales.yaml'), MAPPING);
  });
  afterEach(async () => {
    await f.close();
  });

  it('refuses a mapping whose lookup: names a lookup the pipeline does not declare, before anything is read or written', async () => {
    const mapping = await loadMapping(join(f.dir, 'orders-into-sales.yaml'));
    const run = runPipeline(
      { name: 'orders-into-sales', direction: 'pull', sink: { connection: 'sales' }, lookups: { product_by_code: { connection: 'erp', query: 'SELECT id FROM product WHERE code = :value' } }, mapping: 'orders-into-sales.yaml', resource: 'orders' },
      { state: f.state, shop: f.shop, mapping, sink: () => Promise.reject(new Error('the sink must not be opened')) },
    );
    await expect(run).rejects.toThrow('uses `lookup: party_by_email`, and pipeline orders-into-sales declares no such lookup under `lookups:` (declared: product_by_code)');
    expect(await f.state.runs.list({ limit: 10 })).toEqual([]);
  });
});
