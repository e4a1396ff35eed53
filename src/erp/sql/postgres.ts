/**
 * PostgreSQL driver (pg). Timestamps are read as text and rewritten to ISO form so microseconds
 * survive (a JS Date would truncate them and break keyset paging on timestamp cursors).
 */
import pg from 'pg';
import type { Logger } from '../../log.js';
import type { PostgresConnection } from '../connection.js';
import { CONNECTOR_CODES, causeText } from '../errors.js';
import { NETWORK_CODES, statementCause, textField, type Row, type RowRefusal, type SqlDriver } from './driver.js';
import type { ConnectionOrigin } from '../types.js';
import { identifierAt, missingTableHint } from './missing.js';
import { checkAnswers, failureOf, guarded, inTransaction, type Classified } from './server.js';
import { resolveServer, type ServerDefaults } from './settings.js';
import { certificateHint, tlsOptions } from './tls.js';

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

/** PostgreSQL's fallback variables (read by pg too) and shopsync's defaults. */
export const POSTGRES_DEFAULTS: ServerDefaults = {
  fallbacks: { host: 'PGHOST', port: 'PGPORT', user: 'PGUSER', password: 'PGPASSWORD', database: 'PGDATABASE' },
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
};

/** Settings after env fallbacks (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE); sources get read-only sessions. */
export function postgresSettings(conn: PostgresConnection, env: NodeJS.ProcessEnv, readonly = false, baseDir = process.cwd()): pg.PoolConfig {
  const used = resolveServer(conn, env, POSTGRES_DEFAULTS);
  const base: pg.PoolConfig = conn.url
    ? { connectionString: conn.url }
    : { host: used.host.value, port: Number(used.port.value), user: used.user.value, password: conn.password ?? env.PGPASSWORD, database: used.database.value };
  // Session settings travel in the startup packet, so they hold before the first query: a `SET` sent from
  // pool.on('connect') raced that query on the same client (pg's "already executing a query" warning, an error in pg 9).
  // The schema is a validated identifier (no space, no quote); quoted, it keeps its case.
  const searchPath = conn.schema === undefined ? '' : ` -c search_path="${conn.schema}"`;
  return { ...base, max: conn.poolSize, connectionTimeoutMillis: conn.connectTimeoutMs, ssl: tlsOptions(conn, baseDir, 'postgres'), types: typeParsers, options: `-c TimeZone=UTC${readonly ? ' -c default_transaction_read_only=on' : ''}${searchPath}`, application_name: 'shopsync' };
}

