/**
 * Rows the ERP table refuses: a pull of shop orders through the shipped orders-to-erp mapping into
 * import tables whose billing-name column is too narrow for one order. That order becomes a dead
 * letter naming its number, the column and the database's reason; the others land; after the column
 * is widened a retry delivers it exactly once. On PostgreSQL, MariaDB and SQLite (a CHECK there:
 * SQLite enforces no VARCHAR length).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSink, type ConnectionInput } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { requireService } from '../support/services.js';
import { pushFixture, type PushFixture } from './support.js';

const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const tag = `erp_refused_${randomBytes(4).toString('hex')}`;

/** The import tables' columns, read from the shipped mapping so both stay in step. */
const shipped = parse(readFileSync(resolve('mappings/orders-to-erp.yaml'), 'utf8')) as { fields: Record<string, { fields?: Record<string, unknown> }> };
const ORDER_COLUMNS = Object.keys(shipped.fields).filter((c) => c !== 'Positionen');
const LINE_COLUMNS = Object.keys(shipped.fields.Positionen?.fields ?? {});
const INTEGERS = new Set(['Shop_BestellNr', 'Shop_KundenNr', 'Status', 'Pos']);
const NARROW = 'RE_Name';

/** Rows of a query as plain objects. */
type Rows = Record<string, unknown>[];

/** One ERP database for one test: its connection, raw SQL as its admin, and how to widen RE_Name. */
interface ErpDb {
  readonly connection: ConnectionInput;
  /** Quote a column name as this database does. */
  q(column: string): string;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Rows>;
  /** Give RE_Name room for any billing name. */
  widen(): Promise<void>;
  close(): Promise<void>;
}

interface Backend {
  readonly name: string;
  readonly available: boolean;
  open(dir: string): Promise<ErpDb>;
}

const q = (quote: string) => (c: string) => `${quote}${c}${quote}`;

/** CREATE TABLE statements of the order import; `narrow` is RE_Name's declaration. */
function importTables(quote: (c: string) => string, types: { int: string; text: string }, narrow: string): string[] {
  const type = (c: string) => (c === NARROW ? narrow : INTEGERS.has(c) ? types.int : types.text);
  return [
    `CREATE TABLE erp_orders (${ORDER_COLUMNS.map((c) => `${quote(c)} ${type(c)}${c === 'Shop_BestellNr' ? ' PRIMARY KEY' : ''}`).join(', ')})`,
    `CREATE TABLE erp_order_lines (${LINE_COLUMNS.map((c) => `${quote(c)} ${type(c)}`).join(', ')}, PRIMARY KEY (${quote('Shop_BestellNr')}, ${quote('Pos')}))`,
  ];
}

