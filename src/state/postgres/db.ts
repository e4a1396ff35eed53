/**
 * Connecting to the PostgreSQL state: pool settings (search_path pinned to the configured schema,
 * BIGINT read as numbers), named prepared statements, a location without the password, and what
 * a failed connection means in words a person can act on.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { StateError } from '../../errors.js';

/** A bound parameter: a scalar, or an array for `unnest`/`ANY`. */
export type Param = string | number | boolean | null | readonly (string | number | null)[];

/** Anything that runs a query: the pool, a client in a transaction, a lock's own session. */
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** Schema names are put into the connection's startup options, so they stay plain identifiers. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The quoted schema name, or a refusal naming what is allowed. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new StateError('STATE_SCHEMA_INVALID', `state schema \`${schema}\` is not a plain identifier; use letters, digits and _ (at most 63, not starting with a digit), e.g. shopsync`, { details: { schema } });
  }
  return pg.escapeIdentifier(schema);
}

// Epoch milliseconds, ids and counts all fit a double; reading BIGINT as a number keeps the rows
// neutral (the same values SQLite hands out) for `state copy`.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

/** Connection settings of the state's pool and lock sessions. */
export function settingsFor(url: string, schema: string): pg.ClientConfig & pg.PoolConfig {
  return {
    connectionString: url,
    options: `-c search_path=${quoteSchema(schema)}`,
    // Names the deployment's connections in pg_stat_activity (which schema's state they serve).
    application_name: `shopsync-state:${schema}`.slice(0, 63),
    types,
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  };
}

export { redactUrl } from '../../util/net.js';

/** Host and port a URL points at (for messages), with libpq's defaults. */
export function endpoint(url: string): { host: string; port: number } {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.hostname) || u.searchParams.get('host') || process.env.PGHOST || 'localhost';
    return { host, port: Number(u.port || process.env.PGPORT || 5432) };
  } catch {
    return { host: process.env.PGHOST ?? 'localhost', port: Number(process.env.PGPORT ?? 5432) };
  }
}

const NETWORK = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * A failed connection as a StateError naming host and port and what to check (the config's
 * `state.url` with its line when `origin` says where it is); never the password.
 */
export function connectionError(err: unknown, url: string, origin?: string): StateError | undefined {
  if (err instanceof StateError) return undefined;
  const code = (err as { code?: unknown }).code;
  const text = err instanceof Error ? err.message : String(err);
  const { host, port } = endpoint(url);
  let password: string | undefined;
  try {
    password = decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    password = undefined;
  }
  const cause = password ? text.split(password).join('***') : text;
  const at = `PostgreSQL at ${host}:${port}`;
  const setting = origin ?? "the state's url";
  const details = { host, port, ...(typeof code === 'string' ? { sqlState: code } : {}) };
  if (typeof code === 'string' && code.startsWith('28')) {
    return new StateError('STATE_AUTH_FAILED', `the state's ${at} refused the login (${cause}); check user and password in ${setting} and pg_hba.conf`, { details });
  }
  if (code === '3D000') {
    return new StateError('STATE_UNREACHABLE', `the state's ${at} has no such database (${cause}); create it or fix the database in ${setting}`, { details });
  }
  const network = typeof code === 'string' && (NETWORK.has(code) || code.startsWith('08') || code.startsWith('57P'));
  if (network || /timeout|terminated|Connection ended|connect/i.test(text)) {
    return new StateError('STATE_UNREACHABLE', `the state's ${at} cannot be reached (${cause}); check ${setting} and that the server runs and accepts connections there`, { details });
  }
  return undefined;
}

const names = new Map<string, string>();

