/**
 * `notify-setup --apply`: the statements of setup.ts run in one transaction on the source
 * connection, with what it did said per object, and the three refusals an operator must act on
 * explained: a `shopsync_notify()` another role owns (NOTIFY_SETUP_FOREIGN_FUNCTION), missing
 * privileges (NOTIFY_SETUP_PRIVILEGES: run it as the tables' owner, never grant the sync user
 * TRIGGER or CREATE), and a table lock held by an open ERP transaction past `lock_timeout`
 * (NOTIFY_SETUP_LOCK_TIMEOUT, naming the sessions that hold it).
 *
 * Every catalog query here runs with the installer's search_path, so its calls and operators are
 * qualified with pg_catalog: a role with CREATE on a schema on that path cannot slip in its own.
 */
import pg from 'pg';
import { ConnectorError } from '../../errors.js';
import type { PostgresConnection } from '../../erp/connection.js';
import type { Executor, SqlDriver } from '../../erp/sql/driver.js';
import { openPostgres } from '../../erp/sql/postgres.js';
import { silentLogger, type Logger } from '../../log.js';
import { DEFAULT_LOCK_TIMEOUT_MS, NOTIFY_FUNCTION, notifySetupSql, type NotifySetup, type NotifySetupOptions } from './setup.js';

/** Stable codes of the refusals of `--apply`. */
export const NOTIFY_SETUP_CODES = {
  privileges: 'NOTIFY_SETUP_PRIVILEGES',
  foreignFunction: 'NOTIFY_SETUP_FOREIGN_FUNCTION',
  lockTimeout: 'NOTIFY_SETUP_LOCK_TIMEOUT',
} as const;

/** What `applyNotifySetup` did, per object. */
export interface AppliedSetup {
  readonly mode: 'install' | 'drop';
  /** The function as installed, schema-qualified (an unqualified one is qualified with the session's current_schema()). */
  readonly functionName: string;
  /** `created`/`replaced` (install), `dropped`/`kept: still used by N triggers`/`absent` (drop). */
  readonly function: string;
  readonly triggers: readonly { readonly table: string; readonly did: 'created' | 'replaced' | 'dropped' | 'absent' }[];
  /** Things to tell the operator that did not stop the install (a schema where PUBLIC may create). */
  readonly notes: readonly string[];
}

const quoteIdent = (name: string): string => pg.escapeIdentifier(name);

async function triggerExists(tx: Executor, trigger: string, table: string): Promise<boolean> {
  // to_regclass: a missing table is NULL here, and the DDL that follows names it in its error.
  const rows = await tx.query('SELECT 1 AS x FROM pg_catalog.pg_trigger WHERE tgname OPERATOR(pg_catalog.=) $1::pg_catalog.name AND tgrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass($2::pg_catalog.text)::pg_catalog.oid', [trigger, table]);
  return rows.length > 0;
}

async function functionUsers(tx: Executor, fn: string): Promise<number | undefined> {
  const [row] = await tx.query(
    'SELECT pg_catalog.to_regprocedure($1::pg_catalog.text) IS NOT NULL AS present, (SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger WHERE tgfoid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure($1::pg_catalog.text)::pg_catalog.oid)::pg_catalog.int4 AS users',
    [`${fn}()`],
  );
  return row?.present === true ? Number(row.users) : undefined;
}

/** The function's owner and schema when it exists. */
async function functionOwner(tx: Executor, fn: string): Promise<{ owner: string; schema: string } | undefined> {
  const [row] = await tx.query(
    `SELECT pg_catalog.pg_get_userbyid(p.proowner) AS owner, n.nspname AS schema
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
      WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure($1::pg_catalog.text)::pg_catalog.oid`,
    [`${fn}()`],
  );
  return row ? { owner: String(row.owner), schema: String(row.schema) } : undefined;
}

/** The setup with the function qualified: an unqualified one goes where CREATE puts it, current_schema(). */
async function qualified(tx: Executor, setup: NotifySetup): Promise<{ setup: NotifySetup; schema: string }> {
  const given = setup.options.functionSchema ?? setup.options.schema;
  if (given !== undefined) return { setup, schema: given };
  const [row] = await tx.query('SELECT pg_catalog.current_schema() AS s', []);
  const schema = row?.s;
  // No schema of the search_path exists: CREATE FUNCTION names that itself, so leave it to say so.
  if (typeof schema !== 'string') return { setup, schema: 'public' };
  return { setup: notifySetupSql({ ...setup.options, functionSchema: schema }), schema };
}

/**
 * Run the install (or removal) in one transaction on an open PostgreSQL driver and say what it did.
 * Refuses a `shopsync_notify()` another role owns (NOTIFY_SETUP_FOREIGN_FUNCTION); rethrows 42501
 * as NOTIFY_SETUP_PRIVILEGES and a lock wait past lock_timeout (55P03) as NOTIFY_SETUP_LOCK_TIMEOUT.
 */
