/**
 * Replica heartbeats (PostgreSQL). Every time is the database server's clock
 * (`clock_timestamp()`), so replicas whose machine clocks disagree still agree on who is silent.
 */
import type pg from 'pg';
import { toReplica, type ReplicaRow } from '../replicaRows.js';
import type { ReplicaBeat, ReplicaInfo, ReplicaStore } from '../store.js';
import { execute, query } from './db.js';

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** The replicas table. */
export class PgReplicas implements ReplicaStore {
  constructor(private readonly pool: pg.Pool) {}

  async beat(r: ReplicaBeat): Promise<void> {
    await execute(
      this.pool,
      `INSERT INTO replicas (id, name, host, pid, started_at, heartbeat_at, worker_ids) VALUES ($1, $2, $3, $4, $5, ${NOW_MS}, $6)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, worker_ids = excluded.worker_ids`,
      [r.id, r.name, r.host, r.pid, r.startedAt, JSON.stringify(r.workerIds)],
    );
  }

  async list(): Promise<ReplicaInfo[]> {
    return (await query<ReplicaRow>(this.pool, `SELECT *, ${NOW_MS} - heartbeat_at AS age_ms FROM replicas ORDER BY started_at, id`)).map(toReplica);
  }

  async remove(id: string, options: { silentForMs?: number } = {}): Promise<boolean> {
    if (options.silentForMs === undefined) return (await execute(this.pool, 'DELETE FROM replicas WHERE id = $1', [id])) > 0;
    return (await execute(this.pool, `DELETE FROM replicas WHERE id = $1 AND ${NOW_MS} - heartbeat_at > $2`, [id, options.silentForMs])) > 0;
  }
}
