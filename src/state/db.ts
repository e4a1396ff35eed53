/**
 * Opening the state database: WAL, busy timeout, and versioned migrations from
 * `migrations/NNNN_name.sql`. `PRAGMA user_version` holds the highest applied migration; a
 * database written by a newer shopsync is refused rather than half-understood.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';

export type Db = Database.Database;

/** One migration file. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Where the .sql files live: next to this module (`npm run build` copies them into dist/ beside the compiled code). */
function migrationsDir(): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
  if (!existsSync(dir)) throw new StateError('STATE_MIGRATIONS_MISSING', `state migrations not found in ${dir}; run npm run build (it copies src/**/*.sql beside the compiled code)`);
  return dir;
}

/** Read every migration in version order; versions must be 1, 2, 3… without gaps. */
export function loadMigrations(dir: string = migrationsDir()): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((m): m is { file: string; match: RegExpExecArray } => m.match !== null)
    .map(({ file, match }) => ({ version: Number(match[1]), name: match[2] ?? file, sql: readFileSync(join(dir, file), 'utf8') }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new StateError('STATE_MIGRATIONS_INVALID', `state migration ${m.version}_${m.name} is out of sequence: expected version ${i + 1}`);
  });
  return migrations;
}

/** Apply pending migrations, each in its own transaction; refuse a database newer than the code. */
export function migrate(db: Db, migrations: readonly Migration[], logger?: Logger): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  if (current > latest) {
    throw new StateError(
      'STATE_TOO_NEW',
      `the state database is at schema version ${current} but this shopsync knows only up to ${latest}; upgrade shopsync or point it at another state file`,
      { details: { current, latest } },
    );
  }
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    logger?.info({ version: m.version, name: m.name }, 'state migration applied');
  }
  return Math.max(current, latest);
}

/** Open (creating folders and file as needed) and migrate a state database. */
export function openDatabase(path: string, logger?: Logger, migrations?: readonly Migration[]): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    // Only takes effect on a new, empty file: retention can then hand freed pages back to the disk in steps.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL keeps every committed transaction across a process kill (only power loss can lose the last one).
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations ?? loadMigrations(), logger);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
