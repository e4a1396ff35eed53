/**
 * MariaDB/MySQL driver (mysql2). Dates are read as strings (no time-zone shifts, microseconds kept),
 * BIGINT and DECIMAL as strings (no precision lost).
 */
import mysql from 'mysql2/promise';
import type { Logger } from '../../log.js';
import type { MysqlConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText, connectorError, type ConnectorCode } from '../errors.js';
import { NETWORK_CODES, sqlExcerpt, valuesClause, type Executor, type Row, type SqlDriver } from './driver.js';

const DATE_TIME_TYPES = new Set(['DATETIME', 'TIMESTAMP', 'DATETIME2', 'TIMESTAMP2']);

/** Settings after env fallbacks (MYSQL_URL, MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD, MYSQL_DATABASE). */
export function mysqlSettings(conn: MysqlConnection, env: NodeJS.ProcessEnv): mysql.PoolOptions {
  const url = conn.url ?? (conn.host === undefined ? env.MYSQL_URL : undefined);
  const base: mysql.PoolOptions = url
    ? { uri: url }
    : {
        host: conn.host ?? env.MYSQL_HOST ?? '127.0.0.1',
        port: conn.port ?? (env.MYSQL_PORT ? Number(env.MYSQL_PORT) : 3306),
        user: conn.user ?? env.MYSQL_USER ?? 'root',
        password: conn.password ?? env.MYSQL_PASSWORD,
        database: conn.database ?? env.MYSQL_DATABASE,
      };
  return {
    ...base,
    connectionLimit: conn.poolSize,
    connectTimeout: conn.connectTimeoutMs,
    ssl: conn.ssl ? { rejectUnauthorized: false } : undefined,
    charset: 'utf8mb4',
    // Prepared statements count against the server's global max_prepared_stmt_count: keep few per connection.
    maxPreparedStatements: 64,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    timezone: 'Z',
    typeCast(field, next) {
      if (DATE_TIME_TYPES.has(field.type)) {
        const text = field.string();
        return text === null ? null : text.replace(' ', 'T');
      }
      return next();
    },
  };
}

/** Open a MariaDB/MySQL pool and check that it answers. */
export async function openMysql(conn: MysqlConnection, env: NodeJS.ProcessEnv, logger: Logger, readonly: boolean): Promise<SqlDriver> {
  const settings = mysqlSettings(conn, env);
  const secrets = [settings.password, settings.uri];
  const at = settings.uri ? settings.uri.replace(/\/\/[^@/]*@/, '//') : `${settings.host}:${settings.port}/${settings.database ?? '(no database)'}`;
  const pool = mysql.createPool(settings);
  // A source never writes to the ERP, whatever its query says: its sessions are read-only.
  if (readonly) {
    pool.pool.on('connection', (c) => {
      c.query('SET SESSION TRANSACTION READ ONLY', (err: unknown) => {
        if (err) logger.warn({ err: causeText(err) }, 'could not make the MariaDB/MySQL source session read-only');
      });
    });
  }

  const fail = (err: unknown, sql?: string) => {
    const e = err as { code?: unknown; fatal?: unknown };
    const code = typeof e.code === 'string' ? e.code : '';
    let kind: ConnectorCode = CONNECTOR_CODES.queryFailed;
    let hint = sql ? ` SQL: ${sqlExcerpt(sql)}` : '';
    if (NETWORK_CODES.has(code) || code.startsWith('PROTOCOL_') || code === 'ER_CON_COUNT_ERROR' || e.fatal === true) {
      kind = CONNECTOR_CODES.unreachable;
      hint = ' Check that the server runs and that url or host/port (MYSQL_HOST/MYSQL_PORT) are right.';
    } else if (code === 'ER_BAD_DB_ERROR') {
      kind = CONNECTOR_CODES.unreachable;
      hint = ' Create the database or fix `database` (MYSQL_DATABASE).';
    } else if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') {
      kind = CONNECTOR_CODES.authFailed;
      hint = ' Check user/password (MYSQL_USER/MYSQL_PASSWORD) and the grants.';
    }
    const prefix = kind === CONNECTOR_CODES.queryFailed ? `MariaDB/MySQL query failed at ${at}` : kind === CONNECTOR_CODES.authFailed ? `MariaDB/MySQL refused the login at ${at}` : `MariaDB/MySQL unreachable at ${at}`;
    return connectorError('mysql', kind, `${prefix}: ${causeText(err)}.${hint}`, { cause: err, secrets, details: { driverCode: code || undefined } });
  };

  const run = async (client: mysql.Pool | mysql.PoolConnection, sql: string, params: readonly unknown[]): Promise<Row[]> => {
    try {
      const [rows] = await client.execute(sql, params as mysql.ExecuteValues);
      return Array.isArray(rows) ? (rows as Row[]) : [];
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
    kind: 'mysql',
    style: 'question',
    quote: (id) => `\`${id}\``,
    query: (sql, params) => run(pool, sql, params),
    upsertSql(table, columns, keys, rowCount) {
      const q = (id: string) => `\`${id}\``;
      const updates = columns.filter((c) => !keys.includes(c)).map((c) => `${q(c)} = VALUES(${q(c)})`);
      // MySQL has no DO NOTHING; assigning a key to itself is the no-op form.
      const action = updates.length > 0 ? updates.join(', ') : `${q(keys[0] as string)} = ${q(keys[0] as string)}`;
      return `INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES ${valuesClause('question', columns.length, rowCount)} ON DUPLICATE KEY UPDATE ${action}`;
    },
    async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      let conn2: mysql.PoolConnection;
      try {
        conn2 = await pool.getConnection();
      } catch (err) {
        throw fail(err);
      }
      let broken = false;
      try {
        await conn2.beginTransaction().catch((err: unknown) => { throw fail(err); });
        const out = await fn({ query: (sql, params) => run(conn2, sql, params) });
        await conn2.commit().catch((err: unknown) => { throw fail(err); });
        return out;
      } catch (err) {
        await conn2.rollback().catch(() => { broken = true; });
        throw err;
      } finally {
        if (broken) conn2.destroy();
        else conn2.release();
      }
    },
    close: () => pool.end(),
  };
}
