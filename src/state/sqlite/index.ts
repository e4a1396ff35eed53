/**
 * The SQLite state backend: one file (WAL), the embedded default. Reads run synchronously inside
 * async methods (better-sqlite3 is in-process, so a query costs microseconds); `write` runs the
 * recorded writes as they come inside one IMMEDIATE transaction.
 */
import { silentLogger, type Logger } from '../../log.js';
import type { StateStore, StateWriter } from '../store.js';
import { DEFAULT_SHOP } from '../store.js';
import { SqliteCursors } from './cursors.js';
import { openDatabase, type Db } from './db.js';
import { createPrivateFileSync } from '../../util/privateFiles.js';
import { bytesText, fileDiskFull, freeSpaceOf, guardStore, isUnwritable } from '../faults.js';
import { MIN_FREE_BYTES, readOnlyFile, translateSqlite } from './faults.js';
import { SqliteDeadLetters } from './deadLetters.js';
import { SqliteDump } from './dump.js';
import { SqliteEvents } from './events.js';
import { SqliteHistory } from './history.js';
import { SqliteLocks } from './locks.js';
import { SqliteIntents, SqliteReferences, SqliteSeen, SqliteSentHashes } from './refs.js';
import { SqliteIncidents } from './incidents.js';
import { SqliteStreaks } from './streaks.js';
import { SqliteReservations, SqliteStockSent } from './reservations.js';
import { SqliteFollowed } from './followed.js';
import { SqliteConflicts, SqliteSentValues } from './conflicts.js';
import { SqliteReplicas } from './replicas.js';
import { SqliteRetention } from './retention.js';
import { SqliteRuns } from './runs.js';
import { WriteBuffer } from './writeBuffer.js';
import { MarkedRewinds } from '../rewinds.js';

export { processAlive } from './locks.js';
export { openDatabase, migrate, sqliteMigrations } from './db.js';

/** What every shop's view shares: the connection and the per-pipeline tables. */
interface Shared {
  readonly db: Db;
  readonly path: string;
  readonly buffer: WriteBuffer;
  readonly cursors: SqliteCursors;
  readonly hashes: SqliteSentHashes;
  readonly seen: SqliteSeen;
  readonly locks: SqliteLocks;
  readonly replicas: SqliteReplicas;
  readonly incidents: SqliteIncidents;
  readonly streaks: SqliteStreaks;
  readonly reservations: SqliteReservations;
  readonly stockSent: SqliteStockSent;
  readonly followed: SqliteFollowed;
  readonly conflicts: SqliteConflicts;
  readonly sentValues: SqliteSentValues;
  readonly rewinds: MarkedRewinds;
  readonly retention: SqliteRetention;
  readonly dump: SqliteDump;
  readonly views: Map<string, StateStore>;
  closed: boolean;
}

function view(shared: Shared, shop: string): StateStore {
  const existing = shared.views.get(shop);
  if (existing) return existing;
  const { db } = shared;
  const refs = new SqliteReferences(db, shop, shared.buffer);
  const intents = new SqliteIntents(db, shop);
  const runs = new SqliteRuns(db, shop);
  const events = new SqliteEvents(db, shop, shared.buffer);
  const deadLetters = new SqliteDeadLetters(db, shop, shared.buffer);
  const history = new SqliteHistory(db, shop);
  const writer: StateWriter = {
    refs,
    hashes: shared.hashes,
    intents,
    seen: shared.seen,
    events,
    deadLetters,
    history,
    cursors: { set: (pipeline, name, cursor) => shared.cursors.setNow(pipeline, name, cursor) },
    runs: { saveCounts: (id, counts) => runs.saveCountsNow(id, counts) },
    stockSent: { put: (row) => shared.stockSent.putLater(row), forget: (pipeline, recordKey, field) => shared.stockSent.forgetNow(pipeline, recordKey, field) },
    followed: { put: (row) => shared.followed.putNow(row) },
    conflicts: { put: (conflict) => shared.conflicts.putNow(conflict) },
    sentValues: { put: (pipeline, recordKey, field, value, erp) => shared.sentValues.putNow(pipeline, recordKey, field, value, erp) },
  };
  const store: StateStore = {
    backend: 'sqlite',
    location: shared.path,
    shop,
    forShop: (other) => view(shared, other),
    cursors: shared.cursors,
    refs,
    hashes: shared.hashes,
    intents,
    seen: shared.seen,
    runs,
    events,
    deadLetters,
    history,
    locks: shared.locks,
    replicas: shared.replicas,
    incidents: shared.incidents,
    streaks: shared.streaks,
    reservations: shared.reservations,
    stockSent: shared.stockSent,
    followed: shared.followed,
    conflicts: shared.conflicts,
    sentValues: shared.sentValues,
    rewinds: shared.rewinds,
    retention: shared.retention,
    dump: shared.dump,
    async write(fn) {
      // Rows are inserted many to a statement when the outermost write ends, inside its transaction (writeBuffer.ts); a write that throws inserts none of its own.
      const { buffer } = shared;
      const nested = db.inTransaction;
      // A nested write runs in a savepoint: what the outer one added goes in before it, so a rollback of the savepoint cannot take it along.
      if (nested) buffer.flush();
      const run = () => {
        try {
          buffer.within(() => fn(writer));
          buffer.flush();
        } catch (err) {
          buffer.discard();
          throw err;
        }
      };
      // A nested call joins the outer transaction (better-sqlite3 uses savepoints).
      if (nested) db.transaction(run)();
      else db.transaction(run).immediate();
    },
    async backup(file) {
      // A copy of the state is as private as the state.
      createPrivateFileSync(file);
      await db.backup(file);
    },
    async schemaVersion() {
      return db.pragma('user_version', { simple: true }) as number;
    },
    async probeWrite() {
      probeWrite(db, shared.path);
    },
    async close() {
      if (shared.closed) return;
      shared.closed = true;
      db.close();
    },
  };
  // Driver errors of a full disk or a read-only file become named errors here, for every caller.
  const guarded = guardStore(store, (err) => translateSqlite(err, shared.path));
  shared.views.set(shop, guarded);
  return guarded;
}

