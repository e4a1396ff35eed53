/**
 * PostgreSQL driver (pg). Timestamps are read as text and rewritten to ISO form so microseconds
 * survive (a JS Date would truncate them and break keyset paging on timestamp cursors).
 */
import pg from 'pg';
import type { Logger } from '../../log.js';
import type { PostgresConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError, type ConnectorCode } from '../errors.js';
import { NETWORK_CODES, sqlExcerpt, valuesClause, type Executor, type Row, type SqlDriver } from './driver.js';

const TEXT_TIMESTAMP_OIDS = new Set([1114, 1184]);

/** `2026-11-22 02:31:42.123456+00` → `2026-11-22T02:31:42.123456Z` (exact, no precision lost). */
function isoTimestamp(text: string): string {
  return text.replace(' ', 'T').replace(/\+00$/, 'Z').replace(/([+-]\d\d)$/, '$1:00');
}

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (TEXT_TIMESTAMP_OIDS.has(oid)) return isoTimestamp;
    if (oid === 1082) return (text: string) => text;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

/** Settings after env fallbacks (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE); sources get read-only sessions. */
export function postgresSettings(conn: PostgresConnection, env: NodeJS.ProcessEnv, readonly = false): pg.PoolConfig {
  const base: pg.PoolConfig = conn.url
    ? { connectionString: conn.url }
    : {
        host: conn.host ?? env.PGHOST ?? '127.0.0.1',
        port: conn.port ?? (env.PGPORT ? Number(env.PGPORT) : 5432),
        user: conn.user ?? env.PGUSER ?? 'postgres',
        password: conn.password ?? env.PGPASSWORD,
        database: conn.database ?? env.PGDATABASE,
      };
  return { ...base, max: conn.poolSize, connectionTimeoutMillis: conn.connectTimeoutMs, ssl: conn.ssl ? { rejectUnauthorized: false } : undefined, types: typeParsers, options: `-c TimeZone=UTC${readonly ? ' -c default_transaction_read_only=on' : ''}`, application_name: 'shopsync' };
}

function where(settings: pg.PoolConfig): string {
  if (settings.connectionString) return settings.connectionString.replace(/\/\/[^@/]*@/, '//');
  return `${settings.host}:${settings.port}/${settings.database ?? '(default database)'}`;
}

/** Open a PostgreSQL pool and check that it answers. */
export async function openPostgres(conn: PostgresConnection, env: NodeJS.ProcessEnv, logger: Logger, readonly: boolean): Promise<SqlDriver> {
  const settings = postgresSettings(conn, env, readonly);
  const secrets = [settings.password === undefined ? undefined : String(settings.password), conn.url];
  const at = where(settings);
  const pool = new pg.Pool(settings);
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', (err) => logger.warn({ err: causeText(err) }, 'idle PostgreSQL connection failed'));

  const fail = (err: unknown, sql?: string) => {
    const sqlState = (err as { code?: unknown }).code;
    const code = typeof sqlState === 'string' ? sqlState : undefined;
    let kind: ConnectorCode = CONNECTOR_CODES.queryFailed;
    let hint = sql ? ` SQL: ${sqlExcerpt(sql)}` : '';
    if (code === undefined || NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) {
      kind = CONNECTOR_CODES.unreachable;
      hint = ' Check that the server runs and that url or host/port (PGHOST/PGPORT) are right.';
    } else if (code === '3D000') {
      kind = CONNECTOR_CODES.unreachable;
      hint = ' Create the database or fix `database` (PGDATABASE).';
    } else if (code.startsWith('28')) {
      kind = CONNECTOR_CODES.authFailed;
      hint = ' Check user/password (PGUSER/PGPASSWORD) and pg_hba.conf.';
    } else if (code === '42P10') {
      hint = ` The sink's key columns need a primary key or unique index.${hint}`;
    }
    const prefix = kind === CONNECTOR_CODES.queryFailed ? `PostgreSQL query failed at ${at}` : kind === CONNECTOR_CODES.authFailed ? `PostgreSQL refused the login at ${at}` : `PostgreSQL unreachable at ${at}`;
    return connectorError('postgres', kind, `${prefix}: ${causeText(err)}.${hint}`, { cause: err, secrets, details: { sqlState: code } });
  };

  const run = async (client: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[]): Promise<Row[]> => {
    try {
      const res = await client.query(sql, params as unknown[]);
      return res.rows as Row[];
    } catch (err) {
      throw fail(err, sql);
    }
  };

  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw fail(err);
  }

  return {
    kind: 'postgres',
    style: 'dollar',
    quote: (id) => `"${id}"`,
    query: (sql, params) => run(pool, sql, params),
    upsertSql(table, columns, keys, rowCount) {
      const q = (id: string) => `"${id}"`;
      const updates = columns.filter((c) => !keys.includes(c)).map((c) => `${q(c)} = EXCLUDED.${q(c)}`);
      const action = updates.length > 0 ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING';
      return `INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES ${valuesClause('dollar', columns.length, rowCount)} ON CONFLICT (${keys.map(q).join(', ')}) ${action}`;
    },
    async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw fail(err);
      }
      let broken = false;
      try {
        await run(client, 'BEGIN', []);
        const out = await fn({ query: (sql, params) => run(client, sql, params) });
        await run(client, 'COMMIT', []);
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => { broken = true; });
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
