/**
 * ERP databases keep their tables in a schema (PostgreSQL) or a database (MariaDB) of their own:
 * a connection's `schema` becomes the search path, and sinks name `schema.table` (child tables too),
 * quoted by the driver's own escaping. A table that does not exist is named with its schema and
 * the nearest names.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, createSource } from '../../src/erp/index.js';
import { requireService } from '../support/services.js';
import { collect, serviceConnection, TEST_CTX } from './sql-suite.js';

const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const tag = `${process.pid}_${Math.floor(Math.random() * 1e5)}`;

describe.skipIf(!pgService.available)('PostgreSQL: a schema of the ERP', () => {
  const schema = `erp_${tag}`;
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".auftraege (id INT PRIMARY KEY, changed INT NOT NULL, kunde TEXT)`);
    await admin.query(`CREATE TABLE "${schema}".positionen (auftrag INT NOT NULL, pos INT NOT NULL, artikel TEXT, PRIMARY KEY (auftrag, pos))`);
    await admin.query(`INSERT INTO "${schema}".auftraege VALUES (1, 10, 'Müller'), (2, 11, 'Schulz')`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('reads unqualified table names in the connection schema', async () => {
    const source = await createSource({ ...serviceConnection('postgres', pgService), schema }, { query: 'SELECT id, changed, kunde FROM auftraege', cursor: 'changed', key: 'id' }, TEST_CTX);
    const got = (await collect(source, {})).map((i) => i.record.kunde);
    await source.close();
    expect(got).toEqual(['Müller', 'Schulz']);
  });

  it('sets the schema before the first query of every session, keeping its capitals', async () => {
    const mixed = `Erp_${tag}`;
    await admin.query(`CREATE SCHEMA "${mixed}"`);
    try {
      await admin.query(`CREATE TABLE "${mixed}".auftraege (id INT PRIMARY KEY, changed INT NOT NULL)`);
      await admin.query(`INSERT INTO "${mixed}".auftraege VALUES (7, 1)`);
      const source = await createSource({ ...serviceConnection('postgres', pgService), schema: mixed, poolSize: 2 }, { query: 'SELECT id, changed FROM auftraege', cursor: 'changed', key: 'id' }, TEST_CTX);
      const got = (await collect(source, {})).map((i) => i.record.id);
      await source.close();
      expect(got).toEqual([7]);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${mixed}" CASCADE`);
    }
  });

  it('writes to schema.table with its child table, from a connection without a schema', async () => {
    const sink = await createSink(serviceConnection('postgres', pgService), {
      table: `${schema}.auftraege`,
      key: 'id',
      children: [{ field: 'lines', table: `${schema}.positionen`, key: ['auftrag', 'pos'], parentKey: 'auftrag' }],
    }, TEST_CTX);
    await sink.write({ id: 's1', records: [{ id: 3, changed: 12, kunde: 'Neu', lines: [{ pos: 1, artikel: 'A' }, { pos: 2, artikel: 'B' }] }] });
    await sink.close();
    expect((await admin.query(`SELECT artikel FROM "${schema}".positionen WHERE auftrag = 3 ORDER BY pos`)).rows.map((r) => r.artikel)).toEqual(['A', 'B']);
  });

  it('names the schema and the table that do not exist, with the nearest names', async () => {
    await expect(createSink(serviceConnection('postgres', pgService), { table: `${schema}.auftrage`, key: 'id' }, TEST_CTX)).rejects.toMatchObject({
      code: 'CONNECTOR_QUERY_FAILED',
      message: expect.stringMatching(new RegExp(`sink table auftrage does not exist in schema ${schema}; near matches: ${schema}\\.auftraege`)),
    });
  });

  it('refuses a table name that is not a plain or schema-qualified identifier before any SQL is sent', async () => {
    await expect(createSink(serviceConnection('postgres', pgService), { table: 'erp.auftraege; DROP TABLE x', key: 'id' }, TEST_CTX)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

describe.skipIf(!myService.available)('MariaDB: a second database of the ERP', () => {
  const database = `erp_${tag}`;
  let admin: mysql.Connection;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: myService.host, port: myService.port, user: myService.user, database: myService.database });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.auftraege (id INT PRIMARY KEY, changed INT NOT NULL, kunde VARCHAR(50))`);
    await admin.query(`CREATE TABLE \`${database}\`.positionen (auftrag INT NOT NULL, pos INT NOT NULL, artikel VARCHAR(20), PRIMARY KEY (auftrag, pos))`);
    await admin.query(`INSERT INTO \`${database}\`.auftraege VALUES (1, 10, 'Müller')`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  });

  it('writes to database.table with its child table and reads it back by a qualified query', async () => {
    const conn = serviceConnection('mysql', myService);
    const sink = await createSink(conn, {
      table: `${database}.auftraege`,
      key: 'id',
      children: [{ field: 'lines', table: `${database}.positionen`, key: ['auftrag', 'pos'], parentKey: 'auftrag' }],
    }, TEST_CTX);
    await sink.write({ id: 's1', records: [{ id: 2, changed: 11, kunde: 'Schulz', lines: [{ pos: 1, artikel: 'A' }] }] });
    await sink.close();
    const source = await createSource(conn, { query: `SELECT id, changed, kunde FROM \`${database}\`.auftraege`, cursor: 'changed', key: 'id' }, TEST_CTX);
    const got = (await collect(source, {})).map((i) => i.record.kunde);
    await source.close();
    expect(got).toEqual(['Müller', 'Schulz']);
    const [rows] = await admin.query(`SELECT artikel FROM \`${database}\`.positionen WHERE auftrag = 2`);
    expect((rows as { artikel: string }[]).map((r) => r.artikel)).toEqual(['A']);
  });

  it('names the database and the table that do not exist, with the nearest names', async () => {
    await expect(createSink(serviceConnection('mysql', myService), { table: `${database}.positionn`, key: 'id' }, TEST_CTX)).rejects.toMatchObject({
      message: expect.stringMatching(new RegExp(`sink table positionn does not exist in schema ${database}; near matches: ${database}\\.positionen`)),
    });
  });
});
