/**
 * The SQL that makes a PostgreSQL ERP wake a pipeline: one trigger function `shopsync_notify()`
 * and, per source table, a statement-level trigger calling it with the pipeline's channel. Printed
 * by `shopsync erp notify-setup`, applied with `--apply`, removed with `--drop`; the latency bench
 * installs it through the same functions.
 *
 * Why statement level and a payload of the table name only: NOTIFY takes a global lock when the
 * notifying transaction commits, so every notification costs the ERP commit throughput; one per
 * statement (and PostgreSQL folds identical ones within a transaction into one) keeps a
 * 10,000-row UPDATE at one notification, and the table name stays far below the 8000-byte limit.
 * The payload is never data: the woken run reads from its cursor.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { ConnectorError } from '../../errors.js';
import type { PostgresConnection } from '../../erp/connection.js';
import type { Executor, SqlDriver } from '../../erp/sql/driver.js';
import { openPostgres } from '../../erp/sql/postgres.js';
import { silentLogger, type Logger } from '../../log.js';

/** The trigger function's name (one for every channel: the channel is the trigger's argument). */
export const NOTIFY_FUNCTION = 'shopsync_notify';

/** What to install: a channel, the tables that notify it, and the schema of unqualified names. */
export interface NotifySetupOptions {
  /** The NOTIFY channel the pipeline listens on (`notifyChannel()`). */
  readonly channel: string;
  /** Source tables, `artikel` or `erp.artikel`. */
  readonly tables: readonly string[];
  /** Schema of the function and of unqualified tables (the connection's `schema:`); absent: the session's search_path decides. */
  readonly schema?: string;
}

/** The statements of a setup, both ways, and the names they use. */
export interface NotifySetup {
  readonly channel: string;
  /** The (qualified, quoted) function, e.g. `"erp"."shopsync_notify"`. */
  readonly functionName: string;
  /** The trigger's name on every table. */
  readonly triggerName: string;
  /** Quoted table names, in the order given. */
  readonly tables: readonly string[];
  readonly install: readonly string[];
  readonly drop: readonly string[];
}

const quoteIdent = (name: string): string => pg.escapeIdentifier(name);
const quoteName = (name: string, schema: string | undefined): string => {
  const parts = name.split('.');
  return (parts.length === 1 && schema !== undefined ? [schema, name] : parts).map(quoteIdent).join('.');
};
const literal = (text: string): string => pg.escapeLiteral(text);

/**
 * The trigger's name: the channel itself when it starts with `shopsync` (the default channels do),
 * else prefixed, so `DROP TRIGGER IF EXISTS` can never remove a trigger of the ERP's own.
 */
export function notifyTriggerName(channel: string): string {
  const name = channel.startsWith('shopsync') ? channel : `shopsync_${channel}`;
  if (name.length <= 63) return name;
  return `${name.slice(0, 54)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** Build the install and removal statements of a channel's triggers. */
export function notifySetupSql(options: NotifySetupOptions): NotifySetup {
  const fn = quoteName(NOTIFY_FUNCTION, options.schema);
  const trigger = quoteIdent(notifyTriggerName(options.channel));
  const tables = options.tables.map((t) => quoteName(t, options.schema));
  const install = [
    // TG_ARGV[0] is the channel, so one function serves every pipeline; RETURN NULL: an AFTER trigger's result is ignored.
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $shopsync$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], TG_TABLE_NAME);
  RETURN NULL;
END
$shopsync$`,
    ...tables.flatMap((t) => [
      `DROP TRIGGER IF EXISTS ${trigger} ON ${t}`,
      `CREATE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${literal(options.channel)})`,
    ]),
  ];
  // The function is shared by every channel: it goes only when no trigger uses it any more.
  const signature = literal(`${fn}()`);
  const drop = [
    ...tables.map((t) => `DROP TRIGGER IF EXISTS ${trigger} ON ${t}`),
    `DO $shopsync$ BEGIN
  IF to_regprocedure(${signature}) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgfoid = to_regprocedure(${signature})) THEN
    DROP FUNCTION ${fn}();
  END IF;
END $shopsync$`,
  ];
  return { channel: options.channel, functionName: fn, triggerName: notifyTriggerName(options.channel), tables, install, drop };
}

/** The statements as a script for psql: a header saying what it does and needs, in one transaction. */
export function notifySetupScript(setup: NotifySetup, mode: 'install' | 'drop', pipeline = '<pipeline>'): string {
  const head =
    mode === 'install'
      ? [
          `-- shopsync: NOTIFY channel ${setup.channel} once per statement that changes ${setup.tables.join(', ')} (pipeline ${pipeline}).`,
          '-- Statement level, never per row; payload: the table name only (NOTIFY allows 8000 bytes). Safe to run again.',
          '-- Needs: ownership of each table (or the TRIGGER privilege, for a first install) and CREATE on the schema of the function.',
          `-- Remove with: shopsync erp notify-setup ${pipeline} --table ${setup.tables.map((t) => t.replace(/"/g, '')).join(',')} --drop`,
        ]
      : [`-- shopsync: remove the NOTIFY triggers of channel ${setup.channel} from ${setup.tables.join(', ')} (pipeline ${pipeline}); the function goes once no trigger uses it.`];
  const statements = mode === 'install' ? setup.install : setup.drop;
  return [...head, 'BEGIN;', ...statements.map((s) => `${s};`), 'COMMIT;', ''].join('\n');
}

