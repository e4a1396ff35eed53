/**
 * `shopsync init` on a table whose change column has a few NULLs: the spawned CLI proposes the
 * column through COALESCE, says how many sampled rows are NULL, and the config it writes syncs
 * changed rows (also a row whose change column was NULL and is then set) into the sandbox shop.
 * The same story runs against SQLite, PostgreSQL and MariaDB, whose queries quote and type differently.
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
import { ensureBuilt, runCli, shopProducts, tempDir } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const suffix = Math.random().toString(36).slice(2, 8);

/** One ERP database kind: how to make a table in it, change its rows, and point init at it. */
interface Erp {
  readonly name: string;
  readonly available: boolean;
  /** Product models are prefixed per database, as the tests share one sandbox shop. */
  readonly prefix: string;
  readonly q: string;
  readonly types: { readonly text: string; readonly price: string; readonly time: string };
  /** Run statements; returns the init flags that reach the database from `dir`. */
  exec(dir: string, sql: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

function sqlite(): Erp {
  return {
    name: 'SQLite',
    available: true,
    prefix: 'SQ',
    q: '"',
    types: { text: 'TEXT', price: 'TEXT', time: 'TEXT' },
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

function postgres(s: ServiceProbe): Erp {
  const schema = `init_cursor_${suffix}`;
  let client: pg.Client | undefined;
  return {
    name: 'PostgreSQL',
    available: s.available,
    prefix: 'PG',
    q: '"',
    types: { text: 'varchar(40)', price: 'numeric(10,2)', time: 'timestamptz' },
    async exec(_dir, sql) {
      if (!client) {
        client = new pg.Client({ host: s.host, port: s.port, user: s.user, database: s.database });
        await client.connect();
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      }
      for (const q of sql) await client.query(`SET search_path TO ${schema}; ${q}`);
      return ['--db-url', `postgres://${s.user}@${s.host}:${s.port}/${s.database}`, '--db-schema', schema];
    },
    async close() {
      await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client?.end();
    },
  };
}

function mariadb(s: ServiceProbe): Erp {
  let conn: mysql.Connection | undefined;
  const tables = new Set<string>();
  return {
    name: 'MariaDB',
    available: s.available,
    prefix: 'MY',
    q: '`',
    types: { text: 'varchar(40)', price: 'decimal(10,2)', time: 'datetime' },
    async exec(_dir, sql) {
      conn ??= await mysql.createConnection({ host: s.host, port: s.port, user: s.user, database: s.database });
      for (const q of sql) {
        const created = /^CREATE TABLE (\w+)/.exec(q)?.[1];
        if (created) tables.add(created);
        await conn.query(q);
      }
      return ['--db-url', `mysql://${s.user}@${s.host}:${s.port}/${s.database}`];
    },
    async close() {
      for (const t of tables) await conn?.query(`DROP TABLE IF EXISTS ${t}`);
      await conn?.end();
    },
  };
}

const erps = [sqlite(), postgres(pgService), mariadb(myService)];
afterAll(async () => {
  for (const e of erps) await e.close();
});

/** `2026-02-01 10:00:00` plus `minutes`. */
function at(minutes: number): string {
  return new Date(Date.UTC(2026, 1, 1, 10, minutes)).toISOString().slice(0, 19).replace('T', ' ');
}

const model = (e: Erp, i: number) => `${e.prefix}-${String(i).padStart(3, '0')}`;
const price = async (e: Erp, i: number) => Number((await shopProducts(sandbox)).get(model(e, i))?.products_price);

describe.each(erps)('shopsync init on a $name table whose change column has NULLs (spawned)', (erp) => {
  it.skipIf(!erp.available)('proposes COALESCE(change column, created-at column), says how many rows are NULL, and the config syncs changed rows', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-cursor-');
    const table = `artikel_${suffix}`;
    const { text, price: money, time } = erp.types;
    const rows = Array.from({ length: 199 }, (_, k) => k + 1).map((i) => `('${model(erp, i)}', 'Artikel ${i}', ${10 + i}.00, '2026-01-01 08:00:00', ${[5, 50, 150].includes(i) ? 'NULL' : `'${at(i)}'`})`);
    const flags = await erp.exec(dir, [
      `CREATE TABLE ${table} (artnr ${text} PRIMARY KEY, bezeichnung ${text} NOT NULL, preis ${money} NOT NULL, angelegt ${time} NOT NULL, geaendert ${time} NULL)`,
      `INSERT INTO ${table} VALUES ${rows.join(', ')}`,
    ]);
    const init = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', table, '--dry-run-records', '2'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('cursor: shopsync_changed (geaendert looks like a change timestamp, but 3 of 199 sampled rows have no geaendert (NULL), and a run refuses a row without a cursor value; so the query selects COALESCE(geaendert, angelegt) AS shopsync_changed');
    expect(init.stdout).toContain('dry run of the first 2 record(s): 2 would be created');

    const configText = readFileSync(join(dir, 'shopsync.yaml'), 'utf8');
    const comment = configText.split('\n').filter((l) => l.startsWith('# ')).map((l) => l.slice(2)).join(' ');
    expect(comment).toContain('Cursor: geaendert looks like a change timestamp, but 3 of 199 sampled rows have no geaendert (NULL)');
    expect(comment).toContain('a row without geaendert counts as changed when it was created (angelegt), and is read again once the ERP sets geaendert');
    const q = erp.q;
    expect(parse(configText)).toMatchObject({ pipelines: [{ source: { query: `SELECT *, COALESCE(${q}geaendert${q}, ${q}angelegt${q}) AS shopsync_changed FROM ${q}${table}${q}`, cursor: 'shopsync_changed', key: 'artnr' } }] });

    const first = await runCli(['sync', 'products'], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const shop = await shopProducts(sandbox);
    expect([5, 50, 150, 199].map((i) => shop.has(model(erp, i)))).toEqual([true, true, true, true]);

    // The ERP sets the change column of a row that had none, and changes a row that had one.
    await erp.exec(dir, [
      `UPDATE ${table} SET preis = 77.00, geaendert = '2026-03-01 09:00:00' WHERE artnr = '${model(erp, 50)}'`,
      `UPDATE ${table} SET preis = 88.00, geaendert = '2026-03-01 09:05:00' WHERE artnr = '${model(erp, 10)}'`,
    ]);
    const second = await runCli(['sync', 'products', '--json'], { cwd: dir });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'succeeded', counts: { read: 2, updated: 2, failed: 0 } });
    expect([await price(erp, 50), await price(erp, 10), await price(erp, 5)]).toEqual([77, 88, 15]);
  });

  it.skipIf(!erp.available)('without a created-at column, coalesces to a first-sorting constant and says that a row added later without a change time waits for one', { timeout: 180_000 }, async () => {
    const dir = tempDir('shopsync-init-cursor-');
    const table = `teile_${suffix}`;
    const { text, price: money, time } = erp.types;
    const base = 500;
    const rows = [1, 2, 3, 4, 5, 6].map((i) => `('${model(erp, base + i)}', 'Teil ${i}', ${i}.50, ${i === 2 ? 'NULL' : `'${at(i)}'`})`);
    const flags = await erp.exec(dir, [`CREATE TABLE ${table} (artnr ${text} PRIMARY KEY, bezeichnung ${text} NOT NULL, preis ${money} NOT NULL, geaendert ${time} NULL)`, `INSERT INTO ${table} VALUES ${rows.join(', ')}`]);
    const init = await runCli(['init', '--yes', '--no-verify', '--shop-url', sandbox.url, '--shop-token', sandbox.token, ...flags, '--table', table], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain("1 of 6 sampled rows has no geaendert (NULL), and a run refuses a row without a cursor value; so the query selects COALESCE(geaendert, '1970-01-01 00:00:00') AS shopsync_changed");
    expect(init.stdout).toContain('a row added later without geaendert waits until geaendert is set');
    const q = erp.q;
    const constant = erp.name === 'MariaDB' ? "CAST('1970-01-01 00:00:00' AS DATETIME)" : "'1970-01-01 00:00:00'";
    expect(parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'))).toMatchObject({ pipelines: [{ source: { query: `SELECT *, COALESCE(${q}geaendert${q}, ${constant}) AS shopsync_changed FROM ${q}${table}${q}`, cursor: 'shopsync_changed' } }] });

    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    expect(await price(erp, base + 2)).toBe(2.5);
    await erp.exec(dir, [
      `UPDATE ${table} SET preis = 9.99, geaendert = '2026-03-01 09:00:00' WHERE artnr = '${model(erp, base + 2)}'`,
      `INSERT INTO ${table} VALUES ('${model(erp, base + 7)}', 'Teil 7', 7.50, NULL)`,
    ]);
    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    expect(await price(erp, base + 2)).toBe(9.99);
    // As the note says: the new row sorts before the stored cursor until the ERP gives it a change time.
    expect((await shopProducts(sandbox)).has(model(erp, base + 7))).toBe(false);
    await erp.exec(dir, [`UPDATE ${table} SET geaendert = '2026-03-02 09:00:00' WHERE artnr = '${model(erp, base + 7)}'`]);
    expect((await runCli(['sync', 'products'], { cwd: dir })).code).toBe(0);
    expect(await price(erp, base + 7)).toBe(7.5);
  });
});
