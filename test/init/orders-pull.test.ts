/**
 * `shopsync init --orders-pull`: besides the catalog push, init creates shopsync's staging layout
 * (orders, lines, addresses; a schema of its own on PostgreSQL, prefixed tables shopsync_in_* on
 * MariaDB and SQLite) and writes the pull pipeline and its mapping; `shopsync sync orders-to-erp`
 * brings the shop's orders there. The ERP side's columns (status, imported_at) are never written by
 * a re-delivery: an order the ERP claimed and imported, changed in the shop and pulled again, is
 * the same row with its status kept and shopsync_delivered_at past imported_at. Staging tables of an
 * older layout stop init with the statements that add the missing columns. With `follow:` (init's
 * default) the layout has a fourth table, order_changes, filled through the mapping's `changes` list
 * and an appended sink child: an order placed three days ago and cancelled in the shop after its pull
 * is one change row, once, and the ERP's mark on it survives the next runs; with `--follow no` none
 * of it. On SQLite, PostgreSQL and MariaDB.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { sqlSinkSchema } from '../../src/erp/index.js';
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
  /** The staging tables' names as the test's queries reach them. */
  readonly tables: { readonly orders: string; readonly lines: string; readonly addresses: string; readonly changes: string };
  /** What the ERP side writes as now() into imported_at. */
  readonly now: string;
  exec(dir: string, sql: readonly string[]): Promise<string[]>;
  rows(dir: string, sql: string): Promise<Record<string, unknown>[]>;
  /** Whether a table (as `tables` names it) exists. */
  hasTable(dir: string, table: string): Promise<boolean>;
  close(): Promise<void>;
}

function sqlite(): Db {
  const open = (dir: string) => new Database(join(dir, 'erp.sqlite'));
  return {
    name: 'SQLite',
    available: true,
    tables: { orders: 'shopsync_in_orders', lines: 'shopsync_in_order_lines', addresses: 'shopsync_in_order_addresses', changes: 'shopsync_in_order_changes' },
    now: "strftime('%Y-%m-%d %H:%M:%f', 'now')",
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
    async hasTable(dir, table) {
      return (await this.rows(dir, `SELECT name FROM sqlite_master WHERE type = 'table' AND name = '${table}'`)).length === 1;
    },
    close: async () => {},
  };
}

