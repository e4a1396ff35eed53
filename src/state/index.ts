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
import { Runs } from './runs.js';

export * from './types.js';
export { emptyCounts, type RunFilter } from './runs.js';
export type { EventFilter, MinuteCount } from './events.js';
export type { NewDeadLetter } from './deadLetters.js';
export type { HistoryEntry, HistoryState } from './history.js';
export type { LockHandle, LockInfo, AcquireOptions } from './locks.js';
export { processAlive } from './locks.js';
export { loadMigrations, migrate, type Migration } from './db.js';

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
  /** Run `fn` in one IMMEDIATE transaction: all its writes land together or not at all. */
  transaction<T>(fn: () => T): T;
  /** Schema version of the open database. */
  schemaVersion(): number;
  /** Close the database (idempotent). */
  close(): Promise<void>;
}

class SqliteState implements StateStore {
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
  private closed = false;

  constructor(
    readonly path: string,
    private readonly db: Db,
  ) {
    this.cursors = new Cursors(db);
    this.refs = new References(db);
    this.hashes = new SentHashes(db);
    this.intents = new Intents(db);
    this.seen = new SeenHashes(db);
    this.runs = new Runs(db);
    this.events = new Events(db);
    this.deadLetters = new DeadLetters(db);
    this.history = new HistoryEntries(db);
    this.locks = new Locks(db);
  }

  transaction<T>(fn: () => T): T {
    // A nested call joins the outer transaction (better-sqlite3 uses savepoints).
    return this.db.inTransaction ? this.db.transaction(fn)() : this.db.transaction(fn).immediate();
  }

  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

/** Open (create, migrate) the state database at `path` (a file or `:memory:`). */
export function openState(path: string, options: StateOptions = {}): StateStore {
  const logger = (options.logger ?? silentLogger).child({ component: 'state' });
  const db = openDatabase(path, logger);
  return new SqliteState(path, db);
}
