/**
 * Cursors in the source's own representation (issue 39, item 2). A run that starts while an ERP
 * transaction is open (or within a second of a commit) stores the watermark's cap as its cursor,
 * a value shopsync wrote rather than read. The next read is `column >= cap`: on a TEXT column that
 * is a text comparison, and an ISO `…T19:59:02` cap sorts after every `… 19:59:19` value of that
 * day. One scenario per kind of change column, against the sandbox shop over HTTP: the clerk's row
 * and the rows changed later the same day must reach the shop in the next run. The server sources
 * have `lookback: 0`, so the cap alone must keep the clerk's row ahead of the cursor.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseTimestamp, sameTextOrder } from '../../src/erp/cursorFormat.js';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { requireService } from '../support/services.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, sqliteSource, type PushFixture } from './support.js';

const postgres = await requireService('postgres');
const mariadb = await requireService('mariadb');

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

const def = (name: string) => ({ name, direction: 'push' as const, source: { connection: 'erp', cursor: 'changed' }, mapping: 'p.yaml', resource: 'products' });
async function inShop(): Promise<Set<string>> {
  return new Set((await shopRecords(f.shop, 'products')).map((p) => String(p.products_model)));
}

/** A change table of one kind: rows stamped by the database's own clock, as the ERP stamps them. */
interface ChangeTable {
  /** Insert a row, committed at once. */
  insert(sku: string): Promise<void>;
  /** Begin a transaction that writes a row (stamped at its start) and stays open until `commit`. */
  begin(sku: string): Promise<{ commit(): Promise<void> }>;
  /** A value of the column as the source reads it. */
  sample(): Promise<string>;
  source(): () => Promise<Source>;
}

/**
 * The reported case: a run while a transaction is open (the watermark's cap applies), then the
 * clerk commits and more rows change the same day; the next run must deliver them all.
 */
async function sameDay(t: ChangeTable, name: string) {
  const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
  const source = t.source();
  const clerk = await t.begin(`${name}-C-1`);
  // Committed after the clerk began, so stamped after its start: the run must not move the cursor past that start.
  await t.insert(`${name}-L-0`);
  const first = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
  const cursor = (await f.state.cursors.get(name))?.value;
  await clerk.commit();
  for (let i = 1; i <= 5; i++) await t.insert(`${name}-L-${i}`);
  const second = await runPipeline(def(name), { state: f.state, shop: f.shop, mapping, source });
  const shop = await inShop();
  const missing = [`${name}-C-1`, ...[0, 1, 2, 3, 4, 5].map((i) => `${name}-L-${i}`)].filter((sku) => !shop.has(sku));
  return { first, second, cursor, missing };
}

/**
 * A value of the column as the source reads it: of all its rows, the one with the most fraction
 * digits. PostgreSQL prints a timestamp without its trailing zeros (`.123450` as `.12345`), so one
 * row alone may show fewer digits than the column keeps.
 */
async function firstValue(open: () => Promise<Source>): Promise<string> {
  const src = await open();
  try {
    let widest: string | undefined;
    for await (const item of src.read({})) {
      const value = String(item.position.value);
      if (widest === undefined || (parseTimestamp(value)?.format.digits ?? 0) > (parseTimestamp(widest)?.format.digits ?? 0)) widest = value;
    }
    if (widest === undefined) throw new Error('the table is empty');
    return widest;
  } finally {
    await src.close();
  }
}

/** The stored cursor is written as the column writes its values: same separator and zone, no more fraction digits. */
function expectWrittenLike(cursor: unknown, column: string): void {
  const c = parseTimestamp(typeof cursor === 'string' ? cursor : null);
  const v = parseTimestamp(column);
  expect(c, `cursor ${String(cursor)}`).toBeDefined();
  expect(sameTextOrder(c!.format, v!.format), `cursor ${String(cursor)} against column value ${column}`).toBe(true);
  expect(c!.format.digits).toBeLessThanOrEqual(v!.format.digits);
}

