import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import { openState, processAlive } from '../../src/state/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-lock-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('pipeline locks', () => {
  it('refuses a second holder of the same lane, naming the holder', async () => {
    const file = tempFile();
    const a = openState(file);
    const b = openState(file);
    const lock = a.locks.acquire('products');
    let caught: unknown;
    try {
      b.locks.acquire('products');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StateError);
    expect((caught as StateError).code).toBe('LOCK_HELD');
    expect((caught as StateError).message).toContain(`process ${process.pid}`);
    lock.release();
    const again = b.locks.acquire('products');
    expect(again.tookOver).toBe(false);
    again.release();
    await a.close();
    await b.close();
  });

  it('lets different lanes run side by side', async () => {
    const state = openState(tempFile());
    const a = state.locks.acquire('products');
    const b = state.locks.acquire('products#backfill:1:100');
    expect(state.locks.list().map((l) => l.name)).toEqual(['products', 'products#backfill:1:100']);
    a.release();
    b.release();
    expect(state.locks.list()).toEqual([]);
    await state.close();
  });

  it('takes over the lock of a dead process and marks its runs crashed', async () => {
    const file = tempFile();
    const state = openState(file);
    const pid = deadPid();
    expect(processAlive(pid)).toBe(false);
    const runId = state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const raw = new Database(file);
    raw.prepare('INSERT INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)').run('products', 'ghost', pid, (await import('node:os')).hostname(), Date.now(), Date.now());
    raw.close();
    const lock = state.locks.acquire('products');
    expect(lock.tookOver).toBe(true);
    expect(state.runs.markCrashed('products')).toBe(1);
    expect(state.runs.get(runId)?.status).toBe('crashed');
    lock.release();
    await state.close();
  });

  it('treats a lock from another host as held until its heartbeat is stale', async () => {
    const file = tempFile();
    const state = openState(file);
    const raw = new Database(file);
    const insert = raw.prepare('INSERT OR REPLACE INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)');
    insert.run('orders', 'remote', 1, 'another-host', Date.now(), Date.now());
    expect(() => state.locks.acquire('orders', { staleAfterMs: 60_000 })).toThrow(StateError);
    insert.run('orders', 'remote', 1, 'another-host', Date.now() - 120_000, Date.now() - 120_000);
    const lock = state.locks.acquire('orders', { staleAfterMs: 60_000 });
    expect(lock.tookOver).toBe(true);
    raw.close();
    lock.release();
    await state.close();
  });

  it('notices on heartbeat that the lock was taken from it', async () => {
    const file = tempFile();
    const state = openState(file);
    const lock = state.locks.acquire('products');
    const raw = new Database(file);
    raw.prepare('UPDATE locks SET owner = ? WHERE name = ?').run('thief', 'products');
    raw.close();
    expect(() => lock.heartbeat()).toThrow(/taken over/);
    await state.close();
  });
});

describe('pipeline locks across restarts with reused pids', () => {
  it('takes over a lock left by an earlier process that had the same pid', async () => {
    const file = tempFile();
    const state = openState(file);
    const raw = new Database(file);
    raw.prepare('INSERT INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)').run('products', 'earlier-incarnation', process.pid, (await import('node:os')).hostname(), Date.now(), Date.now());
    raw.close();
    const lock = state.locks.acquire('products');
    expect(lock.tookOver).toBe(true);
    expect(() => state.locks.acquire('products')).toThrow(StateError);
    lock.release();
    await state.close();
  });
});
