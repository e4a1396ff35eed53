/**
 * What the two network SQL drivers (PostgreSQL, MariaDB/MySQL) share: naming the server without its
 * password, turning driver failures into ConnectorErrors, the "does it answer" check on open and
 * the transaction skeleton. Each driver only says how its error codes classify and how its
 * connections begin, commit, roll back and are released.
 */
import { ConnectorError } from '../../errors.js';
import { CONNECTOR_CODES, causeText, connectorError, type ConnectorCode } from '../errors.js';
import { sqlExcerpt, type Executor } from './driver.js';
export { redactUrl } from '../../util/net.js';

/** What a driver error is: its connector code and the hint that ends the message. */
export interface Classified {
  readonly kind: ConnectorCode;
  readonly hint: string;
}

/** How one driver's failures become ConnectorErrors. */
export interface FailureSpec {
  readonly connector: 'postgres' | 'mysql';
  /** The server's name in messages ("PostgreSQL"). */
  readonly label: string;
  /** Where the server is (credentials removed). */
  readonly at: string;
  readonly secrets: readonly (string | undefined)[];
  /** Classify a driver error; `sqlHint` is the default hint (the SQL excerpt, or empty). */
  classify(err: unknown, sqlHint: string): Classified;
  /** Driver specifics kept on the error (SQL state, driver code). */
  details(err: unknown): Record<string, unknown>;
}

/** A function turning a driver error (and the SQL that failed, if any) into a ConnectorError. */
export type Fail = (err: unknown, sql?: string) => ConnectorError;

/** Build a driver's `fail`. */
export function failureOf(spec: FailureSpec): Fail {
  return (err, sql) => {
    const { kind, hint } = spec.classify(err, sql ? ` SQL: ${sqlExcerpt(sql)}` : '');
    const what = kind === CONNECTOR_CODES.queryFailed ? 'query failed at' : kind === CONNECTOR_CODES.authFailed ? 'refused the login at' : 'unreachable at';
    return connectorError(spec.connector, kind, `${spec.label} ${what} ${spec.at}: ${causeText(err)}.${hint}`, { cause: err, secrets: spec.secrets, details: spec.details(err) });
  };
}

/** Run `work`, turning a driver error into a ConnectorError that names `sql`. */
export async function guarded<T>(fail: Fail, sql: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw fail(err, sql);
  }
}

/** Check that a fresh pool answers; if not, end it and throw the classified failure. */
export async function checkAnswers(pool: { query(sql: string): Promise<unknown>; end(): Promise<void> }, fail: Fail): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw fail(err);
  }
}

/** One pooled connection as a transaction sees it. */
export interface TxConnection extends Executor {
  begin(): Promise<void>;
  commit(): Promise<void>;
  /** Roll back without classifying: a failure here only marks the connection broken. */
  rollback(): Promise<void>;
  /** Give the connection back, or throw it away when a rollback failed. */
  release(broken: boolean): void;
}

/** Run `fn` in a transaction on a connection from `acquire`: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(acquire: () => Promise<TxConnection>, fail: Fail, fn: (tx: Executor) => Promise<T>): Promise<T> {
  let conn: TxConnection;
  try {
    conn = await acquire();
  } catch (err) {
    throw fail(err);
  }
  let broken = false;
  try {
    await conn.begin();
    const out = await fn({ query: (sql, params) => conn.query(sql, params) });
    await conn.commit();
    return out;
  } catch (err) {
    await conn.rollback().catch(() => { broken = true; });
    throw err;
  } finally {
    conn.release(broken);
  }
}