describe.skipIf(!postgres.available)('a PostgreSQL change column', () => {
  const schema = `text_cursors_${process.pid}`;
  let admin: pg.Client;
  const connect = () => new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
  beforeAll(async () => {
    admin = connect();
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`CREATE SCHEMA "${schema}"`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  /** A table whose `changed` column is of `type`, stamped by `stamp` (the database's local time: what the watermark compares a column without zone with). */
  async function table(name: string, type: string, stamp: string): Promise<ChangeTable> {
    const qualified = `"${schema}"."${name}"`;
    await admin.query(`CREATE TABLE ${qualified} (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INT, changed ${type} NOT NULL DEFAULT ${stamp})`);
    const source = () => pgSource(qualified);
    const insert = (c: pg.Client, sku: string) => c.query(`INSERT INTO ${qualified} (sku, name, price, qty) VALUES ($1, $1, '1.00', 1)`, [sku]);
    return {
      insert: async (sku) => void (await insert(admin, sku)),
      async begin(sku) {
        const clerk = connect();
        await clerk.connect();
        await clerk.query('BEGIN');
        await insert(clerk, sku);
        return {
          async commit() {
            await clerk.query('COMMIT');
            await clerk.end();
          },
        };
      },
      sample: () => firstValue(source()),
      source,
    };
  }
  const local = "now() AT TIME ZONE current_setting('log_timezone')";
  const pgSource = (qualified: string) => () => createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database }, { query: `SELECT * FROM ${qualified}`, cursor: 'changed', key: 'sku', lookback: 0 } as never, { logger: silentLogger, baseDir: '/', env: {} });

  it('text (YYYY-MM-DD HH:MM:SS.fff): a run while a transaction is open stores its cursor in the column\'s form, and the rest of the day is delivered', async () => {
    const t = await table('art_text', 'TEXT', `to_char(${local}, 'YYYY-MM-DD HH24:MI:SS.MS')`);
    const r = await sameDay(t, 'pg-text');
    expect(r.first).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
    expect(r.missing).toEqual([]);
    expectWrittenLike(r.cursor, await t.sample());
  });

  it('text as PostgreSQL prints a timestamptz (now()::text, `+00`): the cap keeps the space and the short offset', async () => {
    const t = await table('art_text_zoned', 'TEXT', 'now()::text');
    const r = await sameDay(t, 'pg-text-zoned');
    expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
    expect(r.missing).toEqual([]);
    expectWrittenLike(r.cursor, await t.sample());
  });

  it('timestamp: the cursor stays a timestamp without zone, and the rest of the day is delivered', async () => {
    const t = await table('art_ts', 'TIMESTAMP', `(${local})`);
    const r = await sameDay(t, 'pg-ts');
    expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
    expect(r.missing).toEqual([]);
    expectWrittenLike(r.cursor, await t.sample());
  });

  it('timestamptz: the cursor stays an instant, and the rest of the day is delivered', async () => {
    const t = await table('art_tstz', 'TIMESTAMPTZ', 'now()');
    const r = await sameDay(t, 'pg-tstz');
    expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
    expect(r.missing).toEqual([]);
    expectWrittenLike(r.cursor, await t.sample());
  });

  it('repairs a cursor an older shopsync stored in ISO form on a text column: the day\'s rows after it are delivered, the cursor is rewritten in the column\'s form', async () => {
    const t = await table('art_text_old', 'TEXT', `to_char(${local}, 'YYYY-MM-DD HH24:MI:SS.MS')`);
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    await t.insert('old-L-0');
    const day = (await t.sample()).slice(0, 10);
    // What the old cap wrote: the database's clock in ISO form, before the rows below.
    await f.state.cursors.set('old', 'incremental', { value: `${day}T00:00:00.000001`, key: null });
    for (let i = 1; i <= 3; i++) await t.insert(`old-L-${i}`);
    const run = await runPipeline(def('old'), { state: f.state, shop: f.shop, mapping, source: t.source() });
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 4 } });
    expectWrittenLike((await f.state.cursors.get('old'))?.value, await t.sample());
  });
});

describe.skipIf(!mariadb.available)('a MariaDB change column', () => {
  const database = `text_cursors_${process.pid}`;
  let admin: mysql.Connection;
  const connect = (db?: string) => mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: db ?? mariadb.database });
  beforeAll(async () => {
    admin = await connect();
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\``);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  });

  async function table(name: string, type: string, stamp: string): Promise<ChangeTable> {
    const qualified = `\`${database}\`.\`${name}\``;
    await admin.query(`CREATE TABLE ${qualified} (sku VARCHAR(64) PRIMARY KEY, name VARCHAR(64), price VARCHAR(16), qty INT, changed ${type} NOT NULL)`);
    const insert = (c: mysql.Connection, sku: string) => c.query(`INSERT INTO ${qualified} (sku, name, price, qty, changed) VALUES (?, ?, '1.00', 1, ${stamp})`, [sku, sku]);
    const t: ChangeTable = {
      insert: async (sku) => void (await insert(admin, sku)),
      async begin(sku) {
        const clerk = await connect();
        await clerk.query('START TRANSACTION');
        await insert(clerk, sku);
        return {
          async commit() {
            await clerk.query('COMMIT');
            await clerk.end();
          },
        };
      },
      sample: () => firstValue(t.source()),
      source: () => () => createSource({ kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database }, { query: `SELECT * FROM ${qualified}`, cursor: 'changed', key: 'sku', lookback: 0 } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
    return t;
  }

  it('VARCHAR (YYYY-MM-DD HH:MM:SS.fff): a run while a transaction is open stores its cursor in the column\'s form, and the rest of the day is delivered', async () => {
    const t = await table('art_varchar', 'VARCHAR(32)', "LEFT(DATE_FORMAT(NOW(3), '%Y-%m-%d %H:%i:%s.%f'), 23)");
    const r = await sameDay(t, 'my-varchar');
    expect(r.first).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
    expect(r.missing).toEqual([]);
    expectWrittenLike(r.cursor, await t.sample());
  });

  for (const digits of [3, 6]) {
    it(`DATETIME(${digits}): the cursor keeps the column's ${digits} fraction digits, and the rest of the day is delivered`, async () => {
      const t = await table(`art_dt${digits}`, `DATETIME(${digits})`, `NOW(${digits})`);
      const r = await sameDay(t, `my-dt${digits}`);
      expect(r.second).toMatchObject({ status: 'succeeded', counts: { created: 6 } });
      expect(r.missing).toEqual([]);
      expectWrittenLike(r.cursor, await t.sample());
    });
  }
});

