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
 *
 * A trigger function runs with the privileges of whoever writes the table (the ERP's owner, its
 * import), so nothing in it may resolve through that writer's search_path: the function has a
 * fixed `search_path = pg_catalog, pg_temp` and calls `pg_catalog.pg_notify` with exact types (a
 * `public.pg_notify(text, name)` planted by any role with CREATE on `public` would otherwise be the
 * better match for `TG_TABLE_NAME`, a `name`), and the install refuses a `shopsync_notify()` that
 * another role owns (CREATE OR REPLACE would keep that role as the owner of the code writers run).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

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
  /** Schema of the function alone, when it differs (`--apply` qualifies it with the session's `current_schema()`). @default schema */
  readonly functionSchema?: string;
  /** `SET LOCAL lock_timeout` of the DDL transaction: how long a trigger's DDL waits for a table lock. @default 5000 */
  readonly lockTimeoutMs?: number;
}

/** How long the trigger DDL waits for a table lock before it gives up (an open ERP transaction holds it). */
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;

/** The statements of a setup, both ways, and the names they use. */
export interface NotifySetup {
  readonly channel: string;
  /** The (qualified, quoted) function, e.g. `"erp"."shopsync_notify"`. */
  readonly functionName: string;
  /** The trigger's name on every table. */
  readonly triggerName: string;
  /** Quoted table names, in the order given. */
  readonly tables: readonly string[];
  /** What it was built from (`--apply` rebuilds it with the function's schema resolved). */
  readonly options: NotifySetupOptions;
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

/** The trigger function's body: fixed search_path, a qualified call with exact argument types. */
function functionSql(fn: string): string {
  // TG_ARGV[0] is the channel, so one function serves every pipeline; RETURN NULL: an AFTER trigger's result is ignored.
  return `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $shopsync$
BEGIN
  PERFORM pg_catalog.pg_notify(TG_ARGV[0], TG_TABLE_NAME::text);
  RETURN NULL;
END
$shopsync$`;
}

/**
 * The guard before CREATE OR REPLACE: stop when the function exists and another role owns it. It
 * runs with the installer's own search_path, so every call and operator in it is qualified.
 * `signature` is a SQL text expression naming the function with its schema.
 */
function ownerGuardSql(signature: string): string {
  return `DO $shopsync$
DECLARE
  fn pg_catalog.regprocedure := pg_catalog.to_regprocedure(${signature});
  owner pg_catalog.text;
BEGIN
  IF fn IS NOT NULL THEN
    SELECT pg_catalog.pg_get_userbyid(p.proowner) INTO owner FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) fn::pg_catalog.oid;
    IF owner OPERATOR(pg_catalog.<>) CURRENT_USER::pg_catalog.text THEN
      RAISE EXCEPTION 'shopsync: % exists and is owned by %, not by %: CREATE OR REPLACE would keep % as the owner of code every writer of the tables runs', fn, owner, CURRENT_USER, owner
        USING ERRCODE = 'P0001', HINT = 'Look at it (\\sf ' OPERATOR(pg_catalog.||) fn::pg_catalog.text OPERATOR(pg_catalog.||) '); if you did not put it there, drop it (DROP FUNCTION ' OPERATOR(pg_catalog.||) fn::pg_catalog.text OPERATOR(pg_catalog.||) ') and run the setup again.';
    END IF;
  END IF;
END $shopsync$`;
}

/** Build the install and removal statements of a channel's triggers. */
export function notifySetupSql(options: NotifySetupOptions): NotifySetup {
  const functionSchema = options.functionSchema ?? options.schema;
  const fn = quoteName(NOTIFY_FUNCTION, functionSchema);
  const trigger = quoteIdent(notifyTriggerName(options.channel));
  const tables = options.tables.map((t) => quoteName(t, options.schema));
  const lockTimeoutMs = Math.max(1, Math.round(options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS));
  // Trigger DDL takes each table's lock: without a timeout it queues behind an open ERP transaction, and every writer (for DROP TRIGGER every reader too) queues behind it.
  const lockTimeout = `SET LOCAL lock_timeout = '${lockTimeoutMs}ms'`;
  // An unqualified function is created in current_schema(): the guard looks there.
  const signature = functionSchema === undefined ? `pg_catalog.quote_ident(pg_catalog.current_schema()) OPERATOR(pg_catalog.||) '.${NOTIFY_FUNCTION}()'` : literal(`${fn}()`);
  const install = [
    lockTimeout,
    ownerGuardSql(signature),
    functionSql(fn),
    ...tables.flatMap((t) => [
      `DROP TRIGGER IF EXISTS ${trigger} ON ${t}`,
      `CREATE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${literal(options.channel)})`,
    ]),
  ];
  // The function is shared by every channel: it goes only when no trigger uses it any more.
  const dropSignature = literal(`${fn}()`);
  const drop = [
    lockTimeout,
    ...tables.map((t) => `DROP TRIGGER IF EXISTS ${trigger} ON ${t}`),
    `DO $shopsync$ BEGIN
  IF pg_catalog.to_regprocedure(${dropSignature}) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgfoid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(${dropSignature})::pg_catalog.oid) THEN
    DROP FUNCTION ${fn}();
  END IF;
END $shopsync$`,
  ];
  return { channel: options.channel, functionName: fn, triggerName: notifyTriggerName(options.channel), tables, options, install, drop };
}

/** The statements as a script for psql: a header saying what it does and needs, in one transaction. */
export function notifySetupScript(setup: NotifySetup, mode: 'install' | 'drop', pipeline = '<pipeline>'): string {
  const head =
    mode === 'install'
      ? [
          `-- shopsync: NOTIFY channel ${setup.channel} once per statement that changes ${setup.tables.join(', ')} (pipeline ${pipeline}).`,
          '-- Statement level, never per row; payload: the table name only (NOTIFY allows 8000 bytes). Safe to run again.',
          "-- Run it as the tables' owner (or a temporary setup role that is a member of the owner role), never as shopsync's sync user:",
          '-- a trigger function runs with the privileges of whoever writes the table, so whoever may create it acts as the ERP.',
          `-- Waits at most ${setup.options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS} ms for each table's lock (lock_timeout): an open ERP transaction makes it fail, not queue the ERP's writers.`,
          `-- Remove with: shopsync erp notify-setup ${pipeline} --table ${setup.tables.map((t) => t.replace(/"/g, '')).join(',')} --drop`,
        ]
      : [`-- shopsync: remove the NOTIFY triggers of channel ${setup.channel} from ${setup.tables.join(', ')} (pipeline ${pipeline}); the function goes once no trigger uses it.`];
  const statements = mode === 'install' ? setup.install : setup.drop;
  return [...head, 'BEGIN;', ...statements.map((s) => `${s};`), 'COMMIT;', ''].join('\n');
}

