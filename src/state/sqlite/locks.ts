/**
 * Per-lane locks (SQLite) so that two processes never run the same pipeline on the same state.
 *
 * The lock is a row taken in an IMMEDIATE transaction. A lock whose owner is a dead process on
 * this host is stale and taken over at once; a lock from another host (a shared volume) is stale
 * once its heartbeat is older than `staleAfterMs`.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { StateError } from '../../errors.js';
import { toLock, type LockRow } from '../rows.js';
import type { AcquireOptions, LockHandle, LockInfo, LockStore } from '../store.js';
import type { Db } from './db.js';

/** Whether a process id is alive on this host (EPERM means alive but not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Owners of the locks this process holds. A lock row naming our own pid but an owner we do not
 * hold is left by an earlier process that had the same pid (containers restart with low, reused pids).
 */
const heldHere = new Set<string>();

/** Lock table access. */
export class SqliteLocks implements LockStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly beatStmt;
  private readonly delStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[string], LockRow>('SELECT * FROM locks WHERE name = ?');
    this.putStmt = db.prepare(
      `INSERT INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
    );
    this.beatStmt = db.prepare('UPDATE locks SET heartbeat_at = ? WHERE name = ? AND owner = ?');
    this.delStmt = db.prepare('DELETE FROM locks WHERE name = ? AND owner = ?');
  }

  /** Who holds a lane, if anyone. */
  async get(name: string): Promise<LockInfo | undefined> {
    const r = this.getStmt.get(name);
    return r ? toLock(r) : undefined;
  }

  /** Every held lock. */
  async list(): Promise<LockInfo[]> {
    return this.db
      .prepare<[], LockRow>('SELECT * FROM locks ORDER BY name')
      .all()
      .map(toLock);
  }

  /** Take a lane's lock or throw `LOCK_HELD` naming the holder; stale locks are taken over. */
  async acquire(name: string, options: AcquireOptions = {}): Promise<LockHandle> {
    const staleAfterMs = options.staleAfterMs ?? 120_000;
    const owner = randomUUID();
    const host = hostname();
    const tookOver = this.db
      .transaction((): boolean => {
        const now = Date.now();
        const row = this.getStmt.get(name);
        const held = row ? toLock(row) : undefined;
        let takeOver = false;
        if (held) {
          const sameHost = held.host === host;
          const dead = sameHost ? (held.pid === process.pid ? !heldHere.has(held.owner) : !processAlive(held.pid)) : now - Date.parse(held.heartbeatAt) > staleAfterMs;
          if (!dead) {
            throw new StateError(
              'LOCK_HELD',
              `pipeline lane \`${name}\` is already running in process ${held.pid} on ${held.host} (since ${held.acquiredAt}); wait for it to finish or stop that process`,
              { details: { name, pid: held.pid, host: held.host } },
            );
          }
          takeOver = true;
        }
        this.putStmt.run(name, owner, process.pid, host, now, now);
        return takeOver;
      })
      .immediate();
    heldHere.add(owner);
    let released = false;
    return {
      name,
      owner,
      tookOver,
      heartbeat: async () => {
        if (released) return;
        if (this.beatStmt.run(Date.now(), name, owner).changes === 0) {
          throw new StateError('LOCK_LOST', `the lock of \`${name}\` was taken over by another process`, { details: { name } });
        }
      },
      release: async () => {
        if (released) return;
        released = true;
        heldHere.delete(owner);
        this.delStmt.run(name, owner);
      },
    };
  }
}
