import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { requireService } from '../support/services.js';
import { collect, sqlSuite } from './sql-suite.js';

const service = await requireService('mariadb');
const connection = { kind: 'mysql' as const, host: service.host, port: service.port, user: service.user, database: service.database };
const ctx = { logger: silentLogger, baseDir: process.cwd(), env: {} };

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

  it('reports an unreachable server with CONNECTOR_UNREACHABLE and how to fix it', async () => {
    const err = await createSource({ ...connection, port: 1, connectTimeoutMs: 2000 }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE', connector: 'mysql' });
    expect((err as Error).message).toContain('MYSQL_HOST');
  });

  it('takes missing settings from MYSQL_* environment variables', async () => {
    const source = await createSource({ kind: 'mysql' }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' },
      { ...ctx, env: { MYSQL_HOST: service.host, MYSQL_PORT: String(service.port), MYSQL_USER: service.user, MYSQL_DATABASE: service.database } });
    expect((await collect(source, {})).map((i) => i.key)).toEqual(['1']);
    await source.close();
  });
});