/** A statement's name: the same text always gets the same name, so each connection prepares it once. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) names.set(text, (name = `shopsync_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return name;
}

/** A connection lost while the state is in use (failover, restart, network): what the run reports. */
export function lostConnection(err: unknown): unknown {
  if (err instanceof StateError) return err;
  const code = (err as { code?: unknown }).code;
  const text = err instanceof Error ? err.message : String(err);
  const network = typeof code === 'string' && (NETWORK.has(code) || code.startsWith('08') || code.startsWith('57P'));
  if (!network && !/terminated|Connection ended|ECONNRESET|EPIPE/i.test(text)) return err;
  return new StateError(
    'STATE_CONNECTION_LOST',
    `the connection to the state's PostgreSQL was lost (${text}); what was not committed is not recorded, and the next run continues from the last checkpoint`,
    { details: typeof code === 'string' ? { sqlState: code } : {}, cause: err },
  );
}

const READ_ONLY = /^\s*(SELECT|WITH)\b(?![\s\S]*\b(INSERT|UPDATE|DELETE)\b)/i;

/** Whether an error is a session the server ended or a network that dropped it. */
function isConnectionLoss(err: unknown): boolean {
  const lost = lostConnection(err);
  return lost instanceof StateError && lost.code === 'STATE_CONNECTION_LOST';
}

/**
 * Whether the server itself ended the session (57P01 admin shutdown, 57P02 crash shutdown, 57P03
 * cannot connect now) before the statement committed: the FATAL comes instead of its answer, and
 * a backend that is ending commits nothing more, so the statement may be sent again. A socket that
 * merely broke may have lost the answer to a commit, and is not retried for a write.
 */
function endedByServer(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^57P0[123]$/.test(code);
}

/** Whether a failed statement on the pool may be sent once more, on a new session. */
function retryable(db: Queryable, text: string, err: unknown): boolean {
  if (!(db instanceof pg.Pool)) return false;
  return READ_ONLY.test(text) ? isConnectionLoss(err) : endedByServer(err);
}

/**
 * Rows of a named prepared statement. A statement that meets a session the server ended while it
 * sat idle in the pool (a restart, a failover: the pool learns of it only when the socket's end is
 * processed) is tried once more on a new one: a read on any lost connection, a write when the
 * server said it ended the session (`retryable`).
 */
export async function query<R>(db: Queryable, text: string, values: readonly Param[] = []): Promise<R[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await db.query({ name: nameOf(text), text, values: values as unknown[] });
      return result.rows as R[];
    } catch (err) {
      if (attempt === 1 && retryable(db, text, err)) continue;
      throw lostConnection(err);
    }
  }
}

/** The first row of a named prepared statement. */
export async function one<R>(db: Queryable, text: string, values: readonly Param[] = []): Promise<R | undefined> {
  return (await query<R>(db, text, values))[0];
}

/** Rows a named prepared statement changed (sent once more when the server had ended its session, see `retryable`). */
export async function execute(db: Queryable, text: string, values: readonly Param[] = []): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await db.query({ name: nameOf(text), text, values: values as unknown[] });
      return result.rowCount ?? 0;
    } catch (err) {
      if (attempt === 1 && retryable(db, text, err)) continue;
      throw lostConnection(err);
    }
  }
}

/**
 * Run `fn` in one transaction on a client of its own; rolled back when it throws. A BEGIN that
 * fails because the server had ended that idle session (a restart) ran nothing: the transaction
 * starts again on a new session, once.
 */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  try {
    return await transactionOnce(pool, fn);
  } catch (err) {
    if (!(err instanceof StaleSession)) throw err;
    return transactionOnce(pool, fn, true);
  }
}

/** A BEGIN refused because the session was already gone: nothing of the transaction ran. */
class StaleSession extends Error {}

async function transactionOnce<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, last = false): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The pool listens for errors of idle clients only: a session the server ends while this one is
  // checked out (failover, pg_terminate_backend) must fail the transaction, not the process.
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
  } catch (err) {
    client.off('error', onError);
    client.release(err as Error);
    if (!last && isConnectionLoss(err)) throw new StaleSession();
    throw lostConnection(err);
  }
  try {
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackErr) {
      // The session is gone; the server rolled back. Do not hand this client out again.
      broken = rollbackErr as Error;
    }
    throw lostConnection(err);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