/**
 * Prove the state takes writes now: a commit (rewriting `user_version` with its own value dirties
 * one page, so it goes through the WAL like any write) and room on the disk. The commit alone can
 * succeed on a full disk, since a WAL that was checkpointed is written again from its start
 * without growing; what the next batches need is free space, so below MIN_FREE_BYTES it fails.
 */
function probeWrite(db: Db, path: string): void {
  if (path === ':memory:') return;
  // A short wait: the probe runs on the event loop, and another process's write only proves the file is writable.
  const busy = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 200');
  try {
    db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      db.pragma(`user_version = ${version}`);
    }).immediate();
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
  const { freeBytes } = freeSpaceOf(path);
  if (freeBytes !== undefined && freeBytes < MIN_FREE_BYTES) throw fileDiskFull(path, undefined, `less than the ${bytesText(MIN_FREE_BYTES)} the next writes need is left`);
}

/** Options of `openSqliteState`. */
export interface SqliteStateOptions {
  readonly logger?: Logger;
  readonly shop?: string;
  /** When the state cannot be written (disk full, read-only file), open it read-only with a warning instead of failing: for commands that only read. @default false */
  readonly readOnlyFallback?: boolean;
}

/** Open (create, migrate) a SQLite state at `path` (a file or `:memory:`), scoped to `shop`. */
export function openSqliteState(path: string, options: SqliteStateOptions = {}): StateStore {
  const logger = (options.logger ?? silentLogger).child({ component: 'state', backend: 'sqlite' });
  const db = openOrReadOnly(path, logger, options.readOnlyFallback === true);
  const buffer = new WriteBuffer(db);
  const shared: Shared = {
    db,
    path,
    buffer,
    cursors: new SqliteCursors(db),
    hashes: new SqliteSentHashes(db, buffer),
    seen: new SqliteSeen(db),
    locks: new SqliteLocks(db),
    replicas: new SqliteReplicas(db),
    incidents: new SqliteIncidents(db),
    streaks: new SqliteStreaks(db),
    reservations: new SqliteReservations(db),
    stockSent: new SqliteStockSent(db, buffer),
    followed: new SqliteFollowed(db),
    conflicts: new SqliteConflicts(db),
    sentValues: new SqliteSentValues(db),
    rewinds: new MarkedRewinds({
      get: async (name) => db.prepare<[string], { value: string }>('SELECT value FROM state_marks WHERE name = ?').get(name)?.value,
      put: async (name, value) => void db.prepare('INSERT INTO state_marks (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(name, value),
    }),
    retention: new SqliteRetention(db, path, logger),
    dump: new SqliteDump(db),
    views: new Map(),
    closed: false,
  };
  return view(shared, options.shop ?? DEFAULT_SHOP);
}

function openOrReadOnly(path: string, logger: Logger, fallback: boolean): Db {
  try {
    const readOnly = readOnlyFile(path);
    if (readOnly) throw readOnly;
    return openDatabase(path, logger);
  } catch (err) {
    const named = translateSqlite(err, path);
    if (!fallback || !isUnwritable(named)) throw named;
    try {
      const db = openDatabase(path, logger, undefined, { readOnly: true });
      logger.warn({ code: named.code, path }, `the state is open read-only, so nothing is written: ${named.message}`);
      return db;
    } catch (again) {
      throw translateSqlite(again, path);
    }
  }
}
