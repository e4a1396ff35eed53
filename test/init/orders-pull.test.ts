/**
 * `shopsync init --orders-pull`: besides the catalog push, init creates the staging tables
 * shopsync_orders and shopsync_order_lines (each with its primary key) in the ERP database and
 * writes the pull pipeline and its mapping; `shopsync sync orders-to-erp` then brings the shop's
 * orders with their lines there, and a second run upserts them instead of adding rows. On SQLite,
 * PostgreSQL and MariaDB.
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
import { ensureBuilt, runCli, tempDir } from '../cli/support.js';

const sandbox = useSandbox({ seed: 'demo' }, { before: ensureBuilt, timeoutMs: 300_000 });
const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const suffix = Math.random().toString(36).slice(2, 8);

/** A database: run statements, read rows, and the init flags that reach it. */
interface Db {
  readonly name: string;
  readonly available: boolean;
  exec(dir: string, sql: readonly string[]): Promise<string[]>;
  rows(dir: string, sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function sqlite(): Db {
  const open = (dir: string) => new Database(join(dir, 'erp.sqlite'));
  return {
    name: 'SQLite',
    available: true,
    async exec(dir, sql) {
      const db = open(dir);
      for (const s of sql) db.exec(s);
      db.close();
      return ['--sqlite', 'erp.sqlite'];
    },
    async rows(dir, sql) {
      const db = open(dir);
      try {
        return db.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
    close: async () => {},
  };
}

function postgres(s: ServiceProbe): Db {
  const schema = `init_orders_${suffix}`;
  let client: pg.Client | undefined;
  const connect = async () => {
    if (!client) {
      client = new pg.Client({ host: s.host, port: s.port, user: s.user, database: s.database });
      await client.connect();
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    }
    return client;
  };
  return {
    name: 'PostgreSQL',
    available: s.available,
    async exec(_dir, sql) {
      const c = await connect();
      for (const q of sql) await c.query(`SET search_path TO ${schema}; ${q}`);
      return ['--db-url', `postgres://${s.user}@${s.host}:${s.port}/${s.database}`, '--db-schema', schema];
    },
    async rows(_dir, sql) {
      const c = await connect();
      await c.query(`SET search_path TO ${schema}`);
      return (await c.query(sql)).rows as Record<string, unknown>[];
    },
    async close() {
      await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client?.end();
    },
  };
}

function mariadb(s: ServiceProbe): Db {
  const database = `init_orders_${suffix}`;
  let conn: mysql.Connection | undefined;
  const connect = async () => {
    if (!conn) {
      conn = await mysql.createConnection({ host: s.host, port: s.port, user: s.user });
      await conn.query(`CREATE DATABASE IF NOT EXISTS ${database}`);
      await conn.query(`USE ${database}`);
    }
    return conn;
  };
  return {
    name: 'MariaDB',
    available: s.available,
    async exec(_dir, sql) {
      const c = await connect();
      for (const q of sql) await c.query(q);
      return ['--db-url', `mysql://${s.user}@${s.host}:${s.port}/${database}`];
    },
    async rows(_dir, sql) {
      const c = await connect();
      return (await c.query(sql))[0] as Record<string, unknown>[];
    },
    async close() {
      await conn?.query(`DROP DATABASE IF EXISTS ${database}`);
      await conn?.end();
    },
  };
}

const dbs = [sqlite(), postgres(pgService), mariadb(myService)];
afterAll(async () => {
  for (const d of dbs) await d.close();
});

/** Place an order in the sandbox shop; returns its id. */
async function placeOrder(lastname: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/import/json/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: [{ customers_id: 1, billing: { firstname: 'Erika', lastname, city: 'Berlin' }, products: [{ products_id: 9, quantity: 2, products_price: '10.00' }, { products_id: 19, quantity: 1, products_price: '5.50' }] }] }),
  });
  const body = (await res.json()) as { data: { orders_id: number }[] };
  if (!res.ok) throw new Error(`order refused: ${res.status} ${JSON.stringify(body)}`);
  return (body.data[0] as { orders_id: number }).orders_id;
}

describe.each(dbs)('shopsync init --orders-pull on $name (spawned)', (db) => {
  it.skipIf(!db.available)('creates the staging tables with their keys, writes the pull, and the pull brings orders and lines there, upserted on a second run', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-orders-');
    const flags = await db.exec(dir, [
      'CREATE TABLE artikel (artnr varchar(40) PRIMARY KEY, bezeichnung varchar(80) NOT NULL, preis decimal(10,2) NOT NULL, geaendert varchar(19) NOT NULL)',
      `INSERT INTO artikel VALUES ('OP-${db.name}-1', 'Topf', 9.90, '2026-02-01 10:00:00')`,
    ]);
    const init = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', 'artikel', '--orders-pull', '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('created the staging tables shopsync_orders and shopsync_order_lines in the ERP database');
    expect(init.stdout).toContain('mappings check: 2 mapping file(s) valid');
    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'));
    expect(config.pipelines[1]).toEqual({ name: 'orders-to-erp', direction: 'pull', resource: 'orders', mapping: 'mappings/orders-to-erp.yaml', sink: { connection: 'erp', table: 'shopsync_orders', key: 'orders_id', children: [{ field: 'lines', table: 'shopsync_order_lines', key: ['orders_id', 'pos'], parentKey: 'orders_id' }] } });

    const a = await placeOrder(`Muster-${db.name}-A`);
    const b = await placeOrder(`Muster-${db.name}-B`);
    const first = await runCli(['sync', 'orders-to-erp', '--json'], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const orders = await db.rows(dir, `SELECT orders_id, billing_name, billing_city FROM shopsync_orders WHERE orders_id IN (${a}, ${b}) ORDER BY orders_id`);
    expect(orders.map((o) => [Number(o.orders_id), o.billing_name, o.billing_city])).toEqual([[a, `Erika Muster-${db.name}-A`, 'Berlin'], [b, `Erika Muster-${db.name}-B`, 'Berlin']]);
    const lines = await db.rows(dir, `SELECT orders_id, pos, quantity FROM shopsync_order_lines WHERE orders_id = ${a} ORDER BY pos`);
    expect(lines.map((l) => Number(l.quantity))).toEqual([2, 1]);

    // The delta re-reads the day: the rows are upserted on their unique keys, never added twice.
    const count = async () => Number((await db.rows(dir, 'SELECT COUNT(*) AS n FROM shopsync_order_lines'))[0]?.n);
    const before = await count();
    const again = await runCli(['sync', 'orders-to-erp', '--json'], { cwd: dir });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await count()).toBe(before);
  });
});
