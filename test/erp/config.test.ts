import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { connectionSchema, createSink, createSource, sinkSchema, sourceSchema, sqlSourceSchema } from '../../src/erp/index.js';
import { compileNamed, paramNames } from '../../src/erp/sql/params.js';
import { silentLogger } from '../../src/log.js';

const ctx = { logger: silentLogger, baseDir: process.cwd() };

describe('connector configuration', () => {
  it('accepts each connection kind and coerces a port that arrived as a string from ${VAR}', () => {
    expect(connectionSchema.parse({ kind: 'postgres', host: 'db', port: '5433' })).toMatchObject({ kind: 'postgres', port: 5433, poolSize: 4 });
    expect(connectionSchema.parse({ kind: 'mysql', url: 'mysql://u@h/db' }).kind).toBe('mysql');
    expect(connectionSchema.parse({ kind: 'sqlite', path: 'erp.db' })).toMatchObject({ busyTimeoutMs: 5000 });
    expect(connectionSchema.parse({ kind: 'files' })).toMatchObject({ folder: '.' });
    expect(connectionSchema.parse({ kind: 'http', baseUrl: 'https://erp.example/api' })).toMatchObject({ retries: 5, headers: {} });
  });

  it('names the path, the expectation and the value that came when a connection is invalid', async () => {
    const err = await createSource({ kind: 'postgres', port: 'abc' } as never, { query: 'SELECT 1', cursor: 'c', key: 'k' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/connection\.port: .*got `"abc"` \(string\)/);
  });

  it('rejects an unknown connection kind and unknown keys', () => {
    expect(connectionSchema.safeParse({ kind: 'oracle' }).success).toBe(false);
    expect(connectionSchema.safeParse({ kind: 'sqlite', path: 'x', pasword: 'typo' }).success).toBe(false);
  });

  it('refuses identifiers that could inject SQL', () => {
    const bad = sqlSourceSchema.safeParse({ query: 'SELECT * FROM t', cursor: 'updated_at; DROP TABLE x', key: 'id' });
    expect(bad.success).toBe(false);
    expect(sinkSchema.safeParse({ table: 'orders"--', key: 'id' }).success).toBe(false);
  });

  it('requires initial values when a query pages itself, and rejects undeclared parameters', () => {
    const paging = 'SELECT * FROM t WHERE (c > :cursor OR (c = :cursor AND id > :cursor_key)) ORDER BY c, id LIMIT :limit';
    const issues = sqlSourceSchema.safeParse({ query: paging, cursor: 'c', key: 'id' }).error?.issues.map((i) => i.path.join('.'));
    expect(issues).toEqual(['initialCursor', 'initialKey']);
    expect(sqlSourceSchema.safeParse({ query: 'SELECT * FROM t WHERE w = :warehouse', cursor: 'c', key: 'id' }).success).toBe(false);
    expect(sqlSourceSchema.safeParse({ query: 'SELECT * FROM t WHERE w = :warehouse', cursor: 'c', key: 'id', params: { warehouse: 'MAIN' } }).success).toBe(true);
    expect(sqlSourceSchema.safeParse({ query: 'SELECT * FROM t WHERE c > :cursor', cursor: 'c', key: 'id', initialCursor: 0 }).success).toBe(false);
  });

  it('refuses initialCursor on a query shopsync pages, which would otherwise read every row from the first', () => {
    const issue = sqlSourceSchema.safeParse({ query: 'SELECT * FROM t', cursor: 'c', key: 'id', initialCursor: '2026-01-01' }).error?.issues[0];
    expect(issue?.path).toEqual(['initialCursor']);
    expect(issue?.message).toContain("WHERE c >= '2026-01-01'");
  });

  it('parses the per-pipeline part of each kind through the shared unions', () => {
    expect(sourceSchema.safeParse({ folder: 'inbox', format: 'csv' }).success).toBe(true);
    expect(sourceSchema.safeParse({ path: 'items', key: 'id' }).success).toBe(true);
    expect(sinkSchema.safeParse({ folder: 'out', format: 'xml' }).success).toBe(true);
    expect(sinkSchema.safeParse({ path: 'orders', method: 'PUT' }).success).toBe(true);
  });

  it('refuses a SQL source config on a files connection with a message about the files fields', async () => {
    const err = await createSink({ kind: 'files' }, { table: 'orders', key: 'id' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('sink.folder');
  });
});

describe('named SQL parameters', () => {
  it('binds parameters by name and never touches strings, comments or casts', () => {
    const sql = `SELECT ':cursor' AS s, x::text, "a:b" FROM t -- :limit\nWHERE c > :cursor AND d = :cursor /* :nope */ LIMIT :limit`;
    expect([...paramNames(sql)]).toEqual(['cursor', 'limit']);
    expect(compileNamed(sql, { cursor: 5, limit: 10 }, 'dollar')).toEqual({
      sql: `SELECT ':cursor' AS s, x::text, "a:b" FROM t -- :limit\nWHERE c > $1 AND d = $1 /* :nope */ LIMIT $2`,
      params: [5, 10],
    });
    expect(compileNamed('SELECT * FROM t WHERE c > :cursor OR c = :cursor', { cursor: 'x' }, 'question').params).toEqual(['x', 'x']);
  });

  it('expands :keys to a placeholder list and an empty list to NULL', () => {
    expect(compileNamed('WHERE id IN (:keys)', { keys: [1, 2, 3] }, 'question')).toEqual({ sql: 'WHERE id IN (?, ?, ?)', params: [1, 2, 3] });
    expect(compileNamed('WHERE id IN (:keys)', { keys: [] }, 'dollar')).toEqual({ sql: 'WHERE id IN (NULL)', params: [] });
  });
});