describe('a SQLite text change column', () => {
  const def2 = (name: string) => ({ ...def(name), source: { connection: 'erp', cursor: 'changed' } });
  beforeEach(() => {
    f.erp.exec('CREATE TABLE art (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INTEGER, changed TEXT NOT NULL)');
  });
  const stamped = (sku: string, changed?: string) =>
    f.erp.prepare(`INSERT OR REPLACE INTO art VALUES (?, ?, '1.00', 1, ${changed === undefined ? "strftime('%Y-%m-%d %H:%M:%f', 'now')" : '?'})`).run(...(changed === undefined ? [sku, sku] : [sku, sku, changed]));
  const source = (extra: Record<string, unknown> = {}) => sqliteSource(f.erpFile, { query: 'SELECT * FROM art', cursor: 'changed', key: 'sku', ...extra });

  it('a run within a second of a commit, then more rows the same day: every row is delivered (one writer at a time: no cap)', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    stamped('sq-L-0');
    const first = await runPipeline(def2('sq'), { state: f.state, shop: f.shop, mapping, source: source() });
    expect(first.counts.created).toBe(1);
    expectWrittenLike((await f.state.cursors.get('sq'))?.value, String(f.erp.prepare('SELECT changed FROM art').pluck().get()));
    for (let i = 1; i <= 5; i++) stamped(`sq-L-${i}`);
    const second = await runPipeline(def2('sq'), { state: f.state, shop: f.shop, mapping, source: source() });
    expect(second).toMatchObject({ status: 'succeeded', counts: { created: 5 } });
  });

  it('a backfill with ISO bounds (`T`) over a column written with a space reads the whole range, not the days after it', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    stamped('bf-1', '2026-12-01 08:00:00.000');
    stamped('bf-2', '2026-12-01 19:59:19.624');
    stamped('bf-3', '2026-12-02 00:00:01.000');
    const run = await runPipeline(def2('bf'), { state: f.state, shop: f.shop, mapping, source: source() }, { mode: 'backfill', range: { from: '2026-12-01T00:00:00', to: '2026-12-01T23:59:59.999' } });
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 2, created: 2 } });
    expect([...(await inShop())].sort()).toEqual(['bf-1', 'bf-2']);
  });

  it('looks back on text in PostgreSQL\'s timestamptz form (space, `+00`): a row committed late, stamped before the cursor, is delivered', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    stamped('lb-L-2', '2026-12-01 12:00:30.5+00');
    stamped('lb-L-3', '2026-12-01 12:01:00.25+00');
    await runPipeline(def2('lb'), { state: f.state, shop: f.shop, mapping, source: source() });
    // Committed now, stamped 90 s before the cursor: a long transaction, or a clock behind.
    stamped('lb-L-1', '2026-12-01 11:59:30.75+00');
    const second = await runPipeline(def2('lb'), { state: f.state, shop: f.shop, mapping, source: source() });
    expect(second).toMatchObject({ status: 'succeeded', counts: { read: 1, created: 1 } });
  });

  it('fails with CONNECTOR_CURSOR_FORMAT, naming the repair, when the stored cursor has a zone and the column has none (no exact rewrite)', async () => {
    const mapping = await mappingFile(f.dir, 'p.yaml', PRODUCT_MAPPING);
    stamped('zf-1', '2026-12-01 12:00:00.000');
    await f.state.cursors.set('zf', 'incremental', { value: '2026-12-01T10:00:00.000Z', key: null });
    const run = await runPipeline(def2('zf'), { state: f.state, shop: f.shop, mapping, source: source() });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('CONNECTOR_CURSOR_FORMAT');
    expect(run.error?.message).toMatchInlineSnapshot(`"the stored cursor of pipeline zf ("2026-12-01T10:00:00.000Z", YYYY-MM-DDTHH:MM:SS.fffZ) does not compare like the values of its cursor column changed (newest "2026-12-01 12:00:00.000", YYYY-MM-DD HH:MM:SS.fff (no zone)): it has a zone and the column has none, so \`column > cursor\` would skip rows or read them in the wrong order. Run \`shopsync sync zf --complete\` once: it reads from the start and stores the cursor from the column's own values."`);
  });
});