export async function applyNotifySetup(driver: Pick<SqlDriver, 'transaction' | 'query'>, given: NotifySetup, mode: 'install' | 'drop'): Promise<AppliedSetup> {
  let user = '<user>';
  let setup = given;
  try {
    return await driver.transaction(async (tx) => {
      user = String((await tx.query('SELECT CURRENT_USER::pg_catalog.text AS u', []))[0]?.u ?? user);
      const resolved = await qualified(tx, given);
      setup = resolved.setup;
      const fnBefore = await functionUsers(tx, setup.functionName);
      const notes: string[] = [];
      if (mode === 'install') {
        const existing = await functionOwner(tx, setup.functionName);
        if (existing && existing.owner !== user) throw foreignFunctionError(setup, existing.owner, user);
        const [open] = await tx.query("SELECT pg_catalog.has_schema_privilege('public', $1::pg_catalog.text, 'CREATE') AS open", [resolved.schema]);
        if (open?.open === true) {
          notes.push(
            `every role may create objects in schema ${quoteIdent(resolved.schema)} (CREATE granted to PUBLIC): the function is safe from that (fixed search_path, qualified calls, owner checked here), but the ERP's own functions may not be; consider REVOKE CREATE ON SCHEMA ${quoteIdent(resolved.schema)} FROM PUBLIC (docs/security.md)`,
          );
        }
      }
      const triggers: AppliedSetup['triggers'][number][] = [];
      for (const table of setup.tables) {
        const existed = await triggerExists(tx, setup.triggerName, table);
        triggers.push({ table, did: mode === 'install' ? (existed ? 'replaced' : 'created') : existed ? 'dropped' : 'absent' });
      }
      for (const sql of mode === 'install' ? setup.install : setup.drop) await tx.query(sql, []);
      const functionName = setup.functionName;
      if (mode === 'install') return { mode, functionName, function: fnBefore === undefined ? 'created' : 'replaced', triggers, notes };
      const fnAfter = await functionUsers(tx, setup.functionName);
      return { mode, functionName, function: fnBefore === undefined ? 'absent' : fnAfter === undefined ? 'dropped' : `kept: still used by ${fnAfter} trigger${fnAfter === 1 ? '' : 's'}`, triggers, notes };
    });
  } catch (err) {
    const state = sqlStateOf(err);
    if (state === '42501') throw await privilegeError(driver, err, setup, user);
    if (state === '55P03') throw await lockTimeoutError(driver, err, setup, mode);
    throw err;
  }
}

/**
 * Install (or remove) a channel's triggers on a PostgreSQL connection in one call: opens it with
 * the connector's own settings (env fallbacks, TLS, `schema:` as search_path), applies, closes.
 * For programs (the latency bench); the CLI does the same through `shopsync erp notify-setup`.
 */
export async function applyNotifySetupTo(
  connection: PostgresConnection,
  options: Omit<NotifySetupOptions, 'schema'> & { readonly drop?: boolean },
  context: { readonly env?: NodeJS.ProcessEnv; readonly logger?: Logger; readonly baseDir?: string } = {},
): Promise<AppliedSetup> {
  const { drop, ...rest } = options;
  const setup = notifySetupSql({ ...rest, ...(connection.schema ? { schema: connection.schema } : {}) });
  const driver = await openPostgres(connection, context.env ?? process.env, context.logger ?? silentLogger, false, context.baseDir ?? process.cwd());
  try {
    return await applyNotifySetup(driver, setup, drop ? 'drop' : 'install');
  } finally {
    await driver.close();
  }
}

