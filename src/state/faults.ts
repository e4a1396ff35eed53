/**
 * Faults of the place the state is written to — a full disk, a file system or database that takes
 * no writes — as named errors (`STATE_DISK_FULL`, `STATE_READ_ONLY`) that say where and how to fix
 * it. Each backend recognises its driver's errors (sqlite/faults.ts, postgres/faults.ts) and
 * `guardStore` translates them at the store's boundary, so no caller ever sees a driver error for
 * these and none has to ask which backend it has.
 */
import { existsSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StateError } from '../errors.js';
import type { LockHandle, StateStore } from './store.js';

/** The codes of a state that cannot be written: the setup needs a person, retrying alone does not help until it is fixed. */
export const UNWRITABLE_CODES: ReadonlySet<string> = new Set(['STATE_DISK_FULL', 'STATE_READ_ONLY']);

/** Whether an error says the state cannot be written (disk full, read-only). */
export function isUnwritable(err: unknown): err is StateError {
  return err instanceof StateError && UNWRITABLE_CODES.has(err.code);
}

/** The file system a path lies on: its mount point and the bytes this process may still write there. */
export interface FreeSpace {
  readonly mount: string;
  /** Bytes available to an unprivileged writer (statfs `bavail`); undefined when statfs failed. */
  readonly freeBytes?: number;
}

/** The mount point holding `path` (the topmost folder up from it on the same device) and its free space. */
export function freeSpaceOf(path: string): FreeSpace {
  // The state's folder, or its nearest folder that exists (a state not created yet).
  let dir = resolve(dirname(path));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  let mount = dir;
  try {
    const dev = statSync(dir).dev;
    for (let parent = dirname(mount); parent !== mount && statSync(parent).dev === dev; parent = dirname(mount)) mount = parent;
  } catch {
    // A folder we may not stat: name the state's own folder.
  }
  try {
    const s = statfsSync(dir);
    return { mount, freeBytes: Number(s.bavail) * Number(s.bsize) };
  } catch {
    return { mount };
  }
}

/** `0 B`, `12 KiB`, `3.4 MiB`: free space as a person reads it. */
export function bytesText(n: number | undefined): string {
  if (n === undefined) return 'unknown';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/**
 * STATE_DISK_FULL for a SQLite file: names the file, the mount and its free space, and the two ways
 * out. `reason` is SQLite's code, or why the probe counts the disk as full.
 */
export function fileDiskFull(path: string, cause: unknown, reason: string): StateError {
  const { mount, freeBytes } = freeSpaceOf(path);
  return new StateError(
    'STATE_DISK_FULL',
    `the disk under the state ${path} is full (${reason}); ${bytesText(freeBytes)} free on ${mount}. Nothing committed is lost, and a run that failed continues from its last checkpoint once there is room: free space on ${mount}, or move the state (state.path) to a disk with room`,
    { ...(cause !== undefined ? { cause } : {}), details: { path, mount, ...(freeBytes !== undefined ? { freeBytes } : {}), reason } },
  );
}

/** STATE_READ_ONLY for a SQLite file: the file, its folder or the mount takes no writes. */
export function fileReadOnly(path: string, cause: unknown, reason: string): StateError {
  return new StateError(
    'STATE_READ_ONLY',
    `the state ${path} cannot be written (${reason}): the file or its folder is read-only for this user, or the file system is mounted read-only. Nothing committed is lost: make ${dirname(path)} and the files in it writable for this user (SQLite also writes ${path}-wal and -shm there), or move the state (state.path)`,
    { ...(cause !== undefined ? { cause } : {}), details: { path, reason } },
  );
}

/**
 * The same store with every method's driver errors translated by `translate` (a function returning
 * the error unchanged when it is not one it knows). Lock handles are guarded too: their heartbeat
 * and release write.
 */
export function guardStore(store: StateStore, translate: (err: unknown) => unknown): StateStore {
  const guard = <F extends (...args: never[]) => unknown>(fn: F, self: unknown): F =>
    function (this: unknown, ...args: Parameters<F>) {
      let result: unknown;
      try {
        result = fn.apply(self, args);
      } catch (err) {
        throw translate(err);
      }
      if (result instanceof Promise) return result.catch((err: unknown) => Promise.reject(translate(err)));
      return result;
    } as F;
  const wrapped = new WeakMap<object, object>();
  const part = <T extends object>(target: T): T => {
    const known = wrapped.get(target);
    if (known) return known as T;
    const methods = new Map<PropertyKey, unknown>();
    const proxy = new Proxy(target, {
      get(t, key, receiver) {
        const value: unknown = Reflect.get(t, key, receiver);
        if (typeof value !== 'function') return value;
        let fn = methods.get(key);
        if (!fn) methods.set(key, (fn = guard(value as (...args: never[]) => unknown, t)));
        return fn;
      },
    });
    wrapped.set(target, proxy);
    return proxy;
  };
  const guardHandle = (handle: LockHandle): LockHandle => part(handle);
  const locks = part(store.locks);
  const acquire = locks.acquire.bind(locks);
  return {
    ...store,
    forShop: (shop) => store.forShop(shop),
    cursors: part(store.cursors),
    refs: part(store.refs),
    hashes: part(store.hashes),
    intents: part(store.intents),
    seen: part(store.seen),
    runs: part(store.runs),
    events: part(store.events),
    deadLetters: part(store.deadLetters),
    history: part(store.history),
    locks: new Proxy(locks, { get: (t, key, r) => (key === 'acquire' ? async (...a: Parameters<typeof acquire>) => guardHandle(await acquire(...a)) : Reflect.get(t, key, r)) }),
    replicas: part(store.replicas),
    incidents: part(store.incidents),
    streaks: part(store.streaks),
    reservations: part(store.reservations),
    stockSent: part(store.stockSent),
    followed: part(store.followed),
    conflicts: part(store.conflicts),
    sentValues: part(store.sentValues),
    retention: part(store.retention),
    dump: part(store.dump),
    write: guard(store.write, store),
    backup: guard(store.backup, store),
    schemaVersion: guard(store.schemaVersion, store),
    probeWrite: guard(store.probeWrite, store),
    close: guard(store.close, store),
  };
}
