/**
 * Replica heartbeats (SQLite). A SQLite state is single-process, so the daemon never beats here;
 * the table and this class exist so both backends keep one contract (and `status` can ask).
 */
import { toReplica, type ReplicaRow } from '../replicaRows.js';
import type { ReplicaBeat, ReplicaInfo, ReplicaStore } from '../store.js';
import type { Db } from './db.js';

/** The replicas table. */
export class SqliteReplicas implements ReplicaStore {
  constructor(private readonly db: Db) {}

  async beat(r: ReplicaBeat): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO replicas (id, name, host, pid, started_at, heartbeat_at, worker_ids) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, worker_ids = excluded.worker_ids`,
      )
      .run(r.id, r.name, r.host, r.pid, r.startedAt, Date.now(), JSON.stringify(r.workerIds));
  }

  async list(): Promise<ReplicaInfo[]> {
    return this.db
      .prepare<[number], ReplicaRow>('SELECT *, ? - heartbeat_at AS age_ms FROM replicas ORDER BY started_at, id')
      .all(Date.now())
      .map(toReplica);
  }

  async remove(id: string, options: { silentForMs?: number } = {}): Promise<boolean> {
    if (options.silentForMs === undefined) return this.db.prepare('DELETE FROM replicas WHERE id = ?').run(id).changes > 0;
    return this.db.prepare('DELETE FROM replicas WHERE id = ? AND ? - heartbeat_at > ?').run(id, Date.now(), options.silentForMs).changes > 0;
  }
}