function sqlStateOf(err: unknown): string | undefined {
  if (err instanceof ConnectorError && typeof err.details?.sqlState === 'string') return err.details.sqlState;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function foreignFunctionError(setup: NotifySetup, owner: string, user: string): ConnectorError {
  return new ConnectorError(
    NOTIFY_SETUP_CODES.foreignFunction,
    `${setup.functionName}() already exists and is owned by ${quoteIdent(owner)}, not by ${quoteIdent(user)} who runs the setup: nothing was changed. ` +
      `CREATE OR REPLACE would keep ${quoteIdent(owner)} as the owner of code that every writer of the tables runs with its own privileges. ` +
      `Look at it (psql: \\sf ${setup.functionName}); if you did not put it there, drop it (DROP FUNCTION ${setup.functionName}();) and run the setup again as the tables' owner; ` +
      `if ${quoteIdent(owner)} is the tables' owner, run the setup as ${quoteIdent(owner)} instead.`,
    { connector: 'postgres', details: { owner, function: setup.functionName } },
  );
}

/** The owners of the tables, to say whom the printed SQL should run as. */
async function tableOwners(driver: Pick<SqlDriver, 'query'>, tables: readonly string[]): Promise<string[]> {
  try {
    const rows = await driver.query(
      'SELECT DISTINCT pg_catalog.pg_get_userbyid(c.relowner) AS owner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT pg_catalog.to_regclass(t)::pg_catalog.oid FROM pg_catalog.unnest($1::pg_catalog.text[]) AS t))',
      [tables],
    );
    return rows.map((r) => String(r.owner));
  } catch {
    return [];
  }
}

async function privilegeError(driver: Pick<SqlDriver, 'query'>, err: unknown, setup: NotifySetup, user: string): Promise<ConnectorError> {
  const owners = await tableOwners(driver, setup.tables);
  const owner = owners.length === 1 ? quoteIdent(owners[0] as string) : owners.length > 1 ? owners.map(quoteIdent).join(' or ') : "the tables' owner";
  const cause = err instanceof Error ? err.message : String(err);
  return new ConnectorError(
    NOTIFY_SETUP_CODES.privileges,
    `PostgreSQL refused the NOTIFY setup as ${user === '<user>' ? user : quoteIdent(user)} for want of privileges (42501): ${cause}. ` +
      `Run the printed SQL as ${owner} (the tables' owner), or as a temporary setup role that is a member of it (after SET ROLE ${owners[0] !== undefined ? quoteIdent(owners[0]) : '<owner>'}, so the function belongs to the owner) and is dropped afterwards: ` +
      `shopsync erp notify-setup <pipeline> --table ${setup.tables.map((t) => t.replace(/"/g, '')).join(',')} > notify.sql; psql -U ${owners[0] ?? '<owner>'} -f notify.sql. ` +
      `Do not grant TRIGGER on the tables or CREATE on the schema to shopsync's sync user: a trigger function runs with the privileges of whoever writes the table, so that would make the read-only login as powerful as the ERP (docs/security.md).`,
    { connector: 'postgres', cause: err, details: { sqlState: '42501', ...(owners.length > 0 ? { owners } : {}) } },
  );
}

/** The other sessions holding a lock on one of the tables: for the DDL's ACCESS EXCLUSIVE lock, each of them blocks it. */
async function lockHolders(driver: Pick<SqlDriver, 'query'>, tables: readonly string[]): Promise<string[]> {
  try {
    const rows = await driver.query(
      `SELECT l.pid, c.relname AS "table", pg_catalog.string_agg(DISTINCT l.mode, ', ') AS modes, a.usename AS "user", a.application_name AS app, a.state, a.xact_start, a.query_start
         FROM pg_catalog.pg_locks l
         JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) l.relation
         LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
        WHERE l.locktype OPERATOR(pg_catalog.=) 'relation' AND l.granted AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
          AND l.relation OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT pg_catalog.to_regclass(t)::pg_catalog.oid FROM pg_catalog.unnest($1::pg_catalog.text[]) AS t))
        GROUP BY l.pid, c.relname, a.usename, a.application_name, a.state, a.xact_start, a.query_start
        ORDER BY a.xact_start NULLS LAST, l.pid`,
      [tables],
    );
    const at = (v: unknown): string => (v instanceof Date ? v.toISOString() : v == null ? 'unknown' : String(v));
    return rows.map(
      (r) =>
        `pid ${String(r.pid)} (user ${r.user == null ? 'unknown' : String(r.user)}, application_name "${r.app == null ? '' : String(r.app)}", state ${r.state == null ? 'unknown (needs pg_read_all_stats to see)' : String(r.state)}, transaction since ${at(r.xact_start)}, query since ${at(r.query_start)}) holds ${String(r.modes)} on ${String(r.table)}`,
    );
  } catch {
    return [];
  }
}

async function lockTimeoutError(driver: Pick<SqlDriver, 'query'>, err: unknown, setup: NotifySetup, mode: 'install' | 'drop'): Promise<ConnectorError> {
  const timeoutMs = setup.options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const holders = await lockHolders(driver, setup.tables);
  return new ConnectorError(
    NOTIFY_SETUP_CODES.lockTimeout,
    `the NOTIFY ${mode === 'install' ? 'setup' : 'removal'} waited ${timeoutMs} ms for a table lock and gave up (lock_timeout, 55P03): nothing was changed, and the ERP's sessions that queued behind it went on. ` +
      (holders.length > 0 ? `Holding a lock on the tables: ${holders.join('; ')}. ` : 'The session that held the lock has ended meanwhile. ') +
      `Retry when that transaction has ended (a quiet moment of the ERP), or with a longer wait: --lock-timeout 30s (every writer of the tables waits that long behind the DDL); ` +
      `a session idle in transaction for long is a bug of its client (SELECT pg_catalog.pg_terminate_backend(<pid>) ends it).`,
    { connector: 'postgres', cause: err, details: { sqlState: '55P03', lockTimeoutMs: timeoutMs, holders, function: NOTIFY_FUNCTION } },
  );
}
