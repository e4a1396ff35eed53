/**
 * The PostgreSQL state backend: one schema (default `shopsync`) in a database that several
 * replicas share.
 *
 * Plain `pg` with named prepared statements, no ORM or query builder: the store needs one
 * transaction per settle made of a few multi-row statements (`unnest` arrays, `ON CONFLICT`),
 * `= ANY($n)` reads, advisory locks and keyset paging. That is SQL an ORM would only wrap, and
 * prepared by name each statement is parsed and planned once per connection. Every connection's
 * search_path is the schema, so the SQL names tables as the SQLite backend does.
 */
import pg from 'pg';
import { StateError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import type { StateStore } from '../store.js';
import { DEFAULT_SHOP } from '../store.js';
import { PgCursors } from './cursors.js';
import { CommitLine } from './commits.js';
import { connectionError, one, query, redactUrl, settingsFor } from './db.js';
import { PgDeadLetters } from './deadLetters.js';
import { PgDump } from './dump.js';
import { PgEvents } from './events.js';
import { PgHistory } from './history.js';
import { PgLocks } from './locks.js';
import { migrate } from './migrate.js';
import { PgIntents, PgReferences, PgSeen, PgSentHashes } from './refs.js';
import { PgIncidents } from './incidents.js';
import { PgStreaks } from './streaks.js';
import { PgReplicas } from './replicas.js';
import { PgRetention } from './retention.js';
import { PgRuns } from './runs.js';
import { MarkedRewinds } from '../rewinds.js';
import { Statistics } from './statistics.js';
import { PgWriter } from './writer.js';

export { postgresMigrations, migrate } from './migrate.js';
export { redactUrl } from './db.js';

/** Where a PostgreSQL state lives. */
export interface PostgresLocation {
  readonly kind: 'postgres';
  /** Connection URL (`postgres://user:password@host:5432/db`). */
  readonly url: string;
  /** Schema holding the state's tables. @default shopsync */
  readonly schema: string;
  /** Where the URL was configured (`state.url (shopsync.yaml:47)`), named by connection errors. */
  readonly origin?: string;
}

/** What every shop's view shares: the pool and the stores without a shop. */
interface Shared {
  readonly pool: pg.Pool;
  readonly location: string;
  readonly schema: string;
  readonly cursors: PgCursors;
  readonly hashes: PgSentHashes;
  readonly seen: PgSeen;
  readonly events: PgEvents;
  readonly deadLetters: PgDeadLetters;
  readonly locks: PgLocks;
  readonly replicas: PgReplicas;
  readonly incidents: PgIncidents;
  readonly streaks: PgStreaks;
  readonly rewinds: MarkedRewinds;
  readonly retention: PgRetention;
  readonly dump: PgDump;
  readonly statistics: Statistics;
  readonly views: Map<string, StateStore>;
  /** Writes of every shop's view commit one after another (grouped when they queue up). */
  readonly commits: CommitLine;
  closed: boolean;
}

function view(shared: Shared, shop: string): StateStore {
  const existing = shared.views.get(shop);
  if (existing) return existing;
  const { pool } = shared;
  const store: StateStore = {
    backend: 'postgres',
    location: shared.location,
    shop,
    forShop: (other) => view(shared, other),
    cursors: shared.cursors,
    refs: new PgReferences(pool, shop),
    hashes: shared.hashes,
    intents: new PgIntents(pool, shop),
    seen: shared.seen,
    runs: new PgRuns(pool, shop),
    events: shared.events,
    deadLetters: shared.deadLetters,
    history: new PgHistory(pool, shop),
    locks: shared.locks,
    replicas: shared.replicas,
    incidents: shared.incidents,
    streaks: shared.streaks,
    rewinds: shared.rewinds,
    retention: shared.retention,
    dump: shared.dump,
    async write(fn) {
      const writer = new PgWriter(shop);
      fn(writer.writer);
      if (writer.empty) return;
      await shared.commits.commit(writer);
    },
    async backup() {
      throw new StateError(
        'STATE_BACKUP_UNSUPPORTED',
        `the state is in PostgreSQL (${shared.location}); back it up with the database's own tools: pg_dump --schema=${shared.schema} (and restore with pg_restore or psql)`,
        { details: { schema: shared.schema } },
      );
    },
    async schemaVersion() {
      return (await one<{ version: number }>(pool, 'SELECT version FROM schema_version'))?.version ?? 0;
    },
    async close() {
      if (shared.closed) return;
      shared.closed = true;
      await shared.statistics.settled();
      await shared.locks.closeAll();
      await pool.end();
    },
  };
  shared.views.set(shop, store);
  return store;
}

/** Open (create the schema, migrate) the PostgreSQL state at `location`, scoped to `shop`. */
export async function openPostgresState(location: PostgresLocation, options: { logger?: Logger; shop?: string } = {}): Promise<StateStore> {
  const schema = location.schema;
  const shown = `${redactUrl(location.url)}#${schema}`;
  const logger = (options.logger ?? silentLogger).child({ component: 'state', backend: 'postgres', schema });
  const settings = settingsFor(location.url, schema);
  const pool = new pg.Pool({ ...settings, max: 10 });
  // A pooled connection the server drops while idle must not crash the process; the next query reports it.
  pool.on('error', (err) => logger.warn({ err: connectionError(err, location.url, location.origin)?.message ?? err.message }, 'idle state connection to PostgreSQL failed'));
  try {
    await migrate(pool, schema, logger);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw connectionError(err, location.url, location.origin) ?? err;
  }
  const statistics = new Statistics(pool, logger);
  const shared: Shared = {
    pool,
    location: shown,
    schema,
    cursors: new PgCursors(pool),
    hashes: new PgSentHashes(pool),
    seen: new PgSeen(pool),
    events: new PgEvents(pool),
    deadLetters: new PgDeadLetters(pool),
    locks: new PgLocks(pool, settings, location.url, schema, logger, location.origin),
    replicas: new PgReplicas(pool),
    incidents: new PgIncidents(pool),
    streaks: new PgStreaks(pool),
    rewinds: new MarkedRewinds({
      get: async (name) => (await query<{ value: string }>(pool, 'SELECT value FROM state_marks WHERE name = $1', [name]))[0]?.value,
      put: async (name, value) => void (await query(pool, 'INSERT INTO state_marks (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value])),
    }),
    retention: new PgRetention(pool, schema, logger),
    dump: new PgDump(pool),
    statistics,
    commits: new CommitLine(pool, statistics),
    views: new Map(),
    closed: false,
  };
  return view(shared, options.shop ?? DEFAULT_SHOP);
}
