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
import { connectionError, lostConnection, one, query, redactUrl, settingsFor } from './db.js';
import { guardStore } from '../faults.js';
import { translatePg, type PgPlace } from './faults.js';
import { PgDeadLetters } from './deadLetters.js';
import { PgDump } from './dump.js';
import { PgEvents } from './events.js';
import { PgHistory } from './history.js';
import { PgLocks } from './locks.js';
import { migrate } from './migrate.js';
import { PgIntents, PgReferences, PgSeen, PgSentHashes } from './refs.js';
import { PgIncidents } from './incidents.js';
import { PgStreaks } from './streaks.js';
import { PgReservations, PgStockSent } from './reservations.js';
import { PgFollowed } from './followed.js';
import { PgConflicts, PgSentValues } from './conflicts.js';
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
  readonly reservations: PgReservations;
  readonly stockSent: PgStockSent;
  readonly followed: PgFollowed;
  readonly conflicts: PgConflicts;
  readonly sentValues: PgSentValues;
  readonly rewinds: MarkedRewinds;
  readonly retention: PgRetention;
  readonly dump: PgDump;
  readonly statistics: Statistics;
  readonly views: Map<string, StateStore>;
  /** Writes of every shop's view commit one after another (grouped when they queue up). */
  readonly commits: CommitLine;
  /** Where the state is, for the named errors of a full disk or a read-only server. */
  readonly place: PgPlace;
  /** The role may not create temporary tables (42501): the write probe checks writes without the page it would fill. */
  noTempTables: boolean;
  closed: boolean;
}

/** The probe's limit per statement: a server that hangs is not ready (the readiness check waits 5 s at most). */
const PROBE_TIMEOUT_MS = 3000;

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
    reservations: shared.reservations,
    stockSent: shared.stockSent,
    followed: shared.followed,
    conflicts: shared.conflicts,
    sentValues: shared.sentValues,
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
    async probeWrite() {
      await probeWrite(shared);
    },
    async close() {
      if (shared.closed) return;
      shared.closed = true;
      await shared.statistics.settled();
      await shared.locks.closeAll();
      await pool.end();
    },
  };
  // Driver errors of a full disk or a read-only server become named errors here, for every caller.
  const guarded = guardStore(store, (err) => translatePg(err, shared.place));
  shared.views.set(shop, guarded);
  return guarded;
}

/**
 * Prove the server takes writes now (what /readyz asks), in a transaction that is rolled back: a
 * write statement, refused at once on a hot standby or with a read-only default, and a page the
 * disk must find room for. A small write to a state table rarely needs a new page (it fits where
 * rows were), so the probe truncates a temporary table of its session, which gives it a new, empty
 * file, and fills two pages of it: PostgreSQL must extend that file, and on a full disk it cannot
 * ("could not extend file", STATE_DISK_FULL). The rollback drops the new file again. A role that
 * may not create temporary tables gets the write check alone.
 */
async function probeWrite(shared: Shared): Promise<void> {
  const client = await shared.pool.connect();
  let broken: Error | undefined;
  // The pool listens for errors of idle clients only: a session ended while the probe holds it fails the probe, not the process.
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on('error', onError);
  let began = false;
  try {
    // Once per session (outside the transaction, so the catalog is not rewritten on every probe); refused in a read-only session.
    const temp = shared.noTempTables ? false : await client.query('CREATE TEMPORARY TABLE IF NOT EXISTS shopsync_probe (filler text)').then(
      () => true,
      (err: unknown) => {
        if ((err as { code?: unknown }).code !== '42501') throw err;
        shared.noTempTables = true;
        return false;
      },
    );
    await client.query('BEGIN');
    began = true;
    await client.query(`SET LOCAL statement_timeout = ${PROBE_TIMEOUT_MS}`);
    // Refused in a read-only transaction even though it changes no row.
    await client.query('UPDATE schema_version SET version = version WHERE false');
    if (temp) {
      await client.query('TRUNCATE shopsync_probe');
      await client.query("INSERT INTO shopsync_probe SELECT repeat('x', 1000) FROM generate_series(1, 16)");
    }
  } catch (err) {
    throw lostConnection(err);
  } finally {
    // A session that cannot even roll back is gone: it is not handed out again.
    if (began) await client.query('ROLLBACK').catch((err: unknown) => (broken = err as Error));
    client.off('error', onError);
    client.release(broken);
  }
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
  const place = { url: location.url, schema, location: shown };
  try {
    await migrate(pool, schema, logger);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw connectionError(err, location.url, location.origin) ?? translatePg(err, place);
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
    reservations: new PgReservations(pool),
    stockSent: new PgStockSent(pool),
    followed: new PgFollowed(pool),
    conflicts: new PgConflicts(pool),
    sentValues: new PgSentValues(pool),
    rewinds: new MarkedRewinds({
      get: async (name) => (await query<{ value: string }>(pool, 'SELECT value FROM state_marks WHERE name = $1', [name]))[0]?.value,
      put: async (name, value) => void (await query(pool, 'INSERT INTO state_marks (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value])),
    }),
    retention: new PgRetention(pool, schema, logger),
    dump: new PgDump(pool),
    statistics,
    commits: new CommitLine(pool, statistics),
    views: new Map(),
    place,
    noTempTables: false,
    closed: false,
  };
  return view(shared, options.shop ?? DEFAULT_SHOP);
}
