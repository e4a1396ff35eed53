import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { createErp, ensureBuilt, runCli, shopProducts, sku, startCli, tempDir, writeConfig } from './support.js';
import { useSandbox, shopEnv } from '../support/sandbox.js';
import { until } from '../support/wait.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe('shopsync backfill (spawned against the sandbox)', { timeout: 180_000 }, () => {
  it('resumes an interrupted backfill from its checkpoint and never moves the incremental cursor', async () => {
    const dir = tempDir();
    const total = 240;
    createErp(join(dir, 'erp.sqlite'), total, true);
    // Slow enough to interrupt: 4 requests/s of 10 records.
    const config = writeConfig(dir, { requestsPerSecond: 4, batchSize: 10, pageSize: 20 });
    const env = shopEnv(sandbox);
    const args = ['backfill', 'products', '--from', '2026-01-01', '--to', '2026-12-31', '--config', config];

    const first = startCli(args, { env });
    await until(async () => (await shopProducts(sandbox)).size >= 40);
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(stopped.stdout).toMatch(/products backfill aborted/);
    expect(stopped.stderr).toContain('run the same command again to continue');
    expect(stopped.stderr).toContain('backfill progress');
    const sentFirst = (await shopProducts(sandbox)).size;
    expect(sentFirst).toBeLessThan(total);

    const status = JSON.parse((await runCli(['status', '--json', '--config', config], { env })).stdout) as { pipelines: { cursor: unknown; backfills: { name: string; key: string }[]; lastRun: { status: string } }[] };
    expect(status.pipelines[0].cursor).toBeNull();
    expect(status.pipelines[0].lastRun.status).toBe('aborted');
    expect(status.pipelines[0].backfills).toHaveLength(1);
    expect(status.pipelines[0].backfills[0].name).toBe('backfill:2026-01-01..2026-12-31');

    const second = await runCli([...args, '--json'], { env });
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout) as { status: string; counts: { read: number; created: number } };
    expect(summary.status).toBe('succeeded');
    // Only what the first run had not settled is read again.
    expect(summary.counts.read).toBeLessThan(total);
    expect(summary.counts.read).toBeGreaterThanOrEqual(total - sentFirst);
    const shop = await shopProducts(sandbox);
    for (let i = 1; i <= total; i++) expect(shop.has(sku(i)), sku(i)).toBe(true);

    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      expect(await state.cursors.get('products', 'incremental')).toBeUndefined();
      expect((await state.runs.list({ pipeline: 'products' })).map((r) => r.status)).toEqual(['succeeded', 'aborted']);
    } finally {
      await state.close();
    }
  });

  it('needs --from and --to', async () => {
    const res = await runCli(['backfill', 'products', '--from', '2026-01-01']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("required option '--to <value>'");
  });
});
