/** Replica rows as both backends store them, and their domain form. */
import type { ReplicaInfo } from './store.js';
import { iso, parseJson } from './types.js';

export interface ReplicaRow {
  id: string;
  name: string;
  host: string;
  pid: number | string;
  started_at: number | string;
  heartbeat_at: number | string;
  worker_ids: string;
  /** Computed by the query: the state's clock minus `heartbeat_at`. */
  age_ms: number | string;
}

/** A replica row in its domain form. */
export function toReplica(r: ReplicaRow): ReplicaInfo {
  const ids = parseJson<unknown>(r.worker_ids);
  return {
    id: r.id,
    name: r.name,
    host: r.host,
    pid: Number(r.pid),
    startedAt: iso(Number(r.started_at)),
    heartbeatAt: iso(Number(r.heartbeat_at)),
    heartbeatAgeMs: Math.max(0, Number(r.age_ms)),
    workerIds: Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [],
  };
}
