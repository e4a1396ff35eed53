/**
 * What the two network SQL drivers (PostgreSQL, MariaDB/MySQL) share: turning driver failures into
 * ConnectorErrors that name the server, the connection and the settings to check (never the
 * password), the "does it answer" check on open and the transaction skeleton. Each driver only
 * says how its error codes classify and how its connections begin, commit, roll back and are released.
 */
import { ConnectorError } from '../../errors.js';
import { CONNECTOR_CODES, causeText, connectorError, type ConnectorCode } from '../errors.js';
import type { ConnectionOrigin } from '../types.js';
import { sqlExcerpt, type Executor } from './driver.js';
import { describeServer, describeSetting, type ServerUsed, type SettingName } from './settings.js';

/** What a driver error is: its connector code, what the hint is about, and a hint of the driver's own. */
export interface Classified {
  readonly kind: ConnectorCode;
  /** The settings the hint names, each with where it came from (field and line, url, fallback variable, default). */
  readonly about?: 'network' | 'database' | 'login';
  /** Said after the settings (a certificate, the key columns of an upsert…). */
  readonly hint?: string;
}

/** How one driver's failures become ConnectorErrors. */
export interface FailureSpec {
  readonly connector: 'postgres' | 'mysql';
  /** The server's name in messages ("PostgreSQL"). */
  readonly label: string;
  /** The settings used and where each came from. */
  readonly used: ServerUsed;
  /** Where the connection was configured. */
  readonly origin?: ConnectionOrigin;
  /** What else to check when the server refuses the login (pg_hba.conf, the user's grants). */
  readonly loginHint: string;
  readonly secrets: readonly (string | undefined)[];
  /** Classify a driver error. */
  classify(err: unknown): Classified;
  /** Driver specifics kept on the error (SQL state, driver code). */
  details(err: unknown): Record<string, unknown>;
}

/** A function turning a driver error (the SQL that failed, and what else is known) into a ConnectorError. */
export type Fail = (err: unknown, sql?: string, explanation?: string) => ConnectorError;

/** Build a driver's `fail`. */
export function failureOf(spec: FailureSpec): Fail {
  return (err, sql, explanation) => {
    const { kind, about, hint } = spec.classify(err);
    const what = kind === CONNECTOR_CODES.queryFailed ? 'query failed at' : kind === CONNECTOR_CODES.authFailed ? 'refused the login at' : 'unreachable at';
    const said = [about ? settingsHint(about, spec) : undefined, hint, explanation].filter((h) => h !== undefined && h !== '').join(' ');
    const statement = sql !== undefined && kind === CONNECTOR_CODES.queryFailed ? ` SQL: ${sqlExcerpt(sql)}` : '';
    return connectorError(spec.connector, kind, `${spec.label} ${what} ${describeServer(spec.used, spec.origin)}: ${causeText(err)}.${said ? ` ${said}` : ''}${statement}`, {
      cause: err,
      secrets: spec.secrets,
      details: { ...spec.details(err), ...(spec.origin ? { connection: spec.origin.name } : {}) },
    });
  };
}

/** What to check, naming each setting as the config sets it. */
function settingsHint(about: 'network' | 'database' | 'login', spec: FailureSpec): string {
  const { used, origin } = spec;
  const setting = (name: SettingName) => describeSetting(name, used, origin);
  const server = `${used.host.value}:${used.port.value}`;
  if (about === 'network') {
    if (!used.url) return `Check that the server runs at ${server} and that ${setting('host')} and ${setting('port')} are right.`;
    const url = used.url.from === 'env' ? `url from ${used.url.variable}` : origin?.fields?.url ? `url (${origin.fields.url.where})` : 'url';
    return `Check that the server runs at ${server} and that ${url} is right.`;
  }
  if (about === 'database') return `Create the database ${used.database.value ?? ''} on the server, or fix ${setting('database')}.`;
  return `Check ${setting('password')} and ${setting('user')}, ${spec.loginHint}.`;
}

/** Run `work`, turning a driver error into a ConnectorError that names `sql`; `explain` may add what it learns from the database. */
export async function guarded<T>(fail: Fail, sql: string, work: () => Promise<T>, explain?: (err: unknown, sql: string) => Promise<string | undefined>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const explanation = explain ? await explain(err, sql).catch(() => undefined) : undefined;
    throw fail(err, sql, explanation);
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
