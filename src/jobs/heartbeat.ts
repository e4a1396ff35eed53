/**
 * The replica heartbeat and reaper. graphile-worker 0.16 (open source) keeps the jobs and named
 * queues of a worker that died locked for up to four hours; its own fix, heartbeats, is Worker Pro
 * only. So every replica beats in the state's `replicas` table, and any replica that finds another
 * silent for longer than `deadAfterMs` frees that replica's workers (`forceUnlockWorkers`) and
 * removes its row: its job runs again on a live replica, which takes the lane's lock (the dead
 * process's advisory lock ended with its connection), marks the crashed run and continues from
 * the last checkpoint.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { ReplicaInfo, StateStore } from '../state/index.js';
import type { JobStore } from './store.js';

/** Options of `startHeartbeat`. */
export interface HeartbeatOptions {
  readonly state: StateStore;
  readonly jobs: JobStore;
  readonly name: string;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  readonly logger: Logger;
}

/** A replica's beating heart. */
export interface Heartbeat {
  readonly id: string;
  readonly name: string;
  /** Record a worker id of this replica (before the worker takes a job). */
  addWorker(workerId: string): Promise<void>;
  /** Drop worker ids of this replica that died and whose jobs were freed. */
  removeWorkers(workerIds: readonly string[]): Promise<void>;
  /** Worker ids of the replicas whose heartbeat is within `deadAfterMs`, this one's included. */
  liveWorkers(): Promise<string[]>;
  /** The last beat reached the state within `deadAfterMs` (readiness). */
  healthy(): { ok: boolean; detail: string };
  /** Find silent replicas and free what they held; returns the names of those reaped. */
  reap(): Promise<string[]>;
  /**
   * Stop beating. A clean exit removes the row (nothing to reap); `keepRow` leaves it to go silent,
   * so the others free this replica's jobs once it counts as dead (runs outlived the grace period).
   */
  stop(options?: { keepRow?: boolean }): Promise<void>;
}

/** This replica's name: `SHOPSYNC_REPLICA`, else host:pid. */
export function replicaName(env: NodeJS.ProcessEnv = process.env): string {
  return env.SHOPSYNC_REPLICA?.trim() || `${hostname()}:${process.pid}`;
}

/** Register this replica, beat every `heartbeatMs` and reap silent ones. */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { state, jobs } = options;
  const log = options.logger.child({ component: 'replicas' });
  const id = randomUUID();
  const startedAt = Date.now();
  const workerIds = new Set<string>();
  let lastOk: number | undefined;
  let lastError: string | undefined;
  let stopped = false;

  const beat = async (): Promise<void> => {
    try {
      await state.replicas.beat({ id, name: options.name, host: hostname(), pid: process.pid, startedAt, workerIds: [...workerIds] });
      // Monotonic: a step of the wall clock must not make this replica unready (or hide a silent one).
      lastOk = performance.now();
      lastError = undefined;
    } catch (err) {
      lastError = errorLine(err);
      throw err;
    }
  };

  const reapOne = async (r: ReplicaInfo): Promise<boolean> => {
    // Unlock first, then remove the row: a reaper that dies in between leaves the row for the next one.
    const held = await jobs.lockedBy(r.workerIds);
    const { superseded } = await jobs.freeWorkers(r.workerIds);
    const removed = await state.replicas.remove(r.id, { silentForMs: options.deadAfterMs });
    if (removed && held === 0) {
      // Nothing to free: a replica that is simply no longer there (rows a restore brought back, an exit that left its row).
      log.info({ replica: r.name, host: r.host, pid: r.pid, silentMs: r.heartbeatAgeMs }, 'removed the row of a replica that is gone (no heartbeat, held no jobs)');
    } else if (removed) {
      log.warn({ replica: r.name, host: r.host, pid: r.pid, silentMs: r.heartbeatAgeMs, workers: r.workerIds.length, held, superseded }, 'replica silent for too long: counted as dead, its jobs and lanes freed for the live replicas');
      await jobs.nudge(Math.max(1, r.workerIds.length));
    }
    return removed;
  };

  const reap = async (): Promise<string[]> => {
    const dead: string[] = [];
    for (const r of await state.replicas.list()) {
      if (r.id === id || r.heartbeatAgeMs <= options.deadAfterMs) continue;
      if (await reapOne(r)) dead.push(r.name);
    }
    return dead;
  };

  await beat();
  const timer = setInterval(() => {
    if (stopped) return;
    beat()
      .then(() => reap())
      .catch((err: unknown) => log.error({ err: errorLine(err) }, 'replica heartbeat failed'));
  }, options.heartbeatMs);
  timer.unref();
  log.info({ replica: options.name, id, heartbeatMs: options.heartbeatMs, deadAfterMs: options.deadAfterMs }, 'replica registered');

  return {
    id,
    name: options.name,
    async addWorker(workerId) {
      workerIds.add(workerId);
      await beat();
    },
    async removeWorkers(ids) {
      for (const w of ids) workerIds.delete(w);
      await beat();
    },
    async liveWorkers() {
      const live = (await state.replicas.list()).filter((r) => r.id === id || r.heartbeatAgeMs <= options.deadAfterMs);
      return [...workerIds, ...live.flatMap((r) => r.workerIds)];
    },
    healthy() {
      const age = lastOk === undefined ? Infinity : Math.round(performance.now() - lastOk);
      if (age <= options.deadAfterMs) return { ok: true, detail: `replica ${options.name}: last heartbeat ${age} ms ago` };
      return { ok: false, detail: `replica ${options.name}: no heartbeat reached the state for ${Number.isFinite(age) ? `${age} ms` : 'ever'}${lastError ? ` (${lastError})` : ''}; the other replicas will count it as dead` };
    },
    reap,
    async stop(stopOptions = {}) {
      stopped = true;
      clearInterval(timer);
      if (!stopOptions.keepRow) await state.replicas.remove(id);
    },
  };
}
