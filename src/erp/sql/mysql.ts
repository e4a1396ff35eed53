/**
 * MariaDB/MySQL driver (mysql2). Dates are read as strings (no time-zone shifts, microseconds kept),
 * BIGINT and DECIMAL as strings (no precision lost).
 */
// The driver itself is loaded when a MariaDB/MySQL connection opens: 89 files every other command would load at start.
import type mysql from 'mysql2/promise';
import type { Logger } from '../../log.js';
import type { MysqlConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText } from '../errors.js';
import { NETWORK_CODES, statementCause, textField, type Row, type RowRefusal, type SqlDriver } from './driver.js';
import type { ConnectionOrigin } from '../types.js';
import { missingTableHint } from './missing.js';
import { checkAnswers, failureOf, guarded, inTransaction, type Classified } from './server.js';
import { resolveServer, type ServerDefaults } from './settings.js';
import { certificateHint, tlsOptions, type TlsOptions } from './tls.js';

const DATE_TIME_TYPES = new Set(['DATETIME', 'TIMESTAMP', 'DATETIME2', 'TIMESTAMP2']);

function withIdentity(tls: TlsOptions | undefined): (TlsOptions & { verifyIdentity: boolean }) | undefined {
  return tls && { ...tls, verifyIdentity: tls.rejectUnauthorized };
}

/** MariaDB/MySQL's fallback variables (MYSQL_URL only when the connection names neither url nor host) and defaults. */
export const MYSQL_DEFAULTS: ServerDefaults = {
  fallbacks: { url: 'MYSQL_URL', host: 'MYSQL_HOST', port: 'MYSQL_PORT', user: 'MYSQL_USER', password: 'MYSQL_PASSWORD', database: 'MYSQL_DATABASE' },
  host: '127.0.0.1',
  port: 3306,
  user: 'root',
};