const postgres: Backend = {
  name: 'PostgreSQL',
  available: pgService.available,
  async open() {
    const admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE; CREATE SCHEMA ${tag}; SET search_path TO ${tag}`);
    for (const sql of importTables(q('"'), { int: 'INTEGER', text: 'TEXT' }, 'VARCHAR(16)')) await admin.query(sql);
    return {
      connection: { kind: 'postgres', host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database, schema: tag },
      q: q('"'),
      exec: async (sql) => void (await admin.query(sql)),
      rows: async (sql) => (await admin.query(sql)).rows as Rows,
      widen: async () => void (await admin.query(`ALTER TABLE erp_orders ALTER COLUMN "${NARROW}" TYPE VARCHAR(100)`)),
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
    for (const sql of importTables(q('`'), { int: 'INT', text: 'TEXT' }, 'VARCHAR(16)')) await admin.query(sql);
    return {
      connection: { kind: 'mysql', host: myService.host, port: myService.port, user: myService.user, database: tag },
      q: q('`'),
      exec: async (sql) => void (await admin.query(sql)),
      rows: async (sql) => (await admin.query(sql))[0] as Rows,
      widen: async () => void (await admin.query(`ALTER TABLE erp_orders MODIFY ${NARROW} VARCHAR(100)`)),
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
  async open(dir) {
    const file = join(dir, 'erp-import.sqlite');
    const db = new Database(file);
    for (const sql of importTables(q('"'), { int: 'INTEGER', text: 'TEXT' }, `TEXT CHECK (length("${NARROW}") <= 16)`)) db.exec(sql);
    return {
      connection: { kind: 'sqlite', path: file },
      q: q('"'),
      exec: async (sql) => void db.exec(sql),
      rows: async (sql) => db.prepare(sql).all() as Rows,
      // SQLite cannot drop a CHECK: the table is rebuilt without it, as its documentation advises.
      async widen() {
        db.exec('ALTER TABLE erp_orders RENAME TO erp_orders_old');
        db.exec(importTables(q('"'), { int: 'INTEGER', text: 'TEXT' }, 'TEXT')[0] as string);
        db.exec('INSERT INTO erp_orders SELECT * FROM erp_orders_old; DROP TABLE erp_orders_old');
      },
      close: async () => void db.close(),
    };
  },
};

// overlapDays: every pull re-reads all ten orders (purchased within five days), so the last one shows none is delivered twice.
const def = { name: 'orders-to-erp', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'orders-to-erp.yaml', resource: 'orders', options: { overlapDays: 30 } };
const SINK = { table: 'erp_orders', key: 'Shop_BestellNr', children: [{ field: 'Positionen', table: 'erp_order_lines', key: ['Shop_BestellNr', 'Pos'], parentKey: 'Shop_BestellNr' }] };

/** A shop order whose billing name is `firstname lastname`. */
function order(n: number, firstname: string, lastname: string): Record<string, unknown> {
  return {
    customers_id: 0,
    auto_stock: false,
    tax_flag: 0,
    date_purchased: `2025-03-0${1 + (n % 5)} 12:00:00`,
    billing: { firstname, lastname, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
    products: [
      { products_model: `ART-${n}`, products_name: `Artikel ${n}`, quantity: 1, products_price: 10 },
      { products_model: 'ART-X', products_name: 'Versand', quantity: 2, products_price: 2.5 },
    ],
  };
}

let mapping: CompiledMapping;
beforeAll(async () => {
  mapping = await loadMapping(resolve('mappings/orders-to-erp.yaml'));
});

describe.each([postgres, mariadb, sqlite])('$name import tables', (backend) => {
  let f: PushFixture;
  let erp: ErpDb;
  /** The shop's number of the order whose billing name is too long for RE_Name. */
  let refused: number;
  let delivered: number[];

  beforeEach(async (ctx) => {
    if (!backend.available) return ctx.skip();
    f = await pushFixture();
    erp = await backend.open(f.dir);
    const orders = Array.from({ length: 10 }, (_, i) => (i === 6 ? order(i, 'Maximiliane-Annegret', 'Hohenzollern-Sigmaringen') : order(i, 'Erika', `Muster ${i}`)));
    const created = await f.shop.create('orders', orders);
    expect(created.outcomes.every((o) => o.ok), JSON.stringify(created.outcomes.find((o) => !o.ok)?.error)).toBe(true);
    const ids = created.outcomes.map((o) => Number(o.data!.orders_id));
    refused = ids[6] as number;
    delivered = ids.filter((id) => id !== refused).sort((a, b) => a - b);
  });
  afterEach(async () => {
    if (!backend.available) return;
    await erp.close();
    await f.close();
  });

  const deps = () => ({ state: f.state, shop: f.shop, mapping, sink: () => createSink(erp.connection, SINK, { logger: silentLogger, baseDir: f.dir, env: {} }) });
  const orderNumbers = async () => (await erp.rows(`SELECT ${erp.q('Shop_BestellNr')} AS n FROM erp_orders ORDER BY 1`)).map((r) => Number(r.n));
  const lineCount = async (n: number) => Number((await erp.rows(`SELECT COUNT(*) AS c FROM erp_order_lines WHERE ${erp.q('Shop_BestellNr')} = ${n}`))[0]?.c);

  it('lands the nine orders the table takes and letters the one it refuses with its number, column and reason', async () => {
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 10, created: 9, failed: 1, deadLettered: 1 } });
    expect(await orderNumbers()).toEqual(delivered);
    expect(await lineCount(delivered[0] as number)).toBe(2);
    expect(await lineCount(refused)).toBe(0);

    const letters = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letters).toHaveLength(1);
    const letter = letters[0]!;
    expect(letter).toMatchObject({ erpKey: String(refused), code: 'SINK_ROW_REFUSED', record: { orders_id: refused } });
    expect(letter.reason).toContain(`erp_orders refused the row Shop_BestellNr=${refused}`);
    expect(letter.reason).toContain(NARROW);
    expect(letter.reason).toMatch(backend === postgres ? /value too long for type character varying\(16\) \[SQLSTATE 22001\]/ : backend === mariadb ? /Data too long .*\[ER_DATA_TOO_LONG \(1406\)\]/ : /CHECK constraint failed.*\[SQLITE_CONSTRAINT_CHECK\]/);
    expect(letter.reason).toContain('shopsync dlq retry');
    const [event] = await f.state.events.list({ pipeline: def.name, outcome: 'dead-lettered' });
    expect(event?.error).toMatchObject({ code: 'SINK_ROW_REFUSED', details: { table: 'erp_orders', ...(backend === sqlite ? {} : { column: NARROW }) } });
  });

  it('delivers the refused order exactly once after the column is widened: the retry lands it, the next pull finds it unchanged', async () => {
    await runPipeline(def, deps());
    await erp.widen();

    const retry = await retryDeadLetters(def, deps());
    expect(retry).toMatchObject({ status: 'succeeded', counts: { read: 1, created: 1, deadLettered: 0 } });
    expect(await orderNumbers()).toEqual([...delivered, refused].sort((a, b) => a - b));
    expect(await lineCount(refused)).toBe(2);
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);

    const next = await runPipeline(def, deps());
    expect(next).toMatchObject({ status: 'succeeded', counts: { read: 10, created: 0, unchanged: 10 } });
    expect(await f.state.events.list({ pipeline: def.name, erpKey: String(refused), outcome: 'delivered' })).toHaveLength(1);
  });

  it('still fails the whole run, lettering nothing, when the table itself is wrong (a column missing)', async () => {
    await erp.exec(`ALTER TABLE erp_orders DROP COLUMN ${erp.q('Quelle')}`);
    const summary = await runPipeline(def, deps());
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'CONNECTOR_QUERY_FAILED' }, counts: { created: 0, deadLettered: 0 } });
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);
    expect(await orderNumbers()).toEqual([]);
  });
});
