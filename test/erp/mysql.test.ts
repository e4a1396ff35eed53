import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { requireService } from '../support/services.js';
import { collect, readAcrossDroppedConnection, serviceConnection, sqlSuite, TEST_CTX } from './sql-suite.js';

const service = await requireService('mariadb');
const connection = serviceConnection('mysql', service);
const ctx = TEST_CTX;

describe.skipIf(!service.available)('MariaDB source and sink', () => {
  let admin: mysql.Connection;
  const vals = `erp_vals_${process.pid}`;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: service.host, port: service.port, user: service.user, database: service.database });
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS \`${vals}\``);
    await admin.end();
  });

  sqlSuite(() => ({
    connection,
    ctx,
    exec: async (sql) => { await admin.query(sql); },
    types: { int: 'INT', text: 'VARCHAR(200)', decimal: 'DECIMAL(12,2)' },
    q: (id) => `\`${id}\``,
  }));

  it('keeps microseconds of DATETIME(6) cursors, DECIMAL and BIGINT as strings, blobs as base64', async () => {
    await admin.query(`CREATE TABLE \`${vals}\` (id INT PRIMARY KEY, changed DATETIME(6) NOT NULL, day DATE, amount DECIMAL(14,4), big BIGINT, raw VARBINARY(10))`);
    await admin.query(`INSERT INTO \`${vals}\` VALUES
      (1, '2026-11-22 10:00:00.123456', '2026-11-22', 12.5, 9007199254740993, X'6869'),
      (2, '2026-11-22 10:00:00.123456', NULL, NULL, NULL, NULL),
      (3, '2026-11-22 10:00:00.123457', NULL, NULL, NULL, NULL)`);
    const source = await createSource(connection, { query: `SELECT * FROM \`${vals}\``, cursor: 'changed', key: 'id' }, ctx);
    const first = await collect(source, { pageSize: 1 }, 1);
    expect(first[0]?.record).toEqual({ id: 1, changed: '2026-11-22T10:00:00.123456', day: '2026-11-22', amount: '12.5000', big: '9007199254740993', raw: 'aGk=' });
    const rest = await collect(source, { pageSize: 1, after: first[0]?.position });
    await source.close();
    expect(rest.map((i) => i.key)).toEqual(['2', '3']);
  });

  it('loses no record when the server drops the connection between pages', async () => {
    const table = `erp_break_${process.pid}`;
    const user = `ss_brk_${process.pid}`;
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`CREATE TABLE \`${table}\` (id INT PRIMARY KEY, seq INT NOT NULL)`);
    await admin.query(`INSERT INTO \`${table}\` VALUES ${Array.from({ length: 60 }, (_, i) => `(${i + 1}, ${Math.floor((i + 1) / 7)})`).join(', ')}`);
    await admin.query(`CREATE USER IF NOT EXISTS '${user}'@'%'`);
    await admin.query(`CREATE USER IF NOT EXISTS '${user}'@'localhost'`);
    await admin.query(`GRANT SELECT ON \`${service.database}\`.* TO '${user}'@'%'`);
    await admin.query(`GRANT SELECT ON \`${service.database}\`.* TO '${user}'@'localhost'`);
    try {
      const own = { ...connection, user };
      const cfg = { query: `SELECT id, seq FROM \`${table}\``, cursor: 'seq', key: 'id' };
      const seen = await readAcrossDroppedConnection(
        () => createSource(own, cfg, ctx),
        async () => {
          const [rows] = await admin.query(`SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?`, [user]);
          for (const row of rows as { ID: number }[]) await admin.query(`KILL ${Number(row.ID)}`);
          expect((rows as unknown[]).length).toBeGreaterThan(0);
        },
      );
      expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    } finally {
      await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
      await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await admin.query(`DROP USER IF EXISTS '${user}'@'localhost'`);
    }
  });

  it('runs source queries in read-only sessions', async () => {
    const source = await createSource(connection, { query: 'SELECT @@session.tx_read_only AS ro, 1 AS id', cursor: 'id', key: 'id' }, ctx);
    expect(String((await collect(source, {}))[0]?.record.ro)).toBe('1');
    await source.close();
  });

  it('reports an unreachable server with CONNECTOR_UNREACHABLE and how to fix it', async () => {
    const err = await createSource({ ...connection, port: 1, connectTimeoutMs: 2000 }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE', connector: 'mysql' });
    expect((err as Error).message).toContain(`Check that the server runs at ${service.host}:1 and that host ${service.host} and port 1 are right.`);
    // The connection sets host and port: the MYSQL_* fallbacks play no part and are not named.
    expect((err as Error).message).not.toContain('MYSQL_');
  });

  it('takes missing settings from MYSQL_* environment variables', async () => {
    const source = await createSource({ kind: 'mysql' }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' },
      { ...ctx, env: { MYSQL_HOST: service.host, MYSQL_PORT: String(service.port), MYSQL_USER: service.user, MYSQL_DATABASE: service.database } });
    expect((await collect(source, {})).map((i) => i.key)).toEqual(['1']);
    await source.close();
  });
});