/** What `applyNotifySetup` did, per object. */
export interface AppliedSetup {
  readonly mode: 'install' | 'drop';
  /** `created`/`replaced` (install), `dropped`/`kept: still used by N triggers`/`absent` (drop). */
  readonly function: string;
  readonly triggers: readonly { readonly table: string; readonly did: 'created' | 'replaced' | 'dropped' | 'absent' }[];
}

async function triggerExists(tx: Executor, trigger: string, table: string): Promise<boolean> {
  // to_regclass: a missing table is NULL here, and the DDL that follows names it in its error.
  const rows = await tx.query('SELECT 1 AS x FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass($2)', [trigger, table]);
  return rows.length > 0;
}

async function functionUsers(tx: Executor, fn: string): Promise<number | undefined> {
  const [row] = await tx.query('SELECT to_regprocedure($1) IS NOT NULL AS present, (SELECT count(*) FROM pg_trigger WHERE tgfoid = to_regprocedure($1))::int AS users', [`${fn}()`]);
  return row?.present === true ? Number(row.users) : undefined;
}

/**
 * Run the install (or removal) in one transaction on an open PostgreSQL driver and say what it did.
 * A refusal for want of privileges (SQLSTATE 42501) is rethrown as NOTIFY_SETUP_PRIVILEGES naming the GRANTs.
 */
export async function applyNotifySetup(driver: Pick<SqlDriver, 'transaction'>, setup: NotifySetup, mode: 'install' | 'drop'): Promise<AppliedSetup> {
  let user = '<user>';
  try {
    return await driver.transaction(async (tx) => {
      user = String((await tx.query('SELECT current_user AS u', []))[0]?.u ?? user);
      const fnBefore = await functionUsers(tx, setup.functionName);
      const triggers: AppliedSetup['triggers'][number][] = [];
      for (const table of setup.tables) {
        const existed = await triggerExists(tx, setup.triggerName, table);
        triggers.push({ table, did: mode === 'install' ? (existed ? 'replaced' : 'created') : existed ? 'dropped' : 'absent' });
      }
      for (const sql of mode === 'install' ? setup.install : setup.drop) await tx.query(sql, []);
      if (mode === 'install') return { mode, function: fnBefore === undefined ? 'created' : 'replaced', triggers };
      const fnAfter = await functionUsers(tx, setup.functionName);
      return { mode, function: fnBefore === undefined ? 'absent' : fnAfter === undefined ? 'dropped' : `kept: still used by ${fnAfter} trigger${fnAfter === 1 ? '' : 's'}`, triggers };
    });
  } catch (err) {
    if (sqlStateOf(err) === '42501') throw privilegeError(err, setup, user);
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
  const setup = notifySetupSql({ channel: options.channel, tables: options.tables, ...(connection.schema ? { schema: connection.schema } : {}) });
  const driver = await openPostgres(connection, context.env ?? process.env, context.logger ?? silentLogger, false, context.baseDir ?? process.cwd());
  try {
    return await applyNotifySetup(driver, setup, options.drop ? 'drop' : 'install');
  } finally {
    await driver.close();
  }
}

function sqlStateOf(err: unknown): string | undefined {
  if (err instanceof ConnectorError && typeof err.details?.sqlState === 'string') return err.details.sqlState;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function privilegeError(err: unknown, setup: NotifySetup, user: string): ConnectorError {
  const schemaOf = (name: string): string => (name.includes('.') ? (name.split('.')[0] as string) : 'public');
  const schemas = [...new Set([schemaOf(setup.functionName), ...setup.tables.map(schemaOf)])];
  const who = user === '<user>' ? user : quoteIdent(user);
  const grants = [`GRANT TRIGGER ON ${setup.tables.join(', ')} TO ${who};`, ...schemas.map((s) => `GRANT CREATE ON SCHEMA ${s} TO ${who};`)].join(' ');
  const cause = err instanceof Error ? err.message : String(err);
  return new ConnectorError(
    'NOTIFY_SETUP_PRIVILEGES',
    `PostgreSQL refused the NOTIFY setup for want of privileges (42501): ${cause}. ` +
      `Installing needs CREATE on the function's schema and the TRIGGER privilege on each table; replacing or dropping a trigger needs ownership of the table. ` +
      `Either run the printed SQL as the tables' owner (shopsync erp notify-setup <pipeline> > notify.sql; psql -f notify.sql), or have the owner run: ${grants}`,
    { connector: 'postgres', cause: err, details: { sqlState: '42501' } },
  );
}
