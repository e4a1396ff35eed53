/**
 * Exit code and run status always agree (issue 25): after every spawned one-off command that
 * runs pipelines, the runs that process started must all be `succeeded` when it exited 0, and
 * none may be left `running` once it exited on its own. `runCli` checks this after every command,
 * so a test that ends a command early, or a command that ends quietly mid-run, fails on it.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../../src/config/index.js';
import type { StateLocation } from '../../src/state/index.js';

/** Commands that start runs and end by themselves (the daemon's `run` and `demo` do not end). */
const RUN_COMMANDS = new Set(['sync', 'backfill', 'dlq', 'reconcile', 'init']);

/** A run row as far as the check needs it. */
interface RunRow {
  readonly id: number;
  readonly pipeline: string;
  readonly mode: string;
  readonly status: string;
  readonly pid: number | null;
  readonly error: string | null;
}

/** Where a command's runs are written, and the last run id before it started. */
export interface RunLedger {
  readonly configFile: string;
  readonly before: number;
}

function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    for (const n of names) {
      if (a === n) return args[i + 1];
      if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}

function commandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '--config' || a === '--log-level') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function configFileOf(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const explicit = optionValue(args, ['--config', '-c']) ?? env.SHOPSYNC_CONFIG;
  if (explicit) return isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
  const dir = commandOf(args) === 'init' ? optionValue(args, ['--dir']) : undefined;
  return join(dir ? resolve(cwd, dir) : cwd, 'shopsync.yaml');
}

async function stateOf(configFile: string, env: NodeJS.ProcessEnv): Promise<StateLocation | undefined> {
  if (!existsSync(configFile)) return undefined;
  try {
    return (await loadConfig(configFile, { env })).state;
  } catch {
    // A config the test made invalid on purpose: the command ran no pipeline.
    return undefined;
  }
}

async function query(location: StateLocation, sql: { sqlite: string; postgres: string }, params: readonly number[]): Promise<Record<string, unknown>[]> {
  if (location.kind === 'sqlite') {
    if (location.path === ':memory:' || !existsSync(location.path)) return [];
    const db = new Database(location.path, { readonly: true, fileMustExist: true });
    try {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get();
      return exists ? (db.prepare(sql.sqlite).all(...params) as Record<string, unknown>[]) : [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url });
  try {
    await client.connect();
  } catch {
    return [];
  }
  try {
    const table = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [location.schema, 'runs']);
    if (table.rowCount === 0) return [];
    return (await client.query(sql.postgres.replaceAll('runs', `"${location.schema}".runs`), [...params])).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Before a command starts: the last run id of the state it will write to (undefined: not a run command). */
export async function openLedger(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunLedger | undefined> {
  const command = commandOf(args);
  if (!command || !RUN_COMMANDS.has(command) || args.includes('--help') || args.includes('-h')) return undefined;
  const configFile = configFileOf(args, cwd, env);
  const location = await stateOf(configFile, env);
  const rows = location ? await query(location, { sqlite: 'SELECT max(id) AS last FROM runs', postgres: 'SELECT max(id)::int AS last FROM runs' }, []) : [];
  return { configFile, before: Number(rows[0]?.last ?? 0) };
}

/** After the command exited on its own: throw when its exit code and the runs it started disagree. */
export async function checkAgreement(ledger: RunLedger, pid: number, code: number | null, env: NodeJS.ProcessEnv, output: string): Promise<void> {
  const location = await stateOf(ledger.configFile, env);
  if (!location) return;
  const rows = (await query(location, { sqlite: 'SELECT id, pipeline, mode, status, pid, error FROM runs WHERE id > ? AND pid = ? ORDER BY id', postgres: 'SELECT id::int, pipeline, mode, status, pid::int, error FROM runs WHERE id > $1 AND pid = $2 ORDER BY id' }, [ledger.before, pid])) as unknown as RunRow[];
  const line = (r: RunRow) => `run ${r.id} (${r.pipeline} ${r.mode})${r.error ? ` ${r.error}` : ''}`;
  const left = rows.filter((r) => r.status === 'running');
  if (left.length > 0) throw new Error(`the command exited (code ${code}) but left ${left.map(line).join('; ')} running: it ended in the middle of a run\n${output.slice(-2000)}`);
  const notOk = rows.filter((r) => r.status !== 'succeeded');
  if (code === 0 && notOk.length > 0) throw new Error(`the command exited 0 but ${notOk.map((r) => `${line(r)} ended ${r.status}`).join('; ')}: exit code and run status disagree\n${output.slice(-2000)}`);
}
