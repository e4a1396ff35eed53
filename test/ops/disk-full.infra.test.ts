/**
 * A full disk under the SQLite state (issue 39, item 5): the state lies on a tmpfs of this test's
 * own (8 MiB), which a filler file fills to the last byte while the daemon runs. Runs then fail
 * with STATE_DISK_FULL naming the file and the free space, never INTERNAL with a stack trace;
 * /readyz answers 503 saying why; `status` still shows the runs; and once the filler is gone the
 * daemon's next scheduled run succeeds by itself, with nothing lost. Needs root for the mount
 * (CI is root: there it fails instead of skipping).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import type { RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts, openState } from '../../src/state/index.js';
import { createErp, ensureBuilt, runCli, shopProducts, sku, tempDir, writeConfig } from '../cli/support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { removeDir } from '../support/tmp.js';
import { until } from '../support/wait.js';

const root = process.getuid?.() === 0;
if (!root) {
  const why = 'mounting a tmpfs needs root';
  if (process.env.CI === 'true') test('a full disk under the state can be tested (required under CI=true)', () => expect.fail(`${why}; CI runs as root`));
  else console.warn(`\n*** SKIPPED test/ops/disk-full.infra.test.ts: ${why}. ***\n`);
}

const PRODUCTS = 30;

/** Write until the file system says ENOSPC, in ever smaller pieces, so not one block is left. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!root)('a full disk under the SQLite state', () => {
  const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
  let dir: string;
  let disk: string;
  let statePath: string;
  let config: string;
  let env: Record<string, string>;
  let daemon: Daemon;
  const log: Record<string, unknown>[] = [];

  const readyz = async () => {
    const res = await fetch(`${daemon.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }> } };
  };
  const changePrices = (price: string, at: string) => {
    const erp = new Database(join(dir, 'erp.sqlite'));
    try {
      erp.prepare('UPDATE products SET price = ?, updated_at = ?').run(price, at);
    } finally {
      erp.close();
    }
  };

  beforeAll(async () => {
    dir = tempDir('shopsync-disk-full-');
    disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
    statePath = join(disk, 'state', 'shopsync.db');
    createErp(join(dir, 'erp.sqlite'), PRODUCTS);
    // Every second: the daemon's own clock is what has to recover once space returns.
    config = writeConfig(dir, { statePath, schedule: '* * * * * *' });
    env = shopEnv(sandbox);
    const loaded = await loadConfig(config, { env: { ...process.env, ...env } });
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk: Buffer, _e, done) => void (log.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)), done()) }) });
    daemon = await startDaemon(loaded, { logger });
    await until(async () => (await daemon.runtime.state.runs.list({ pipeline: 'products', status: 'succeeded', limit: 1 })).length === 1, 20_000);
  }, 300_000);

  afterAll(async () => {
    await daemon?.close();
    try {
      execFileSync('umount', [disk]);
    } finally {
      removeDir(dir);
    }
  });

  it('fails a run with STATE_DISK_FULL naming the state file and the free space, with no INTERNAL and no stack trace', async () => {
    changePrices('77.00', '2026-02-01 00:00:00');
    fill(join(disk, 'filler'));
    expect(Number(statfsSync(disk).bavail)).toBe(0);

    const cli = await runCli(['sync', 'products', '--config', config], { env });
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toContain(`[STATE_DISK_FULL] the disk under the state ${statePath} is full (SQLite: SQLITE_FULL); 0 B free on ${disk}.`);
    expect(cli.stderr).toContain(`free space on ${disk}, or move the state (state.path) to a disk with room`);
    expect(cli.stderr).not.toMatch(/INTERNAL|SqliteError|\n\s+at /);

    // The daemon's own scheduled runs meet the same named error in its log, without a stack.
    await until(() => log.some((l) => l.pipeline === 'products' && (l.err as { code?: string } | undefined)?.code === 'STATE_DISK_FULL'), 20_000);
    const failed = log.filter((l) => (l.err as { code?: string } | undefined)?.code !== undefined && l.level === 50);
    expect(failed.map((l) => (l.err as { code: string }).code)).not.toContain('INTERNAL');
    expect(failed.every((l) => (l.err as { stack?: string }).stack === undefined)).toBe(true);
  });

  it('says so in doctor: FAIL state with STATE_DISK_FULL', async () => {
    const doctor = await runCli(['doctor', '--config', config], { env });
    expect(doctor.stdout).toContain(`FAIL state: [STATE_DISK_FULL] the disk under the state ${statePath} is full`);
  });

  it('answers /readyz with 503 while the state cannot be written, saying the disk is full', async () => {
    await until(async () => (await readyz()).status === 503, 20_000);
    const { body } = await readyz();
    expect(body.checks.state).toEqual({ ok: false, detail: expect.stringContaining(`cannot be written: [STATE_DISK_FULL] the disk under the state ${statePath} is full`) as unknown });
    expect(body.checks.state!.detail).toContain(`0 B free on ${disk}`);
  });

  it('still shows the runs in status while the disk is full', async () => {
    const status = await runCli(['status', '--json', '--config', config], { env });
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as { pipelines: { name: string; lastRun: { status: string } | null; lastSuccessAt: string | null }[] };
    expect(parsed.pipelines[0]).toMatchObject({ name: 'products', lastRun: { status: 'succeeded' } });
    expect(parsed.pipelines[0]!.lastSuccessAt).not.toBeNull();
  });

  it('recovers by itself once space is freed: the next scheduled run succeeds, /readyz is 200 again, nothing is lost', async () => {
    const before = (await daemon.runtime.state.runs.list({ pipeline: 'products', limit: 1000 })).length;
    rmSync(join(disk, 'filler'));
    await until(async () => (await daemon.runtime.state.runs.list({ pipeline: 'products', status: 'succeeded', limit: 1000 })).some((r) => r.counts.updated === PRODUCTS), 30_000);
    await until(async () => (await readyz()).status === 200, 20_000);

    const shop = await shopProducts(sandbox);
    expect(shop.size).toBe(PRODUCTS);
    expect([...shop.values()].every((p) => Number(p.products_price) === 77)).toBe(true);
    const runs = await daemon.runtime.state.runs.list({ pipeline: 'products', limit: 1000 });
    // The runs of the full disk left no row (nothing could be written), none is counted as a success it was not.
    expect(runs.length).toBeGreaterThan(before);
    expect(runs.filter((r) => r.status !== 'succeeded')).toEqual([]);
    expect(await daemon.runtime.state.refs.count('products')).toBe(PRODUCTS);
    const reopened = await openState(statePath);
    try {
      expect(await reopened.refs.get('products', sku(1))).toBeDefined();
    } finally {
      await reopened.close();
    }
  });
});

describe.skipIf(!root)('status of a SQLite state that no process holds open', () => {
  let dir: string;
  let disk: string;
  let config: string;
  const env = { SHOP_URL: 'http://127.0.0.1:9', SHOP_TOKEN: 'test-token' };

  beforeAll(async () => {
    await ensureBuilt();
    dir = tempDir('shopsync-disk-status-');
    disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', disk]);
    const statePath = join(disk, 'state', 'shopsync.db');
    config = writeConfig(dir, { statePath });
    // Closed cleanly: the -wal and -shm files are gone, and SQLite needs them back to read.
    const state = await openState(statePath);
    try {
      const id = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      await state.runs.finish(id, 'succeeded', { ...emptyCounts(), read: 3, created: 3 });
    } finally {
      await state.close();
    }
  }, 300_000);

  afterAll(() => {
    try {
      execFileSync('umount', [disk]);
    } finally {
      removeDir(dir);
    }
  });

  const lastRun = async () => {
    const r = await runCli(['status', '--json', '--config', config], { env });
    expect(r.code, r.stderr).toBe(0);
    return { stderr: r.stderr, run: (JSON.parse(r.stdout) as { pipelines: { lastRun: { status: string; counts: Record<string, number> } | null }[] }).pipelines[0]!.lastRun };
  };

  it('shows the runs of a state on a full disk, read-only, with a warning line naming the full disk', async () => {
    fill(join(disk, 'filler'));
    try {
      const { stderr, run } = await lastRun();
      expect(run).toMatchObject({ status: 'succeeded', counts: { read: 3, created: 3 } });
      expect(stderr).toMatch(/"level":40.*"code":"STATE_DISK_FULL".*the state is open read-only, so nothing is written: the disk under the state .* is full/);
    } finally {
      rmSync(join(disk, 'filler'));
    }
  });

  it('shows the runs of a state on a read-only mount, with a warning line naming STATE_READ_ONLY; a sync there fails with it', async () => {
    execFileSync('mount', ['-o', 'remount,ro', disk]);
    try {
      const { stderr, run } = await lastRun();
      expect(run).toMatchObject({ status: 'succeeded' });
      expect(stderr).toMatch(/"code":"STATE_READ_ONLY".*the state is open read-only, so nothing is written/);
      const sync = await runCli(['sync', 'products', '--config', config], { env });
      expect(sync.code).toBe(1);
      expect(sync.stderr).toMatch(/\[STATE_READ_ONLY\] the state .*shopsync\.db cannot be written \(not writable for this process\): .*mounted read-only/);
      expect(sync.stderr).not.toMatch(/\n\s+at /);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', disk]);
    }
  });
});

describe.skipIf(!root)('a run whose shop writes went out but whose settle and end cannot be recorded', () => {
  const sandbox = useSandbox();
  const N = 120;
  let dir: string;
  let disk: string;
  let runtime: Runtime;

  beforeAll(async () => {
    dir = tempDir('shopsync-disk-mid-run-');
    disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
    createErp(join(dir, 'erp.sqlite'), N);
    // Batches of 50, one at a time: the disk fills between the second batch's answer and its settle.
    const config = writeConfig(dir, { statePath: join(disk, 'state', 'shopsync.db'), batchSize: 50 });
    runtime = await openRuntime(await loadConfig(config, { env: { ...process.env, ...shopEnv(sandbox) } }), { logger: silentLogger });
  }, 300_000);

  afterAll(async () => {
    await runtime?.close();
    try {
      execFileSync('umount', [disk]);
    } finally {
      removeDir(dir);
    }
  });

  it('is not reported as a success, and the next run after space returns lands every product exactly once', async () => {
    const finished: RunSummary[] = [];
    const offFinished = runtime.events.on('run-finished', (e) => finished.push(e.summary));
    let batches = 0;
    // In the event of the second batch's answer, before its settle: the shop holds 100 products the state cannot record.
    const offSent = runtime.events.on('batch-sent', () => {
      if (++batches === 2) fill(join(disk, 'filler'));
    });
    try {
      await expect(runtime.run('products')).rejects.toMatchObject({ code: 'STATE_DISK_FULL', details: { freeBytes: 0 } });
    } finally {
      offSent();
    }
    expect(batches).toBe(2);
    expect(finished).toEqual([]);

    rmSync(join(disk, 'filler'));
    const next = await runtime.run('products');
    offFinished();
    expect(next.status).toBe('succeeded');
    expect(finished.map((f) => f.status)).toEqual(['succeeded']);
    const runs = await runtime.state.runs.list({ pipeline: 'products' });
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'crashed']);
    const res = await fetch(`${sandbox.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${sandbox.token}` } });
    const models = ((await res.json()) as { data: { products_model: string }[] }).data.map((p) => p.products_model);
    expect(models.length).toBe(N);
    expect(new Set(models).size).toBe(N);
  });
});