function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE classes and codes: 08 connection, 57P shutdown, 3D000 no database, 28 auth, 42P10 no unique index for ON CONFLICT. */
function classify(err: unknown): Classified {
  const code = sqlStateOf(err);
  const certificate = certificateHint(err);
  if (certificate !== undefined) return { kind: CONNECTOR_CODES.unreachable, hint: certificate.trim() };
  if (code === undefined || NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return { kind: CONNECTOR_CODES.unreachable, about: 'network' };
  if (code === '3D000') return { kind: CONNECTOR_CODES.unreachable, about: 'database' };
  if (code.startsWith('28')) return { kind: CONNECTOR_CODES.authFailed, about: 'login' };
  if (code === '42P10') return { kind: CONNECTOR_CODES.queryFailed, hint: "The sink's key columns need a primary key or unique index: point the sink at a staging table of shopsync's own (`shopsync init --orders-pull` writes one) or at a key the table already holds unique; add a unique index only on a table of your own, never on the ERP's tables." };
  return { kind: CONNECTOR_CODES.queryFailed };
}

/**
 * SQLSTATE class 22 (data exception: too long, out of range, wrong type) and 23 (integrity constraint
 * violation: not null, unique, foreign key, check) are about the row written; every other class
 * (connection, missing table, SQL) is about the ERP and must still fail the run.
 */
function refusal(err: unknown): RowRefusal | undefined {
  const cause = statementCause(err);
  const sqlState = cause === undefined ? undefined : textField(cause, 'code');
  if (cause === undefined || sqlState === undefined || !(sqlState.startsWith('22') || sqlState.startsWith('23'))) return undefined;
  const detail = textField(cause, 'detail');
  const column = textField(cause, 'column');
  const constraint = textField(cause, 'constraint');
  return {
    dbCode: `SQLSTATE ${sqlState}`,
    reason: detail === undefined ? cause.message : `${cause.message} (${detail})`,
    ...(column === undefined ? {} : { column }),
    ...(constraint === undefined ? {} : { constraint }),
    tooLong: sqlState === '22001',
  };
}

/** Quote a (schema-qualified) name with pg's own escaping. */
function quote(name: string): string {
  return name.split('.').map((part) => pg.escapeIdentifier(part)).join('.');
}

const TABLES_SQL = `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`;

/** Open a PostgreSQL pool and check that it answers. */
export async function openPostgres(conn: PostgresConnection, env: NodeJS.ProcessEnv, logger: Logger, readonly: boolean, baseDir: string, origin?: ConnectionOrigin): Promise<SqlDriver> {
  const settings = postgresSettings(conn, env, readonly, baseDir);
  const pool = new pg.Pool(settings);
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', (err) => logger.warn({ err: causeText(err) }, 'idle PostgreSQL connection failed'));
  const fail = failureOf({
    connector: 'postgres',
    label: 'PostgreSQL',
    used: resolveServer(conn, env, POSTGRES_DEFAULTS),
    ...(origin ? { origin } : {}),
    loginHint: 'and that pg_hba.conf lets this user in from this host',
    secrets: [settings.password === undefined ? undefined : String(settings.password), conn.url],
    classify,
    details: (err) => ({ sqlState: sqlStateOf(err) }),
  });
  const listTables = async (): Promise<string[]> => (await pool.query<{ name: string }>(TABLES_SQL)).rows.map((r) => r.name);
  /** A relation the statement names does not exist (42P01): where the search path looked, and what is there. */
  const explain = async (err: unknown, sql: string): Promise<string | undefined> => {
    if (sqlStateOf(err) !== '42P01') return undefined;
    // current_schemas(false): the schemas of the search path that exist, as the failed statement's session resolved them.
    const path = (await pool.query<{ searched: string[]; asked: string }>("SELECT current_schemas(false)::text[] AS searched, current_setting('search_path') AS asked")).rows[0];
    const table = identifierAt(sql, (err as { position?: unknown }).position);
    return missingTableHint({ kind: 'postgres', ...(table ? { table } : {}), searched: path?.searched ?? [], ...(path ? { asked: path.asked } : {}), tables: await listTables(), ...(origin ? { origin } : {}) });
  };
  // Only a statement on the pool is explained: one inside a transaction holds a client the explanation might wait for.
  const run = (client: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[]): Promise<Row[]> =>
    guarded(fail, sql, async () => (await client.query(sql, params as unknown[])).rows as Row[], client === pool ? explain : undefined);
  await checkAnswers(pool, fail);

  return {
    kind: 'postgres',
    style: 'dollar',
    quote,
    query: (sql, params) => run(pool, sql, params),
    tables: async () => (await run(pool, TABLES_SQL, [])).map((r) => String(r.name)),
    defaultSchema: async () => String((await run(pool, 'SELECT current_schema() AS s', []))[0]?.s ?? 'public'),
    transaction: (fn) =>
      inTransaction(
        async () => {
          const client = await pool.connect();
          return {
            query: (sql, params) => run(client, sql, params),
            begin: async () => void (await run(client, 'BEGIN', [])),
            commit: async () => void (await run(client, 'COMMIT', [])),
            rollback: async () => void (await client.query('ROLLBACK')),
            release: (broken) => client.release(broken),
          };
        },
        fail,
        fn,
      ),
    refusal,
    close: () => pool.end(),
  };
}
