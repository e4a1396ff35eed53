/** Lane locks: one holder at a time, and a holder that dies gives its lane back. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import { processAlive, type StateLocation } from '../../src/state/index.js';
import { sleep } from '../support/wait.js';
import { BACKENDS, forEachBackend, postgresAvailable } from './backends.js';
import { childArgs } from '../support/child.js';

const HOLDER = join(import.meta.dirname, 'lockHolder.ts');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Start a process that tries to take `lane`; resolves with it and its one-line answer. */
function holder(location: StateLocation, lane: string): Promise<{ child: ChildProcess; answer: string }> {
  const child = spawn(process.execPath, [...childArgs(HOLDER), JSON.stringify(location), lane], { cwd: join(import.meta.dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve({ child, answer: out.trim() });
    });
    child.stderr!.on('data', (d: Buffer) => void (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`lock holder exited with ${code} before answering: ${err}`)));
  });
}

/** Kill a process for real (no handler runs) and wait until it is gone. */
async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await exited;
}

async function rejection(p: Promise<unknown>): Promise<StateError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateError);
  return err as StateError;
}

forEachBackend('pipeline locks', (backend) => {
  it('refuses a second holder of the same lane, naming the holder, until the first releases it', async () => {
    const location = backend.location();
    const a = await backend.open(location);
    const b = await backend.open(location);
    const lock = await a.locks.acquire('products');
    const err = await rejection(b.locks.acquire('products'));
    expect(err.code).toBe('LOCK_HELD');
    expect(err.message).toContain(`pipeline lane \`products\` is already running in process ${process.pid} on ${hostname()}`);
    expect(await b.locks.get('products')).toMatchObject({ name: 'products', owner: lock.owner, pid: process.pid, host: hostname() });
    await lock.release();
    await lock.release();
    expect(await b.locks.get('products')).toBeUndefined();
    const again = await b.locks.acquire('products');
    expect(again.tookOver).toBe(false);
    await again.heartbeat();
    await again.release();
  });

  it('lets different lanes run side by side', async () => {
    const state = await backend.open();
    const a = await state.locks.acquire('products');
    const b = await state.locks.acquire('products#backfill:1:100');
    expect((await state.locks.list()).map((l) => l.name)).toEqual(['products', 'products#backfill:1:100']);
    await a.release();
    await b.release();
    expect(await state.locks.list()).toEqual([]);
  });

  it('never lets two of many simultaneous takers hold a lane', async () => {
    const location = backend.location();
    const stores = await Promise.all([1, 2, 3].map(() => backend.open(location)));
    const tries = await Promise.allSettled(stores.flatMap((s) => [s.locks.acquire('orders'), s.locks.acquire('orders')]));
    const held = tries.filter((t) => t.status === 'fulfilled');
    expect(held).toHaveLength(1);
    for (const t of tries) if (t.status === 'rejected') expect((t.reason as StateError).code).toBe('LOCK_HELD');
    await (held[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });

  it('never lets two of several processes racing for a lane hold it', async () => {
    const location = backend.location();
    await (await backend.open(location)).close();
    const answers = (await Promise.all([1, 2, 3].map(() => holder(location, 'stock')))).map((h) => h.answer);
    expect(answers.filter((a) => a.startsWith('held'))).toHaveLength(1);
    expect(answers.filter((a) => a === 'refused LOCK_HELD')).toHaveLength(2);
  }, 60_000);

  it('gives the lane of a process that was killed to the next process, which marks its run crashed', async () => {
    const location = backend.location();
    const state = await backend.open(location);
    const { child, answer } = await holder(location, 'products');
    expect(answer).toBe('held false');
    const refused = await rejection(state.locks.acquire('products'));
    expect(refused.message).toContain(`process ${child.pid}`);
    await killHard(child);
    // PostgreSQL ends the dead client's session (and its advisory lock) as soon as it sees the socket close.
    let lock;
    for (let i = 0; !lock; i++) {
      try {
        lock = await state.locks.acquire('products');
      } catch (err) {
        if ((err as StateError).code !== 'LOCK_HELD' || i > 50) throw err;
        await sleep(100);
      }
    }
    expect(lock.tookOver).toBe(true);
    expect(await state.runs.markCrashed('products')).toBe(1);
    expect((await state.runs.list({ pipeline: 'products' }))[0]).toMatchObject({ status: 'crashed', pid: child.pid, error: { code: 'RUN_CRASHED' } });
    expect(await state.locks.get('products')).toMatchObject({ owner: lock.owner, pid: process.pid });
    await lock.release();
  }, 60_000);

  it('notices on heartbeat that the lock was taken from it', async () => {
    const location = backend.location();
    const state = await backend.open(location);
    const lock = await state.locks.acquire('products');
    await backend.sql(location, 'UPDATE locks SET owner = ? WHERE name = ?', 'thief', 'products');
    await expect(lock.heartbeat()).rejects.toMatchObject({ code: 'LOCK_LOST', message: expect.stringMatching(/taken over/) });
    await lock.release();
  });
});

describe('pipeline locks (sqlite)', () => {
  /** The pid of a process that has exited (and been reaped). */
  function deadPid(): number {
    return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
  }
  const insert = 'INSERT OR REPLACE INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)';

  it('takes over a lock row of a dead process on this host', async () => {
    const location = BACKENDS.sqlite.location();
    const state = await BACKENDS.sqlite.open(location);
    const pid = deadPid();
    expect(processAlive(pid)).toBe(false);
    await BACKENDS.sqlite.sql(location, insert, 'products', 'ghost', pid, hostname(), Date.now(), Date.now());
    const lock = await state.locks.acquire('products');
    expect(lock.tookOver).toBe(true);
    await lock.release();
  });

  it('treats a lock from another host as held until its heartbeat is stale', async () => {
    const location = BACKENDS.sqlite.location();
    const state = await BACKENDS.sqlite.open(location);
    await BACKENDS.sqlite.sql(location, insert, 'orders', 'remote', 1, 'another-host', Date.now(), Date.now());
    expect((await rejection(state.locks.acquire('orders', { staleAfterMs: 60_000 }))).code).toBe('LOCK_HELD');
    await BACKENDS.sqlite.sql(location, insert, 'orders', 'remote', 1, 'another-host', Date.now() - 120_000, Date.now() - 120_000);
    const lock = await state.locks.acquire('orders', { staleAfterMs: 60_000 });
    expect(lock.tookOver).toBe(true);
    await lock.release();
  });

  it('takes over a lock left by an earlier process that had the same pid', async () => {
    const location = BACKENDS.sqlite.location();
    const state = await BACKENDS.sqlite.open(location);
    await BACKENDS.sqlite.sql(location, insert, 'products', 'earlier-incarnation', process.pid, hostname(), Date.now(), Date.now());
    const lock = await state.locks.acquire('products');
    expect(lock.tookOver).toBe(true);
    expect((await rejection(state.locks.acquire('products'))).code).toBe('LOCK_HELD');
    await lock.release();
  });
});

describe.skipIf(!postgresAvailable)('pipeline locks (postgres)', () => {
  const pgBackend = BACKENDS.postgres;

  it('does not list a lock row whose session is gone, and takes it over', async () => {
    const location = pgBackend.location();
    const state = await pgBackend.open(location);
    await pgBackend.sql(location, 'INSERT INTO locks (name, owner, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)', 'products', 'ghost', 4242, 'gone-host', Date.now(), Date.now());
    expect(await state.locks.list()).toEqual([]);
    expect(await state.locks.get('products')).toBeUndefined();
    const lock = await state.locks.acquire('products');
    expect(lock.tookOver).toBe(true);
    await lock.release();
  });

  it('rejects a heartbeat with LOCK_LOST once the server ended the lock session, and the lane is free again', async () => {
    const location = pgBackend.location();
    const state = await pgBackend.open(location);
    const lock = await state.locks.acquire('products');
    const [row] = await pgBackend.sql(location, `SELECT pg_terminate_backend(pid) AS done FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid = hashtext(?)::oid AND objid = hashtext(?)::oid`, `shopsync:${location.kind === 'postgres' ? location.schema : ''}`, 'products');
    expect(row?.done).toBe(true);
    await sleep(200);
    await expect(lock.heartbeat()).rejects.toMatchObject({ code: 'LOCK_LOST' });
    const next = await state.locks.acquire('products');
    expect(next.tookOver).toBe(true);
    await next.release();
    await lock.release();
  });
});
