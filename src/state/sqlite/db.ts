/**
 * Opening a SQLite state file: WAL, busy timeout, and the numbered migrations beside this module.
 * `PRAGMA user_version` holds the highest applied step; a file written by a newer shopsync is
 * refused rather than half-understood.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { StateError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { loadMigrations, logMigrated, tooNew, type Migration } from '../migrations.js';
import { createPrivateFileSync } from '../../util/privateFiles.js';

export type Db = Database.Database;

/** The SQLite migrations shipped with this module. */
export function sqliteMigrations(): Migration[] {
  return loadMigrations(join(dirname(fileURLToPath(import.meta.url)), 'migrations'));
}

/** Apply pending migrations, each in its own transaction; refuse a database newer than the code. */
export function migrate(db: Db, migrations: readonly Migration[], logger?: Logger): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  if (current > latest) throw tooNew(current, latest, 'database');
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    logger?.debug({ version: m.version, migration: m.name }, 'state migration applied');
  }
  logMigrated(logger, current, latest);
  return Math.max(current, latest);
}

/** Options of `openDatabase`. */
export interface OpenOptions {
  /** Open without writing anything (no pragma writes, no migration): for a state that cannot be written, to read it. @default false */
  readonly readOnly?: boolean;
}

/**
 * Open (creating folders and file as needed) and migrate a state database. Opening a current state
 * writes nothing, so a state on a full disk still opens; `readOnly` opens one that takes no writes
 * at all (a read-only file or mount), refusing only when it still needs a migration.
 */
export function openDatabase(path: string, logger?: Logger, migrations?: readonly Migration[], options: OpenOptions = {}): Db {
  if (options.readOnly) return openReadOnly(path, migrations ?? sqliteMigrations());
  // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  if (path !== ':memory:') createPrivateFileSync(path);
  const db = new Database(path);
  try {
    // Only on a new, empty file (an existing one ignores it, yet setting it asks for a write, which
    // fails on a full disk): retention can then hand freed pages back to the disk in steps.
    if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL keeps every committed transaction across a process kill (only power loss can lose the last one).
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations ?? sqliteMigrations(), logger?.child({ path }));
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function openReadOnly(path: string, migrations: readonly Migration[]): Db {
  const db = readOnlyConnection(path);
  try {
    db.pragma('busy_timeout = 5000');
    const current = db.pragma('user_version', { simple: true }) as number;
    const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
    if (current > latest) throw tooNew(current, latest, 'database');
    if (current < latest) throw new StateError('STATE_READ_ONLY', `the state ${path} is at schema version ${current} and needs migrating to ${latest}, which cannot be done while it cannot be written; make it writable (or free space) and open it again`, { details: { path, current, latest } });
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** A read-only copy in memory is made of files up to this size only. */
const MAX_MEMORY_COPY_BYTES = 512 * 1024 * 1024;

/**
 * A read-only connection to the file. SQLite reads a WAL database only with its -wal and -shm files
 * beside it, which it cannot create on a read-only mount (or a full disk). When no -wal file holds
 * commits the file alone is the whole state, so it is read from a copy in memory, its header
 * switched to rollback mode (bytes 18 and 19: the WAL it names does not exist).
 */
function readOnlyConnection(path: string): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('user_version', { simple: true });
    return db;
  } catch (err) {
    db.close();
    const wal = `${path}-wal`;
    const walEmpty = !existsSync(wal) || statSync(wal).size === 0;
    const code = String((err as { code?: unknown }).code ?? '');
    // CANTOPEN on a read-only mount, an I/O error sizing the -shm on a full disk.
    const noShm = code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY');
    if (!noShm || !walEmpty || statSync(path).size > MAX_MEMORY_COPY_BYTES) throw err;
    const bytes = readFileSync(path);
    if (bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
    return new Database(bytes, { readonly: true });
  }
}

const markTexts: string[] = [];

/** `?, ?, …` for n values (kept per n: every batch read of the state asks for the same few). */
export function marks(n: number): string {
  return (markTexts[n] ??= Array.from({ length: n }, () => '?').join(', '));
}

/** SQLite allows 32,766 bound parameters; key lists are read in chunks well below that. */
export const KEY_CHUNK = 500;

/** Split a list into chunks of at most `size`. */
export function chunks<T>(list: readonly T[], size = KEY_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const statements = new WeakMap<Db, Map<string, Database.Statement<unknown[], unknown>>>();

/** A statement prepared once per database and SQL text (queries whose text varies with their filters). */
export function cached<P extends unknown[] = unknown[], R = unknown>(db: Db, sql: string): Database.Statement<P, R> {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt as unknown as Database.Statement<P, R>;
}
