/**
 * Per-lane locks (PostgreSQL) across processes and hosts.
 *
 * Holding a lane is holding a session-level advisory lock, keyed by schema and lane, on a session
 * of its own: when the holder dies the server ends its session and the lock is free at once (a
 * dead host: once TCP keepalive gives up, about a minute). The session is a separate client, not
 * one checked out of the pool, so a daemon holding many lanes never starves its own settles of
 * connections. The `locks` row only says who holds the lane (pid, host, heartbeat) for `status`
 * and error messages; a row whose advisory lock is free was left by a dead process, `get`/`list`
 * do not show it, and the next `acquire` takes it over (`tookOver`, so its runs get marked crashed).
 * `staleAfterMs` does not apply: the server knows whether the holder's session is alive.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { StateError } from '../../errors.js';
import { refusesWrites } from './faults.js';
import type { Logger } from '../../log.js';
import { toLock, type LockRow } from '../rows.js';
import type { AcquireOptions, LockHandle, LockInfo, LockStore } from '../store.js';
import { connectionError, execute, one, query } from './db.js';

// Rows whose advisory lock some session holds (two-int form: classid = key 1, objid = key 2, objsubid = 2).
const LIVE = `EXISTS (SELECT 1 FROM pg_locks p WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 2
  AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND p.classid = hashtext($1)::oid AND p.objid = hashtext(l.name)::oid)`;

/** The database's time in Unix ms (the column's unit). */
const DB_NOW_MS = `(extract(epoch from now()) * 1000)::bigint`;

/** Lock table and advisory locks of one schema. */
export class PgLocks implements LockStore {
  /** Sessions of the locks held through this store (ended by `closeAll`). */
  private readonly sessions = new Set<pg.Client>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: pg.ClientConfig,
    private readonly url: string,
    private readonly schema: string,
    private readonly logger: Logger,
    /** Where the URL was configured, for connection errors. */
    private readonly origin?: string,
  ) {}

  /** The advisory key's first half: one lock space per schema. */
  private get space(): string {
    return `shopsync:${this.schema}`;
  }

  async get(name: string): Promise<LockInfo | undefined> {
    const row = await one<LockRow>(this.pool, `SELECT * FROM locks l WHERE l.name = $2 AND ${LIVE}`, [this.space, name]);
    return row ? toLock(row) : undefined;
  }

  async list(): Promise<LockInfo[]> {
    return (await query<LockRow>(this.pool, `SELECT * FROM locks l WHERE ${LIVE} ORDER BY l.name`, [this.space])).map(toLock);
  }

  /** Take a lane's lock or reject with `LOCK_HELD` naming the holder; a dead holder's row is taken over. */
  async acquire(name: string, _options: AcquireOptions = {}): Promise<LockHandle> {
    const session = await this.open();
    const owner = randomUUID();
    const host = hostname();
    let tookOver: boolean;
    try {
      const got = await one<{ ok: boolean }>(session, 'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', [this.space, name]);
      if (!got?.ok) throw await this.held(name);
      // Stamped by the database: the holder's own clock may be off, and `status` compares these across hosts.
      const previous = await one<{ existed: boolean }>(
        session,
        `INSERT INTO locks AS l (name, owner, pid, host, acquired_at, heartbeat_at) VALUES ($1, $2, $3, $4, ${DB_NOW_MS}, ${DB_NOW_MS})
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at
         RETURNING NOT (l.xmax = 0) AS existed`,
        [name, owner, process.pid, host],
      );
      // A row already there while the advisory lock was free: its holder died without releasing.
      tookOver = previous?.existed === true;
    } catch (err) {
      await this.end(session);
      throw err;
    }
    let released = false;
    let lost: Error | undefined;
    session.on('error', (err) => {
      lost = err;
    });
    return {
      name,
      owner,
      tookOver,
      heartbeat: async () => {
        if (released) return;
        const gone = () => new StateError('LOCK_LOST', `the lock of \`${name}\` was lost: its PostgreSQL session ended (${lost?.message ?? 'connection closed'}); another process may run this lane now`, { details: { name } });
        if (lost) throw gone();
        let changed: number;
        try {
          changed = await execute(session, `UPDATE locks SET heartbeat_at = ${DB_NOW_MS} WHERE name = $1 AND owner = $2`, [name, owner]);
        } catch (err) {
          // The session lives and holds the lock; the server only refuses writes (full disk, read-only): said by name (the store's guard), not as a lost lock.
          if (!lost && refusesWrites(err)) throw err;
          lost ??= err as Error;
          throw gone();
        }
        if (changed === 0) throw new StateError('LOCK_LOST', `the lock of \`${name}\` was taken over by another process`, { details: { name } });
      },
      release: async () => {
        if (released) return;
        released = true;
        try {
          if (!lost) {
            await execute(session, 'DELETE FROM locks WHERE name = $1 AND owner = $2', [name, owner]);
            await session.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [this.space, name]);
          }
        } catch (err) {
          this.logger.warn({ name, err: (err as Error).message }, 'releasing a state lock failed; its session ends now, which frees it');
        } finally {
          await this.end(session);
        }
      },
    };
  }

  /** End every lock session still open (the store is closing). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions].map((s) => this.end(s)));
  }

  /** A new session for one lock, with keepalives short enough that a dead host's locks free within a minute or so. */
  private async open(): Promise<pg.Client> {
    const session = new pg.Client({ ...this.settings, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    session.on('error', () => undefined);
    try {
      await session.connect();
      // The server side probes too; and an idle_session_timeout set for the database must not end a held lock.
      await session.query(`SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3;
        SELECT set_config('idle_session_timeout', '0', false) WHERE current_setting('server_version_num')::int >= 140000`);
    } catch (err) {
      await session.end().catch(() => undefined);
      throw connectionError(err, this.url, this.origin) ?? err;
    }
    this.sessions.add(session);
    return session;
  }

  private async end(session: pg.Client): Promise<void> {
    this.sessions.delete(session);
    await session.end().catch(() => undefined);
  }

  /** The `LOCK_HELD` refusal, naming the holder when its row says who it is. */
  private async held(name: string): Promise<StateError> {
    const row = await one<LockRow>(this.pool, 'SELECT * FROM locks WHERE name = $1', [name]);
    const holder = row ? toLock(row) : undefined;
    if (!holder) return new StateError('LOCK_HELD', `pipeline lane \`${name}\` is already running in another process; wait for it to finish or stop that process`, { details: { name } });
    return new StateError(
      'LOCK_HELD',
      `pipeline lane \`${name}\` is already running in process ${holder.pid} on ${holder.host} (since ${holder.acquiredAt}); wait for it to finish or stop that process`,
      { details: { name, pid: holder.pid, host: holder.host } },
    );
  }
}
