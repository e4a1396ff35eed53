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
import { SqliteDeadLetters } from './deadLetters.js';
import { SqliteDump } from './dump.js';
import { SqliteEvents } from './events.js';
import { SqliteHistory } from './history.js';
import { SqliteLocks } from './locks.js';
import { SqliteIntents, SqliteReferences, SqliteSeen, SqliteSentHashes } from './refs.js';
import { SqliteIncidents } from './incidents.js';
import { SqliteStreaks } from './streaks.js';
import { SqliteReplicas } from './replicas.js';
import { SqliteRetention } from './retention.js';
import { SqliteRuns } from './runs.js';
import { MarkedRewinds } from '../rewinds.js';

export { processAlive } from './locks.js';
export { openDatabase, migrate, sqliteMigrations } from './db.js';

/** What every shop's view shares: the connection and the per-pipeline tables. */
interface Shared {
  readonly db: Db;
  readonly path: string;
  readonly cursors: SqliteCursors;
  readonly hashes: SqliteSentHashes;
  readonly seen: SqliteSeen;
  readonly locks: SqliteLocks;
  readonly replicas: SqliteReplicas;
  readonly incidents: SqliteIncidents;
  readonly streaks: SqliteStreaks;
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
  const refs = new SqliteReferences(db, shop);
  const intents = new SqliteIntents(db, shop);
  const runs = new SqliteRuns(db, shop);
  const events = new SqliteEvents(db, shop);
  const deadLetters = new SqliteDeadLetters(db, shop);
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
    rewinds: shared.rewinds,
    retention: shared.retention,
    dump: shared.dump,
    async write(fn) {
      // A nested call joins the outer transaction (better-sqlite3 uses savepoints).
      if (db.inTransaction) db.transaction(() => fn(writer))();
      else db.transaction(() => fn(writer)).immediate();
    },
    async backup(file) {
      await db.backup(file);
    },
    async schemaVersion() {
      return db.pragma('user_version', { simple: true }) as number;
    },
    async close() {
      if (shared.closed) return;
      shared.closed = true;
      db.close();
    },
  };
  shared.views.set(shop, store);
  return store;
}

/** Open (create, migrate) a SQLite state at `path` (a file or `:memory:`), scoped to `shop`. */
export function openSqliteState(path: string, options: { logger?: Logger; shop?: string } = {}): StateStore {
  const logger = (options.logger ?? silentLogger).child({ component: 'state', backend: 'sqlite' });
  const db = openDatabase(path, logger);
  const shared: Shared = {
    db,
    path,
    cursors: new SqliteCursors(db),
    hashes: new SqliteSentHashes(db),
    seen: new SqliteSeen(db),
    locks: new SqliteLocks(db),
    replicas: new SqliteReplicas(db),
    incidents: new SqliteIncidents(db),
    streaks: new SqliteStreaks(db),
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
