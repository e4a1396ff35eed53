/**
 * `doctor` on a SQL sink: it checks what the sink needs (a unique key covering exactly the sink's
 * key, the mapped columns with types that can hold them, the right to write, tried and rolled
 * back) and says what the sink will do. A sink whose key has no unique index fails, naming a
 * staging table as the fix. Against a SQLite file and the machine's PostgreSQL; the shop is
 * unreachable on purpose (its checks fail, the sink's are what these tests read).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { runDoctor, type DoctorCheck } from '../../src/ops/doctor.js';
import { requireService } from '../support/services.js';

const pgService = await requireService('postgres');
const schema = `doctor_sink_${randomBytes(4).toString('hex')}`;

const LINES = 'erp_order_lines (Shop_BestellNr INTEGER NOT NULL, Pos INTEGER NOT NULL, ARTNR TEXT, Bezeichnung TEXT, Menge TEXT, Einzelpreis TEXT, Steuersatz TEXT, PRIMARY KEY (Shop_BestellNr, Pos))';
const ORDER_COLUMNS = 'Shop_KundenNr INTEGER, Bestelldatum TEXT, Status INTEGER, Zahlungsart TEXT, Versandart TEXT, Waehrung TEXT, Preisart TEXT, Summe_Netto TEXT, Steuer TEXT, Summe_Brutto TEXT, Quelle TEXT, Externe_Nr TEXT, RE_Firma TEXT, RE_Name TEXT, RE_Strasse TEXT, RE_PLZ TEXT, RE_Ort TEXT, RE_Land TEXT, LI_Name TEXT, LI_Strasse TEXT, LI_PLZ TEXT, LI_Ort TEXT, LI_Land TEXT';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shopsync-doctor-sink-'));
  copyFileSync(resolve('mappings/orders-to-erp.yaml'), join(dir, 'orders-to-erp.yaml'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Doctor's checks of the orders pull's sink, with `connection` and `sink` as written in the config. */
async function sinkChecks(connection: string, sink: string, name = 'shopsync.yaml'): Promise<DoctorCheck[]> {
  const file = join(dir, name);
  writeFileSync(file, `shop:
  baseUrl: http://127.0.0.1:9/api
  token: t
connections:
  erp: ${connection}
pipelines:
  - name: orders-in
    direction: pull
    resource: orders
    mapping: orders-to-erp.yaml
    sink: ${sink}
state:
  path: ${name}.state.db
`);
  const checks = await runDoctor(await loadConfig(file, { env: {} }));
  return checks.filter((c) => c.name.startsWith('pipeline orders-in: sink'));
}

const SINK = '{ connection: erp, table: erp_orders, key: Shop_BestellNr, children: [{ field: Positionen, table: erp_order_lines, key: [Shop_BestellNr, Pos], parentKey: Shop_BestellNr }] }';

describe('doctor on a SQLite sink', () => {
  it('fails a sink whose key has no unique index, naming a staging table and a unique index on a table of your own as the fix', async () => {
    const db = new Database(join(dir, 'loose.sqlite'));
    db.exec(`CREATE TABLE erp_orders (Shop_BestellNr INTEGER, ${ORDER_COLUMNS}); CREATE TABLE ${LINES}`);
    db.close();
    const checks = await sinkChecks('{ kind: sqlite, path: loose.sqlite }', SINK, 'loose.yaml');
    const key = checks.find((c) => c.name === 'pipeline orders-in: sink key');
    expect(key).toMatchObject({ ok: false });
    expect(key!.detail).toContain("erp_orders has no primary key or unique index on exactly the sink's key (Shop_BestellNr); it has no unique key");
    expect(key!.detail).toContain('staging table');
    expect(key!.detail).toContain('shopsync init --orders-pull');
    expect(key!.detail).toContain('CREATE UNIQUE INDEX … ON erp_orders (Shop_BestellNr)');
    expect(key!.detail).toContain("Do not alter the ERP's own tables");
    // The sink is not called reachable-and-fine while it cannot work: the key check is its own failure.
    expect(checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['pipeline orders-in: sink key']);
  });

  it('passes a staging table and says what the sink will do', async () => {
    const db = new Database(join(dir, 'staging.sqlite'));
    db.exec(`CREATE TABLE erp_orders (Shop_BestellNr INTEGER PRIMARY KEY, ${ORDER_COLUMNS}, shopsync_pipeline TEXT); CREATE TABLE ${LINES}`);
    db.close();
    const checks = await sinkChecks('{ kind: sqlite, path: staging.sqlite }', SINK.replace('key: Shop_BestellNr,', 'key: Shop_BestellNr, ownerColumn: shopsync_pipeline,'), 'staging.yaml');
    expect(checks.every((c) => c.ok), JSON.stringify(checks, null, 2)).toBe(true);
    expect(checks.map((c) => c.name.replace('pipeline orders-in: ', ''))).toEqual(['sink erp (sqlite)', 'sink key', 'sink columns', 'sink write', 'sink plan']);
    const plan = checks.find((c) => c.name.endsWith('sink plan'))!.detail;
    expect(plan).toBe('inserts new keys (Shop_BestellNr) into erp_orders, updates only rows whose shopsync_pipeline is orders-in (it writes that on insert), replaces the children in erp_order_lines of the rows it writes; a row it did not write is left alone and its record lettered SINK_FOREIGN_ROW');
  });
});

