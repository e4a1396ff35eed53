import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, createSource } from '../../src/erp/index.js';
import { requireService } from '../support/services.js';
import { collect, readAcrossDroppedConnection, serviceConnection, sqlSuite, TEST_CTX } from './sql-suite.js';

const service = await requireService('postgres');
const connection = serviceConnection('postgres', service);
const ctx = TEST_CTX;

describe.skipIf(!service.available)('PostgreSQL source and sink', () => {
  let admin: pg.Client;
  const vals = `erp_vals_${process.pid}`;
  beforeAll(async () => {
    admin = new pg.Client({ host: service.host, port: service.port, user: service.user, database: service.database });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS "${vals}"`);
    await admin.end();
  });

  sqlSuite(() => ({
    connection,
    ctx,
    exec: async (sql) => { await admin.query(sql); },
    types: { int: 'INT', text: 'TEXT', decimal: 'NUMERIC(12,2)' },
    q: (id) => `"${id}"`,
  }));

  it('keeps microseconds of timestamp cursors, NUMERIC and BIGINT as strings, bytea as base64', async () => {
    await admin.query(`CREATE TABLE "${vals}" (id INT PRIMARY KEY, changed TIMESTAMPTZ NOT NULL, local_ts TIMESTAMP, day DATE, amount NUMERIC(14,4), big BIGINT, raw BYTEA, doc JSONB)`);
    await admin.query(`INSERT INTO "${vals}" VALUES
      (1, '2026-11-22 10:00:00.123456+00', '2026-11-22 10:00:00.5', '2026-11-22', 12.5, 9007199254740993, '\\x6869', '{"a":1}'),
      (2, '2026-11-22 10:00:00.123456+00', NULL, NULL, NULL, NULL, NULL, NULL),
      (3, '2026-11-22 10:00:00.123457+00', NULL, NULL, NULL, NULL, NULL, NULL)`);
    const source = await createSource(connection, { query: `SELECT * FROM "${vals}"`, cursor: 'changed', key: 'id' }, ctx);
    const first = await collect(source, { pageSize: 1 }, 1);
    expect(first[0]?.record).toEqual({ id: 1, changed: '2026-11-22T10:00:00.123456Z', local_ts: '2026-11-22T10:00:00.5', day: '2026-11-22', amount: '12.5000', big: '9007199254740993', raw: 'aGk=', doc: { a: 1 } });
    // Restarting from a microsecond cursor neither repeats row 1 nor skips row 2 (same instant) or 3 (1 µs later).
    const rest = await collect(source, { pageSize: 1, after: first[0]?.position });
    await source.close();
    expect(rest.map((i) => i.key)).toEqual(['2', '3']);
  });

  it('loses no record when the server drops the connection between pages', async () => {
    const table = `erp_break_${process.pid}`;
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.query(`CREATE TABLE "${table}" AS SELECT g AS id, g / 7 AS seq FROM generate_series(1, 60) g`);
    try {
      const seen = await readAcrossDroppedConnection(
        () => createSource(connection, { query: `SELECT id, seq FROM "${table}"`, cursor: 'seq', key: 'id' }, ctx),
        async () => {
          const killed = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'shopsync' AND query LIKE '%${table}%'`);
          expect(killed.rowCount).toBeGreaterThan(0);
        },
      );
      expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    } finally {
      await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    }
  });

  it('stops between pages when the run is aborted', async () => {
    const source = await createSource(connection, { query: 'SELECT g AS id, g AS c FROM generate_series(1, 100) g', cursor: 'c', key: 'id' }, ctx);
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const item of source.read({ pageSize: 10, signal: controller.signal })) {
        seen.push(item.key);
        if (seen.length === 5) controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ code: 'ABORTED' });
    await source.close();
    expect(seen).toHaveLength(10);
  });

  it('runs source queries in read-only sessions, so a query can never change the ERP', async () => {
    const table = `erp_ro_${process.pid}`;
    await admin.query(`CREATE TABLE "${table}" AS SELECT 1 AS id, 1 AS c`);
    try {
      const source = await createSource(connection, {
        query: `WITH d AS (DELETE FROM "${table}" RETURNING id, c) SELECT id, c FROM d WHERE c > :cursor OR (c = :cursor AND id > :cursor_key) ORDER BY c, id LIMIT :limit`,
        cursor: 'c', key: 'id', initialCursor: 0, initialKey: 0,
      }, ctx);
      await expect(collect(source, {})).rejects.toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
      await source.close();
      expect((await admin.query(`SELECT COUNT(*)::int AS n FROM "${table}"`)).rows).toEqual([{ n: 1 }]);
    } finally {
      await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    }
  });

  it('reports an unreachable server with CONNECTOR_UNREACHABLE and how to fix it', async () => {
    const err = await createSource({ ...connection, port: 1, connectTimeoutMs: 2000 }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE', connector: 'postgres' });
    expect((err as Error).message).toContain('Check that the server runs');
  });

  it('reports a missing database distinctly and never echoes the password', async () => {
    const err = await createSink({ ...connection, database: 'no_such_db_shopsync', password: 'hunter2secret' }, { table: 't', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE' });
    expect((err as Error).message).toContain('Create the database');
    expect((err as Error).message).not.toContain('hunter2secret');
  });

  it('takes missing settings from PG* environment variables', async () => {
    const source = await createSource({ kind: 'postgres' }, { query: 'SELECT 1 AS id, 1 AS c', cursor: 'c', key: 'id' },
      { ...ctx, env: { PGHOST: service.host, PGPORT: String(service.port), PGUSER: service.user, PGDATABASE: service.database } });
    expect((await collect(source, {})).map((i) => i.key)).toEqual(['1']);
    await source.close();
  });
});