/** Settings after env fallbacks (MYSQL_URL, MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD, MYSQL_DATABASE). */
export function mysqlSettings(conn: MysqlConnection, env: NodeJS.ProcessEnv, baseDir = process.cwd()): mysql.PoolOptions {
  const used = resolveServer(conn, env, MYSQL_DEFAULTS);
  const base: mysql.PoolOptions = used.url
    ? { uri: used.url.value }
    : { host: used.host.value, port: Number(used.port.value), user: used.user.value, password: conn.password ?? env.MYSQL_PASSWORD, database: used.database.value };
  return {
    ...base,
    connectionLimit: conn.poolSize,
    connectTimeout: conn.connectTimeoutMs,
    // mysql2 checks the host name against the certificate only when asked (`verifyIdentity`).
    ssl: withIdentity(tlsOptions(conn, baseDir, 'mysql')),
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

function driverCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

/** mysql2 error codes: network and protocol failures, unknown database, refused login. */
function classify(err: unknown): Classified {
  const code = driverCode(err);
  const certificate = certificateHint(err);
  if (certificate !== undefined) return { kind: CONNECTOR_CODES.unreachable, hint: certificate.trim() };
  if (NETWORK_CODES.has(code) || code.startsWith('PROTOCOL_') || code === 'ER_CON_COUNT_ERROR' || (err as { fatal?: unknown }).fatal === true) {
    return { kind: CONNECTOR_CODES.unreachable, about: 'network' };
  }
  if (code === 'ER_BAD_DB_ERROR') return { kind: CONNECTOR_CODES.unreachable, about: 'database' };
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') return { kind: CONNECTOR_CODES.authFailed, about: 'login' };
  return { kind: CONNECTOR_CODES.queryFailed };
}

/**
 * Error numbers about the row written, not the connection, the grants or the SQL. By number, not by
 * SQLSTATE (MariaDB reports an ambiguous column, an SQL error, as 23000 too), and named here:
 * mysql2 knows MySQL's names only and calls MariaDB's 4025 ER_INNODB_AUTOEXTEND_SIZE_OUT_OF_RANGE.
 */
const ROW_ERRORS = new Map<number, string>([
  [1048, 'ER_BAD_NULL_ERROR'],
  [1062, 'ER_DUP_ENTRY'],
  [1216, 'ER_NO_REFERENCED_ROW'],
  [1217, 'ER_ROW_IS_REFERENCED'],
  [1264, 'ER_WARN_DATA_OUT_OF_RANGE'],
  [1265, 'WARN_DATA_TRUNCATED'],
  [1292, 'ER_TRUNCATED_WRONG_VALUE'],
  [1364, 'ER_NO_DEFAULT_FOR_FIELD'],
  [1365, 'ER_DIVISION_BY_ZERO'],
  [1366, 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD'],
  [1367, 'ER_ILLEGAL_VALUE_FOR_TYPE'],
  [1406, 'ER_DATA_TOO_LONG'],
  [1451, 'ER_ROW_IS_REFERENCED_2'],
  [1452, 'ER_NO_REFERENCED_ROW_2'],
  [3140, 'ER_INVALID_JSON_TEXT'],
  [3819, 'ER_CHECK_CONSTRAINT_VIOLATED'],
  [4025, 'ER_CONSTRAINT_FAILED'],
]);

function refusal(err: unknown): RowRefusal | undefined {
  const cause = statementCause(err);
  const errno = cause?.errno;
  const name = typeof errno === 'number' ? ROW_ERRORS.get(errno) : undefined;
  if (cause === undefined || name === undefined) return undefined;
  return { dbCode: `${name} (${String(errno)})`, reason: textField(cause, 'sqlMessage') ?? cause.message, tooLong: errno === 1406 };
}

const TABLES_SQL = "SELECT CONCAT(table_schema, '.', table_name) AS name FROM information_schema.tables WHERE table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')";

/** `Table 'test.artikel' doesn't exist`: the name between the quotes (MariaDB gives it in no field of its own). */
function tableInMessage(err: unknown): string | undefined {
  const text = textField(err as Readonly<Record<string, unknown>>, 'sqlMessage') ?? '';
  return /'([^']+)'/.exec(text)?.[1];
}

/** Open a MariaDB/MySQL pool and check that it answers. */
export async function openMysql(conn: MysqlConnection, env: NodeJS.ProcessEnv, logger: Logger, readonly: boolean, baseDir: string, origin?: ConnectionOrigin): Promise<SqlDriver> {
  const settings = mysqlSettings(conn, env, baseDir);
  const { default: driver } = await import('mysql2/promise');
  const pool = driver.createPool(settings);
  // A source never writes to the ERP, whatever its query says: its sessions are read-only.
  if (readonly) {
    pool.pool.on('connection', (c) => {
      c.query('SET SESSION TRANSACTION READ ONLY', (err: unknown) => {
        if (err) logger.warn({ err: causeText(err) }, 'could not make the MariaDB/MySQL source session read-only');
      });
    });
  }

  const fail = failureOf({
    connector: 'mysql',
    label: 'MariaDB/MySQL',
    used: resolveServer(conn, env, MYSQL_DEFAULTS),
    ...(origin ? { origin } : {}),
    loginHint: "and that this user may log in from this host (CREATE USER / GRANT … TO 'user'@'host')",
    secrets: [settings.password, settings.uri],
    classify,
    details: (err) => ({ driverCode: driverCode(err) || undefined }),
  });
  /** ER_NO_SUCH_TABLE (1146): the database searched, and the tables it has. */
  const explain = async (err: unknown): Promise<string | undefined> => {
    if ((err as { errno?: unknown }).errno !== 1146) return undefined;
    const [rows] = await pool.query('SELECT DATABASE() AS s');
    const current = String((rows as { s?: unknown }[])[0]?.s ?? '');
    // MariaDB names the table with its database; in the connection's own database that is the unqualified name the query wrote.
    const named = tableInMessage(err);
    const table = current && named?.toLowerCase().startsWith(`${current.toLowerCase()}.`) ? named.slice(current.length + 1) : named;
    const [list] = await pool.query(TABLES_SQL);
    return missingTableHint({ kind: 'mysql', ...(table ? { table } : {}), searched: current ? [current] : [], tables: (list as { name: unknown }[]).map((r) => String(r.name)), ...(origin ? { origin } : {}) });
  };
  // Only a statement on the pool is explained: one inside a transaction holds a connection the explanation might wait for.
  const run = (client: mysql.Pool | mysql.PoolConnection, sql: string, params: readonly unknown[]): Promise<Row[]> =>
    guarded(
      fail,
      sql,
      async () => {
        const [rows] = await client.execute(sql, params as mysql.ExecuteValues);
        return Array.isArray(rows) ? (rows as Row[]) : [];
      },
      client === pool ? explain : undefined,
    );
  await checkAnswers(pool, fail);

  return {
    kind: 'mysql',
    style: 'question',
    // mysql2's escapeId quotes each part of `database.table` and doubles backticks.
    quote: (name) => driver.escapeId(name),
    query: (sql, params) => run(pool, sql, params),
    tables: async () => (await run(pool, TABLES_SQL, [])).map((r) => String(r.name)),
    defaultSchema: async () => String((await run(pool, 'SELECT DATABASE() AS s', []))[0]?.s ?? ''),
    transaction: (fn) =>
      inTransaction(
        async () => {
          const conn = await pool.getConnection();
          return {
            query: (sql, params) => run(conn, sql, params),
            begin: () => conn.beginTransaction().catch((err: unknown) => { throw fail(err); }),
            commit: () => conn.commit().catch((err: unknown) => { throw fail(err); }),
            rollback: () => conn.rollback(),
            release: (broken) => (broken ? conn.destroy() : conn.release()),
          };
        },
        fail,
        fn,
      ),
    refusal,
    close: () => pool.end(),
  };
}
