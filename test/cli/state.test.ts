import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { createErp, ensureBuilt, runCli, tempDir, writeConfig } from './support.js';
import { useSandbox, shopEnv } from '../support/sandbox.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe('shopsync state prune, backup and restore (spawned)', { timeout: 180_000 }, () => {
  it('prunes on demand, backs up, refuses to restore while the state is held, and restores once it is free', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 10);
    const config = writeConfig(dir);
    const env = shopEnv(sandbox);
    expect((await runCli(['sync', 'products', '--config', config], { env })).code).toBe(0);

    const dry = await runCli(['state', 'prune', '--dry-run', '--json', '--config', config], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, events: 0, runs: 0 });
    const prune = await runCli(['state', 'prune', '--config', config], { env });
    expect(prune.stdout).toMatch(/deleted 0 events, cleared 0 stored payloads, deleted 0 runs; reclaimed .*\nhistory now goes back to \d{4}-/);

    const backup = join(dir, 'backup.db');
    const b = await runCli(['state', 'backup', backup, '--config', config], { env });
    expect(b.code, b.stderr).toBe(0);
    expect(existsSync(backup)).toBe(true);
    expect((await runCli(['state', 'backup', backup, '--config', config], { env })).code).toBe(2);

    // A run of the products pipeline "in progress" in this (live) process holds the state.
    const statePath = join(dir, 'state', 'shopsync.db');
    const state = await openState(statePath);
    const lock = await state.locks.acquire('products');
    const refused = await runCli(['state', 'restore', backup, '--config', config], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/the state is in use \(products by pid \d+/);
    await lock.release();
    await state.close();

    const restored = await runCli(['state', 'restore', backup, '--config', config], { env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(`${statePath}.before-restore`)).toBe(true);
    const status = await runCli(['status', '--json'], { env: { ...env, SHOPSYNC_CONFIG: config } });
    expect(JSON.parse(status.stdout).pipelines[0]).toMatchObject({ name: 'products', lastRun: { status: 'succeeded', counts: { created: 10 } } });
  });
});
