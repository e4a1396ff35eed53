/**
 * The ERP import tables of the shipped orders-to-erp mapping (erp_orders + erp_order_lines) on
 * SQLite, PostgreSQL and MariaDB, one schema or database per test file, for pull tests that look at
 * what the sink holds.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { parse } from 'yaml';
import type { ConnectionInput } from '../../src/erp/index.js';
import { requireService } from '../support/services.js';

const pgService = await requireService('postgres');
const myService = await requireService('mariadb');

/** The import tables' columns, read from the shipped mapping so both stay in step. */
export const shipped = parse(readFileSync(resolve('mappings/orders-to-erp.yaml'), 'utf8')) as { fields: Record<string, { each?: string; fields?: Record<string, unknown> }> };
// Child lists are no columns: Positionen has its table; Aenderungen (follow changes) is written only by a pipeline with follow:.
const ORDER_COLUMNS = Object.keys(shipped.fields).filter((c) => shipped.fields[c]?.each === undefined);
const LINE_COLUMNS = Object.keys(shipped.fields.Positionen?.fields ?? {});
const INTEGERS = new Set(['Shop_BestellNr', 'Shop_KundenNr', 'Status', 'Pos']);

type Rows = Record<string, unknown>[];

/** One ERP database for one test: its connection and raw SQL as its admin. */
export interface ErpDb {
  readonly connection: ConnectionInput;
  q(column: string): string;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Rows>;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  readonly available: boolean;
  /** Create the import tables (with a `shopsync_pipeline` owner column when `owner`). */
  open(dir: string, owner?: boolean): Promise<ErpDb>;
}

const q = (quote: string) => (c: string) => `${quote}${c}${quote}`;

function importTables(quote: (c: string) => string, types: { int: string; text: string }, owner: boolean): string[] {
  const type = (c: string) => (INTEGERS.has(c) ? types.int : types.text);
  return [
    // The owner column (when asked for) tells the sink's rows from others' (`ownerColumn`).
    `CREATE TABLE erp_orders (${ORDER_COLUMNS.map((c) => `${quote(c)} ${type(c)}${c === 'Shop_BestellNr' ? ' PRIMARY KEY' : ''}`).join(', ')}${owner ? ', shopsync_pipeline VARCHAR(200)' : ''})`,
    `CREATE TABLE erp_order_lines (${LINE_COLUMNS.map((c) => `${quote(c)} ${type(c)}`).join(', ')}, PRIMARY KEY (${quote('Shop_BestellNr')}, ${quote('Pos')}))`,
  ];
}

/** The backends, each creating its tables in a schema (database) named after `prefix` and a random tag. */
export function importBackends(prefix: string): Backend[] {
const tag = `${prefix}_${randomBytes(4).toString('hex')}`;
const postgres: Backend = {
  name: 'PostgreSQL',
  available: pgService.available,
  async open(_dir, owner = false) {
    const admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE; CREATE SCHEMA ${tag}; SET search_path TO ${tag}`);
    for (const sql of importTables(q('"'), { int: 'INTEGER', text: 'TEXT' }, owner)) await admin.query(sql);
    return {
      connection: { kind: 'postgres', host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database, schema: tag },
      q: q('"'),
      exec: async (sql) => void (await admin.query(sql)),
      rows: async (sql) => (await admin.query(sql)).rows as Rows,
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
  async open(_dir, owner = false) {
    const admin = await mysql.createConnection({ host: myService.host, port: myService.port, user: myService.user });
    await admin.query(`DROP DATABASE IF EXISTS ${tag}`);
    await admin.query(`CREATE DATABASE ${tag}`);
    await admin.query(`USE ${tag}`);
    for (const sql of importTables(q('`'), { int: 'INT', text: 'TEXT' }, owner)) await admin.query(sql);
    return {
      connection: { kind: 'mysql', host: myService.host, port: myService.port, user: myService.user, database: tag },
      q: q('`'),
      exec: async (sql) => void (await admin.query(sql)),
      rows: async (sql) => (await admin.query(sql))[0] as Rows,
      async close() {
        await admin.query(`DROP DATABASE IF EXISTS ${tag}`);
        await admin.end();
      },
    };
  },
};

const sqlite: Backend = {
  name: 'SQLite',
  available: true,
  async open(dir, owner = false) {
    const file = join(dir, 'erp-import.sqlite');
    const db = new Database(file);
    for (const sql of importTables(q('"'), { int: 'INTEGER', text: 'TEXT' }, owner)) db.exec(sql);
    return {
      connection: { kind: 'sqlite', path: file },
      q: q('"'),
      exec: async (sql) => void db.exec(sql),
      rows: async (sql) => db.prepare(sql).all() as Rows,
      close: async () => void db.close(),
    };
  },
};
return [sqlite, postgres, mariadb];
}
