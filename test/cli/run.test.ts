import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { openState } from '../../src/state/index.js';
import { createErp, ensureBuilt, runCli, shopProducts, sku, startCli, tempDir, writeConfig } from './support.js';
import { useSandbox, shopEnv } from '../support/sandbox.js';
import { until } from '../support/wait.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe('shopsync run (the daemon, spawned as the container runs it)', { timeout: 180_000 }, () => {
  it('answers /healthz, /readyz and /metrics, skips overlapping ticks, and on SIGTERM checkpoints, exits 0 and lets the next run continue', async () => {
    const dir = tempDir();
    const total = 240;
    createErp(join(dir, 'erp.sqlite'), total);
    const config = writeConfig(dir, { schedule: '* * * * * *', requestsPerSecond: 4, batchSize: 10, pageSize: 20 });
    const env = shopEnv(sandbox);

    const daemon = startCli(['run', '--config', config], { env });
    const [, url] = await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/);
    const dashboard = await fetch(`${url}/`);
    expect(dashboard.status).toBe(200);
    const page = await dashboard.text();
    expect(page).toContain('products');
    expect(page).toMatch(/data-shop-rate="default"><div class="v" title="[^"]*">[\d.]+\/s actual<\/div><div class="k">shop requests of [\d.]+\/s allowed \(adaptive/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    await until(async () => (await shopProducts(sandbox)).size >= 40);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { state: { ok: true }, shops: { ok: true } } });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/shopsync_records_total\{shop="default",pipeline="products",outcome="created"\} [1-9]\d*/);
    expect(metrics).toMatch(/shopsync_shop_request_duration_seconds_count\{shop="default",resource="products",method="POST",status="200"\} [1-9]/);
    expect(metrics).toContain('shopsync_shop_queue_depth{shop="default",state="waiting"}');
    expect(metrics).toMatch(/shopsync_shop_rate_requests_per_second\{shop="default"\} [1-9]/);
    expect(metrics).toMatch(/shopsync_shop_rate_sent_per_second\{shop="default"\} [\d.]+/);
    expect(metrics).toContain('shopsync_dead_letters{shop="default",pipeline="products"} 0');
    expect(metrics).toContain('# TYPE shopsync_last_success_timestamp_seconds gauge');
    await daemon.waitFor(/skipped scheduled run: the previous run of this pipeline is still in progress/);

    daemon.child.kill('SIGTERM');
    const result = await daemon.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('shopsync daemon stopped');
    const sentByDaemon = (await shopProducts(sandbox)).size;
    expect(sentByDaemon).toBeLessThan(total);

    // Consistent state: nothing left running, the interrupted run is marked aborted, the cursor sits at a checkpoint.
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      const runs = await state.runs.list({ pipeline: 'products' });
      expect(runs.filter((r) => r.status === 'running')).toEqual([]);
      expect(runs[0].status).toBe('aborted');
      expect(await state.locks.get('products')).toBeUndefined();
    } finally {
      await state.close();
    }

    const next = await runCli(['sync', 'products', '--json', '--config', config], { env });
    expect(next.code, next.stderr).toBe(0);
    const summary = JSON.parse(next.stdout) as { counts: { read: number } };
    expect(summary.counts.read).toBeLessThan(total);
    const shop = await shopProducts(sandbox);
    for (let i = 1; i <= total; i++) expect(shop.has(sku(i)), sku(i)).toBe(true);
  });

  it('marks a run left behind by a killed process as crashed on the next start', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 200);
    const config = writeConfig(dir, { requestsPerSecond: 4, batchSize: 10, pageSize: 20 });
    const own = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    const env = shopEnv(own);
    const sync = startCli(['sync', 'products', '--config', config], { env });
    await until(async () => (await shopProducts(own)).size >= 20);
    sync.child.kill('SIGKILL');
    await sync.exited;
    await own.close();

    const daemon = startCli(['run', '--config', config, '--no-dashboard'], { env });
    await daemon.waitFor(/shopsync daemon started/);
    daemon.child.kill('SIGTERM');
    const result = await daemon.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('marked a run left unfinished by a crashed process as crashed');
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      expect((await state.runs.list({ pipeline: 'products' }))[0]).toMatchObject({ status: 'crashed', error: { code: 'RUN_CRASHED' } });
    } finally {
      await state.close();
    }
  });

  it('exits 4 when a run outlives the grace period, and the next start marks that run crashed and continues', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 200);
    const config = writeConfig(dir, { schedule: '* * * * * *', requestsPerSecond: 4, batchSize: 10, pageSize: 20 });
    writeFileSync(config, readFileSync(config, 'utf8').replace('shutdownGraceMs: 10000', 'shutdownGraceMs: 0'));
    const own = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    const env = shopEnv(own);
    const control = (path: string, init: RequestInit = {}) => fetch(`${own.url}${path}`, { ...init, headers: { authorization: `Bearer ${own.token}`, 'content-type': 'application/json' } });
    const heldWrites = async () => ((await (await control('/sandbox/traffic')).json()) as { held_writes_now: number }).held_writes_now;
    try {
      const daemon = startCli(['run', '--config', config, '--no-dashboard'], { env });
      await until(async () => (await shopProducts(own)).size >= 20);
      // From now on every answer takes 10 s, and the signal comes only once a write is held on the wire by that
      // latency: a write already sent is answered before the run ends (exactly once), so the run cannot end
      // within a grace period of 0, nor before the process ends. (Waiting on the shop's count of held writes, not
      // on the clock or on a request count: a read, unlike a write, is abandoned at once, and its run ended in time.)
      const slow = await control('/sandbox/faults', { method: 'PUT', body: JSON.stringify({ latency_ms: 10_000 }) });
      expect(slow.ok).toBe(true);
      await until(async () => (await heldWrites()) > 0);
      daemon.child.kill('SIGTERM');
      const result = await daemon.exited;
      expect(result.code, result.stdout + result.stderr).toBe(4);
      await control('/sandbox/faults', { method: 'PUT', body: JSON.stringify({ latency_ms: 0 }) });
      expect(result.stdout).toContain('grace period over');

      const next = await runCli(['sync', 'products', '--json', '--config', config], { env });
      expect(next.code, next.stderr).toBe(0);
      const state = await openState(join(dir, 'state/shopsync.db'));
      try {
        const runs = await state.runs.list({ pipeline: 'products' });
        expect(runs.filter((r) => r.status === 'running')).toEqual([]);
        expect(runs.map((r) => r.status)).toContain('crashed');
      } finally {
        await state.close();
      }
      const shop = await shopProducts(own);
      for (let i = 1; i <= 200; i++) expect(shop.has(sku(i)), sku(i)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('refuses to serve beyond loopback without a dashboard token (exit 2)', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 1);
    const config = writeConfig(dir);
    const res = await runCli(['run', '--config', config, '--host', '0.0.0.0'], { env: shopEnv(sandbox) });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('dashboard token');
  });
});