function postgres(s: ServiceProbe): Db {
  const schema = `init_orders_${suffix}`;
  const staging = `${schema}_in`;
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
    tables: { orders: `${staging}.orders`, lines: `${staging}.order_lines`, addresses: `${staging}.order_addresses`, changes: `${staging}.order_changes` },
    now: 'now()',
    async exec(_dir, sql) {
      const c = await connect();
      for (const q of sql) await c.query(`SET search_path TO ${schema}; ${q}`);
      return ['--db-url', `postgres://${s.user}@${s.host}:${s.port}/${s.database}`, '--db-schema', schema, '--staging-schema', staging];
    },
    async rows(_dir, sql) {
      const c = await connect();
      await c.query(`SET search_path TO ${schema}`);
      return (await c.query(sql)).rows as Record<string, unknown>[];
    },
    async hasTable(dir, table) {
      return (await this.rows(dir, `SELECT to_regclass('${table}') IS NOT NULL AS there`))[0]?.there === true;
    },
    async close() {
      await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client?.query(`DROP SCHEMA IF EXISTS ${staging} CASCADE`);
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
    tables: { orders: 'shopsync_in_orders', lines: 'shopsync_in_order_lines', addresses: 'shopsync_in_order_addresses', changes: 'shopsync_in_order_changes' },
    now: 'CURRENT_TIMESTAMP(6)',
    async exec(_dir, sql) {
      const c = await connect();
      for (const q of sql) await c.query(q);
      return ['--db-url', `mysql://${s.user}@${s.host}:${s.port}/${database}`];
    },
    async rows(_dir, sql) {
      const c = await connect();
      return (await c.query(sql))[0] as Record<string, unknown>[];
    },
    async hasTable(dir, table) {
      return Number((await this.rows(dir, `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '${table}'`))[0]?.n) === 1;
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

/** A shop date `days` ago (UTC, as the sandbox writes them). */
function shopDate(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Place an order in the sandbox shop (today, or `daysAgo` days ago); returns its id. */
async function placeOrder(lastname: string, daysAgo = 0): Promise<number> {
  const res = await fetch(`${sandbox.url}/import/json/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: [{ customers_id: 1, ...(daysAgo > 0 ? { date_purchased: shopDate(daysAgo) } : {}), billing: { firstname: 'Erika', lastname, city: 'Berlin', email_address: 'erika@example.com' }, delivery: { firstname: 'Max', lastname, street_address: 'Hof 2', city: 'Potsdam' }, products: [{ products_id: 9, quantity: 2, products_price: '10.00' }, { products_id: 19, quantity: 1, products_price: '5.50' }] }] }),
  });
  const body = (await res.json()) as { data: { orders_id: number }[] };
  if (!res.ok) throw new Error(`order refused: ${res.status} ${JSON.stringify(body)}`);
  return (body.data[0] as { orders_id: number }).orders_id;
}

/** The shop's export of one order. */
async function exported(ordersId: number): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.url}/export/json/orders?orders_id=${ordersId}`, { headers: { authorization: `Bearer ${sandbox.token}` } });
  const body = (await res.json()) as { data: Record<string, unknown>[] };
  return body.data[0] as Record<string, unknown>;
}

/** Change an order's status in the shop (with the status log entry's comment). */
async function changeStatus(ordersId: number, status: number, comments?: string): Promise<void> {
  const res = await fetch(`${sandbox.url}/import/json/orders`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: [{ orders_id: ordersId, orders_status: status, ...(comments ? { comments } : {}) }] }),
  });
  if (!res.ok) throw new Error(`status change refused: ${res.status} ${await res.text()}`);
}

const artikel = (db: Db) => [
  'CREATE TABLE artikel (artnr varchar(40) PRIMARY KEY, bezeichnung varchar(80) NOT NULL, preis decimal(10,2) NOT NULL, geaendert varchar(19) NOT NULL)',
  `INSERT INTO artikel VALUES ('OP-${db.name}-1', 'Topf', 9.90, '2026-02-01 10:00:00')`,
];

describe.each(dbs)('shopsync init --orders-pull on $name (spawned)', (db) => {
  let dir = '';
  let flags: string[] = [];
  /** An order placed three days ago, pulled by the first sync; the follow test cancels it. */
  let old = 0;
  const sync = async () => {
    const r = await runCli(['sync', 'orders-to-erp', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { status: string; counts: Record<string, number> };
  };
  const time = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(`${String(v).replace(' ', 'T')}${String(v).includes('T') ? '' : 'Z'}`));

  const children = [
    { field: 'lines', table: db.tables.lines, key: ['orders_id', 'pos'], parentKey: 'orders_id' },
    { field: 'addresses', table: db.tables.addresses, key: ['orders_id', 'kind'], parentKey: 'orders_id' },
  ];

  it.skipIf(!db.available)('with --follow no: the three staging tables and no changes table, no follow:, no changes list in the mapping, no changes child', { timeout: 180_000 }, async () => {
    dir = tempDir('shopsync-init-orders-');
    flags = await db.exec(dir, artikel(db));
    const init = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', 'artikel', '--orders-pull', '--follow', 'no', '--dir', 'nofollow', '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toMatch(new RegExp(`created the staging tables ${db.tables.orders}, ${db.tables.lines}, ${db.tables.addresses} .*\\(if they were not there\\)$`, 'm'));
    expect(init.stdout).not.toContain('order_changes');
    expect(init.stdout).toContain('mappings check: 2 mapping file(s) valid');
    expect(await db.hasTable(dir, db.tables.orders)).toBe(true);
    expect(await db.hasTable(dir, db.tables.changes)).toBe(false);
    const file = join(dir, 'nofollow', 'shopsync.yaml');
    const pull = parse(readFileSync(file, 'utf8')).pipelines[1];
    expect(pull.follow).toBeUndefined();
    expect(pull.sink.children).toEqual(children);
    expect((await loadConfig(file, { env: {} })).config.pipelines[1]?.follow).toBeUndefined();
    const mapping = readFileSync(join(dir, 'nofollow', 'mappings/orders-to-erp.yaml'), 'utf8');
    expect(mapping).not.toMatch(/_changes|^  changes:/m);
  });

  it.skipIf(!db.available)('creates the staging layout with its keys (the changes table too, beside the tables there), writes the pull, and the pull brings orders, lines and addresses there, each order one row of its owner', { timeout: 180_000 }, async () => {
    expect(dir, 'the first test made the folder').not.toBe('');
    const init = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', 'artikel', '--orders-pull', '--dry-run-records', '1'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain(`created the staging tables ${db.tables.orders}, ${db.tables.lines}, ${db.tables.addresses}`);
    expect(init.stdout).toContain(`(if they were not there), and ${db.tables.changes} for the changes of followed orders`);
    expect(init.stdout).toContain('mappings check: 2 mapping file(s) valid');
    const file = join(dir, 'shopsync.yaml');
    const config = parse(readFileSync(file, 'utf8'));
    expect(config.pipelines[1]).toMatchObject({
      name: 'orders-to-erp',
      direction: 'pull',
      resource: 'orders',
      mapping: 'mappings/orders-to-erp.yaml',
      follow: { every: '1h', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 },
      sink: { connection: 'erp', table: db.tables.orders, key: 'orders_id', children: [...children, { field: 'changes', table: db.tables.changes, key: ['orders_id', 'seq'], parentKey: 'orders_id', append: true }] },
    });
    // The written config validates: the sink schema takes the appended child, the pipeline schema the follow block.
    const loaded = (await loadConfig(file, { env: {} })).config.pipelines.find((p) => p.name === 'orders-to-erp')!;
    expect(loaded.follow).toMatchObject({ every: 3_600_000, cancelled: [4] });
    expect((loaded.sink as unknown as { children: { field: string; append?: boolean }[] }).children.map((c) => [c.field, c.append === true])).toEqual([['lines', false], ['addresses', false], ['changes', true]]);
    // The loader keeps the sink block as written; the SQL sink's own schema (what a run parses) takes it too.
    const sink = sqlSinkSchema.safeParse(loaded.sink);
    expect(sink.success, JSON.stringify(sink.error?.issues)).toBe(true);
    expect(sink.data?.children.map((c) => [c.field, c.append])).toEqual([['lines', false], ['addresses', false], ['changes', true]]);
    const mapping = readFileSync(join(dir, 'mappings/orders-to-erp.yaml'), 'utf8');
    for (const erpColumn of ['status', 'imported_at', 'erp_reference', 'import_error']) expect(mapping).not.toMatch(new RegExp(`^  ${erpColumn}:`, 'm'));
    expect(mapping).toMatch(/^  changes:\n    each: _changes$/m);
    for (const erpColumn of ['status', 'imported_at', 'import_error']) expect(mapping).not.toMatch(new RegExp(`^      ${erpColumn}:`, 'm'));
    // Every FollowChange field has its column (status as orders_status), with the ERP's marks beside them.
    for (const c of ['orders_id', 'seq', 'kind', 'detected_at', 'orders_status', 'previous_status', 'comment', 'history_at', 'tracking_code', 'service_provider', 'field', 'shopsync_delivered_at', 'status', 'imported_at', 'import_error']) {
      await db.rows(dir, `SELECT ${db.name === 'MariaDB' ? `\`${c}\`` : `"${c}"`} FROM ${db.tables.changes} WHERE 1 = 0`);
    }

    // Placed three days ago: the first pull (no cursor yet) reads it; the follow test below cancels it.
    old = await placeOrder(`Muster-${db.name}-OLD`, 3);
    const a = await placeOrder(`Muster-${db.name}-A`);
    const b = await placeOrder(`Muster-${db.name}-B`);
    const first = await sync();
    expect(first.status).toBe('succeeded');
    const orders = await db.rows(dir, `SELECT orders_id, shopsync_pipeline, customers_email_address, status, imported_at, shopsync_delivered_at FROM ${db.tables.orders} WHERE orders_id IN (${a}, ${b}) ORDER BY orders_id`);
    expect(orders.map((o) => [Number(o.orders_id), o.shopsync_pipeline, o.customers_email_address, o.status, o.imported_at])).toEqual([[a, 'orders-to-erp', 'erika@example.com', null, null], [b, 'orders-to-erp', 'erika@example.com', null, null]]);
    expect(orders.every((o) => Number.isFinite(time(o.shopsync_delivered_at)))).toBe(true);
    const lines = await db.rows(dir, `SELECT pos, quantity, products_price FROM ${db.tables.lines} WHERE orders_id = ${a} ORDER BY pos`);
    expect(lines.map((l) => [Number(l.pos), Number(l.quantity), Number(l.products_price)])).toEqual([[1, 2, 10], [2, 1, 5.5]]);
    const addresses = await db.rows(dir, `SELECT kind, name, street, city FROM ${db.tables.addresses} WHERE orders_id = ${a} ORDER BY kind`);
    // Both address blocks as the shop exports them (the sandbox fills them from the customer's book).
    const shopOrder = await exported(a);
    const block = (kind: 'billing' | 'delivery') => {
      const x = shopOrder[kind] as Record<string, string | undefined>;
      return { kind, name: `${x.firstname} ${x.lastname}`, street: x.street_address ?? null, city: x.city ?? null };
    };
    expect(addresses).toEqual([block('billing'), block('delivery')]);
    expect(addresses[0]?.name).toBe(`Erika Muster-${db.name}-A`);

    // The delta re-reads the day: nothing changed, so nothing is written, and the delivery time stays.
    const again = await sync();
    expect(again.counts).toMatchObject({ created: 0, updated: 0 });
    const after = await db.rows(dir, `SELECT shopsync_delivered_at FROM ${db.tables.orders} WHERE orders_id = ${a}`);
    expect(time(after[0]?.shopsync_delivered_at)).toBe(time(orders[0]?.shopsync_delivered_at));
    // A first delivery has no changes: the old order is staged, the changes table empty.
    expect((await db.rows(dir, `SELECT orders_id FROM ${db.tables.orders} WHERE orders_id = ${old}`)).length).toBe(1);
    expect(await db.rows(dir, `SELECT * FROM ${db.tables.changes}`)).toEqual([]);
  });

  it.skipIf(!db.available)('an order placed three days ago and cancelled in the shop after its pull is exactly one change row in the init-made table, once: cancelled, 4 after 1, its comment; the ERP\'s mark on it survives the next runs', { timeout: 180_000 }, async () => {
    expect(old, 'the second test placed the old order').toBeGreaterThan(0);
    // The written pull follows every hour; the test passes on every run (the knob a user turns the same way).
    const file = join(dir, 'shopsync.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^      every: 1h$/m);
    writeFileSync(file, text.replace(/^      every: 1h$/m, '      every: 0s'));
    const changesOf = (id: number) => db.rows(dir, `SELECT orders_id, seq, kind, orders_status, previous_status, comment, field, status, imported_at, detected_at, history_at FROM ${db.tables.changes} WHERE orders_id = ${id} ORDER BY seq`);

    // Nothing changed yet: the pass reads the old order's day and writes no change.
    await sync();
    expect(await changesOf(old)).toEqual([]);

    await changeStatus(old, 4, 'Kunde hat storniert');
    const before = Date.now();
    const pulled = await sync();
    const after = Date.now();
    expect(pulled.status).toBe('succeeded');
    expect(pulled.counts).toMatchObject({ updated: 1, failed: 0 });
    const rows = await changesOf(old);
    expect(rows.map((r) => [Number(r.orders_id), Number(r.seq), r.kind, Number(r.orders_status), Number(r.previous_status), r.comment, r.field, r.status, r.imported_at])).toEqual([[old, 1, 'cancelled', 4, 1, 'Kunde hat storniert', null, null, null]]);
    // detected_at is the run's time in UTC (whole seconds): within the run, not an hour off.
    expect(time(rows[0]!.detected_at)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(time(rows[0]!.detected_at)).toBeLessThanOrEqual(after);
    // history_at is the shop's status log entry's date, as date_purchased (the shop's own zone).
    expect(Number.isFinite(time(rows[0]!.history_at))).toBe(true);
    expect(Number((await db.rows(dir, `SELECT orders_status FROM ${db.tables.orders} WHERE orders_id = ${old}`))[0]?.orders_status)).toBe(4);

    // The ERP acts on (orders_id, seq) once and marks it; the next runs add nothing and keep the mark.
    await db.exec(dir, [`UPDATE ${db.tables.changes} SET status = 'imported', imported_at = ${db.now} WHERE orders_id = ${old} AND seq = 1`]);
    const marked = (await changesOf(old))[0]!;
    expect((await sync()).counts).toMatchObject({ created: 0, updated: 0 });
    await sync();
    const kept = await changesOf(old);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ status: 'imported' });
    expect(time(kept[0]!.imported_at)).toBe(time(marked.imported_at));
  });

  it.skipIf(!db.available)('an order the ERP claimed and imported, changed in the shop and pulled again, is the same row: status and imported_at kept, shopsync_delivered_at past imported_at', { timeout: 180_000 }, async () => {
    expect(dir, 'the first test made the folder').not.toBe('');
    const id = await placeOrder(`Muster-${db.name}-C`);
    await sync();
    // The ERP side's contract (docs/connectors.md "Orders into your ERP"): claim, import, mark.
    await db.exec(dir, [`UPDATE ${db.tables.orders} SET status = 'importing' WHERE orders_id = ${id} AND status IS NULL`]);
    await db.exec(dir, [`UPDATE ${db.tables.orders} SET status = 'imported', imported_at = ${db.now}, erp_reference = 'SO-${id}' WHERE orders_id = ${id} AND status = 'importing'`]);
    const imported = (await db.rows(dir, `SELECT status, imported_at, shopsync_delivered_at FROM ${db.tables.orders} WHERE orders_id = ${id}`))[0]!;
    // The ERP's own UPDATE is no change of the shop's: the delivery time did not move.
    expect(time(imported.shopsync_delivered_at)).toBeLessThanOrEqual(time(imported.imported_at));

    await new Promise((r) => setTimeout(r, 20));
    await changeStatus(id, 3);
    const pulled = await sync();
    expect(pulled.status).toBe('succeeded');
    expect(pulled.counts).toMatchObject({ created: 0, updated: 1 });
    const rows = await db.rows(dir, `SELECT orders_status, status, imported_at, erp_reference, shopsync_delivered_at FROM ${db.tables.orders} WHERE orders_id = ${id}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'imported', erp_reference: `SO-${id}` });
    expect(Number(rows[0]!.orders_status)).toBe(3);
    expect(time(rows[0]!.imported_at)).toBe(time(imported.imported_at));
    expect(time(rows[0]!.shopsync_delivered_at)).toBeGreaterThan(time(imported.imported_at));
    expect(Number((await db.rows(dir, `SELECT COUNT(*) AS n FROM ${db.tables.lines} WHERE orders_id = ${id}`))[0]?.n)).toBe(2);
  });

  it.skipIf(!db.available)('a deleted state delivers every order again, accepted as a restore: the same rows updated in place, none added, the ERP columns kept', { timeout: 180_000 }, async () => {
    expect(dir, 'the first test made the folder').not.toBe('');
    const count = async () => Number((await db.rows(dir, `SELECT COUNT(*) AS n FROM ${db.tables.orders}`))[0]?.n);
    const erpColumns = async () => db.rows(dir, `SELECT orders_id, status, erp_reference FROM ${db.tables.orders} WHERE status IS NOT NULL ORDER BY orders_id`);
    const orders = await count();
    const claimed = await erpColumns();
    const changes = await db.rows(dir, `SELECT orders_id, seq, kind, status FROM ${db.tables.changes} ORDER BY orders_id, seq`);
    expect(changes.length).toBeGreaterThan(0);
    expect(claimed.length).toBeGreaterThan(0);
    rmSync(join(dir, 'state'), { recursive: true, force: true });
    const r = await runCli(['sync', 'orders-to-erp', '--json', '--accept-restore'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { status: string; counts: Record<string, number> };
    expect(summary).toMatchObject({ status: 'succeeded', counts: { created: 0 } });
    expect(summary.counts.updated).toBe(orders);
    expect(await count()).toBe(orders);
    expect(await erpColumns()).toEqual(claimed);
    // The appended changes are never deleted by a re-delivery.
    expect(await db.rows(dir, `SELECT orders_id, seq, kind, status FROM ${db.tables.changes} ORDER BY orders_id, seq`)).toEqual(changes);
  });

  it.skipIf(!db.available)('staging tables without a column of the layout (an older or hand-made table) stop init, naming the column and the statement that adds it', { timeout: 180_000 }, async () => {
    expect(dir, 'the first test made the folder').not.toBe('');
    await db.exec(dir, [`ALTER TABLE ${db.tables.orders} DROP COLUMN imported_at`]);
    try {
      const init = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', 'artikel', '--orders-pull', '--no-verify', '--dir', 'again'], { cwd: dir });
      expect(init.code, init.stdout + init.stderr).toBe(1);
      expect(init.stderr).toContain('INIT_STAGING');
      expect(init.stderr).toMatch(new RegExp(`${db.tables.orders.replace('.', '\\.')} has no column imported_at \\(ALTER TABLE .* ADD COLUMN .imported_at.`));
    } finally {
      await db.exec(dir, [`ALTER TABLE ${db.tables.orders} ADD COLUMN imported_at ${db.name === 'PostgreSQL' ? 'timestamptz' : db.name === 'MariaDB' ? 'datetime(6)' : 'TEXT'}`]);
    }
  });
});
