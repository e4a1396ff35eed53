/**
 * The state store: one SQLite file (WAL) holding everything that makes a run safe to interrupt
 * and repeat. See `types.ts` for the glossary. Open it with `openState`, close it with `close()`.
 */
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { Cursors } from './cursors.js';
import { DeadLetters } from './deadLetters.js';
import { openDatabase, type Db } from './db.js';
import { Events } from './events.js';
import { HistoryEntries } from './history.js';
import { Locks } from './locks.js';
import { Intents, References, SeenHashes, SentHashes } from './refs.js';
import { Retention } from './retention.js';
import { Runs } from './runs.js';

export * from './types.js';
export { emptyCounts, type RunFilter } from './runs.js';
export type { EventFilter, MinuteCount } from './events.js';
export type { NewDeadLetter } from './deadLetters.js';
export type { HistoryEntry, HistoryState } from './history.js';
export type { LockHandle, LockInfo, AcquireOptions } from './locks.js';
export { processAlive } from './locks.js';
export { loadMigrations, migrate, type Migration } from './db.js';
export { DEFAULT_RETENTION, type PruneReport, type RetentionPolicy } from './retention.js';

/** Options of `openState`. */
export interface StateOptions {
  readonly logger?: Logger;
}

/** The state store: typed tables plus a transaction helper. */
export interface StateStore {
  /** File path (or `:memory:`). */
  readonly path: string;
  readonly cursors: Cursors;
  readonly refs: References;
  readonly hashes: SentHashes;
  readonly intents: Intents;
  readonly seen: SeenHashes;
  readonly runs: Runs;
  readonly events: Events;
  readonly deadLetters: DeadLetters;
  readonly history: HistoryEntries;
  readonly locks: Locks;
  /** Pruning old history and reclaiming space (`state.retention`). */
  readonly retention: Retention;
  /** Write a consistent copy of the open state to `file` (SQLite's online backup; writers may go on meanwhile). */
  backup(file: string): Promise<void>;
  /** Run `fn` in one IMMEDIATE transaction: all its writes land together or not at all. */
  transaction<T>(fn: () => T): T;
  /** Schema version of the open database. */
  schemaVersion(): number;
  /** Close the database (idempotent). */
  close(): Promise<void>;
}

/** Open (create, migrate) the state database at `path` (a file or `:memory:`). */
export function openState(path: string, options: StateOptions = {}): StateStore {
  const logger = (options.logger ?? silentLogger).child({ component: 'state' });
  const db: Db = openDatabase(path, logger);
  let closed = false;
  return {
    path,
    cursors: new Cursors(db),
    refs: new References(db),
    hashes: new SentHashes(db),
    intents: new Intents(db),
    seen: new SeenHashes(db),
    runs: new Runs(db),
    events: new Events(db),
    deadLetters: new DeadLetters(db),
    history: new HistoryEntries(db),
    locks: new Locks(db),
    retention: new Retention(db, path, logger),
    async backup(file: string): Promise<void> {
      await db.backup(file);
    },
    transaction<T>(fn: () => T): T {
      // A nested call joins the outer transaction (better-sqlite3 uses savepoints).
      return db.inTransaction ? db.transaction(fn)() : db.transaction(fn).immediate();
    },
    schemaVersion(): number {
      return db.pragma('user_version', { simple: true }) as number;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