describe.skipIf(!pgService.available)('doctor on a PostgreSQL sink', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterEach(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  const connection = () => `{ kind: postgres, host: ${pgService.host}, port: ${pgService.port}, user: ${pgService.user}, database: ${pgService.database}, schema: ${schema} }`;

  it('names mapped columns that are missing or cannot hold what the mapping writes', async () => {
    // Payment method into an integer column, a 19-character date into VARCHAR(10), no Versandart column.
    const columns = ORDER_COLUMNS.replace('Zahlungsart TEXT', 'Zahlungsart INTEGER').replace('Bestelldatum TEXT', 'Bestelldatum VARCHAR(10)').replace('Versandart TEXT, ', '');
    const quoted = (sql: string) => sql.replace(/\b([A-Z][A-Za-z_]+)\b(?= (INTEGER|TEXT|VARCHAR))/g, '"$1"');
    await admin.query(`SET search_path TO ${schema}; CREATE TABLE erp_orders (${quoted(`Shop_BestellNr INTEGER PRIMARY KEY, ${columns}`)}); CREATE TABLE ${quoted(LINES).replace('PRIMARY KEY (Shop_BestellNr, Pos)', 'PRIMARY KEY ("Shop_BestellNr", "Pos")')}`);
    const checks = await sinkChecks(connection(), SINK, 'pg-columns.yaml');
    const col = checks.find((c) => c.name === 'pipeline orders-in: sink columns');
    expect(col).toMatchObject({ ok: false });
    expect(col!.detail).toContain('erp_orders has no column Versandart');
    expect(col!.detail).toContain('erp_orders.Zahlungsart is integer, but the mapping writes text into it');
    expect(col!.detail).toContain('erp_orders.Bestelldatum holds 10 characters, the mapping writes 19');
    expect(checks.find((c) => c.name === 'pipeline orders-in: sink key')).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'pipeline orders-in: sink write')).toMatchObject({ ok: true });
  });

  it('fails the write check for a user that may only read, in a transaction that writes nothing', async () => {
    const role = `${schema}_reader`;
    await admin.query(`SET search_path TO ${schema}; CREATE TABLE erp_orders ("Shop_BestellNr" INTEGER PRIMARY KEY, "RE_Name" TEXT); CREATE TABLE erp_order_lines ("Shop_BestellNr" INTEGER, "Pos" INTEGER, PRIMARY KEY ("Shop_BestellNr", "Pos"))`);
    await admin.query(`DROP ROLE IF EXISTS ${role}; CREATE ROLE ${role} LOGIN; GRANT USAGE ON SCHEMA ${schema} TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    try {
      const checks = await sinkChecks(connection().replace(`user: ${pgService.user}`, `user: ${role}`), SINK, 'pg-reader.yaml');
      const write = checks.find((c) => c.name === 'pipeline orders-in: sink write');
      expect(write).toMatchObject({ ok: false });
      expect(write!.detail).toMatch(/permission denied for table erp_orders/);
      expect(write!.detail).toContain('Grant INSERT, UPDATE and DELETE (children)');
    } finally {
      await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });
});
