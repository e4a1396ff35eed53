import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, sku, tempDir, writeConfig } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { startSandbox } from '../../src/sandbox/index.js';

// The spawned CLI: records gone from the ERP (sync --complete, the guard, --allow-mass-delete) and
// shopsync reconcile (summary, --json, --csv, --repair, exit codes).
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

function withOnMissing(config: string): void {
  writeFileSync(config, readFileSync(config, 'utf8').replace('options: { pageSize: 500, concurrency: 1 }', 'options: { pageSize: 500, concurrency: 1, onMissing: deactivate }'));
}

describe('shopsync sync --complete and shopsync reconcile (spawned against the sandbox)', { timeout: 180_000 }, () => {
  it('refuses a mass deactivation with exit 1, then deactivates with --allow-mass-delete', async () => {
    const dir = tempDir();
    const erpFile = join(dir, 'erp.sqlite');
    createErp(erpFile, 20);
    const config = writeConfig(dir);
    withOnMissing(config);
    const env = shopEnv(sandbox);
    expect((await runCli(['sync', 'products', '--config', config], { env })).code).toBe(0);
    const erp = new Database(erpFile);
    erp.prepare('DELETE FROM products WHERE sku IN (?, ?, ?)').run(sku(1), sku(2), sku(3));
    erp.close();

    const incremental = await runCli(['sync', 'products', '--config', config], { env });
    expect(incremental.stdout).toContain('gone from the ERP: not decided (an incremental read');
    const refused = await runCli(['sync', 'products', '--complete', '--config', config], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('[MASS_DELETE_REFUSED]');
    expect(refused.stdout).toContain('gone from the ERP: 3 of 20, REFUSED');
    const dry = await runCli(['sync', 'products', '--dry-run', '--allow-mass-delete', '--config', config], { env });
    expect(dry.stdout).toContain(`deactivate ${sku(1)}`);
    // The dry run acted on none: it says what it would do.
    expect(dry.stdout).toContain('gone from the ERP (onMissing: deactivate): 3 of 20; would deactivate 3');
    const allowed = await runCli(['sync', 'products', '--allow-mass-delete', '--config', config], { env });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('gone from the ERP (onMissing: deactivate): 3 of 20; deactivated 3, deleted 0, failed 0');
  });

  it('reports drift with exit 1, writes --json and --csv, and --repair brings the shop back', async () => {
    const dir = tempDir();
    const erpFile = join(dir, 'erp.sqlite');
    createErp(erpFile, 10);
    const config = writeConfig(dir);
    // A shop of its own: a reconciliation reads the whole shop.
    const shop = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    try {
      const env = shopEnv(shop);
      expect((await runCli(['sync', 'products', '--config', config], { env })).code).toBe(0);
      const erp = new Database(erpFile);
      erp.prepare("UPDATE products SET price = '77.00' WHERE sku = ?").run(sku(4));
      erp.close();

      const drift = await runCli(['reconcile', 'products', '--config', config, '--csv', join(dir, 'drift.csv')], { env });
      expect(drift.code, drift.stderr).toBe(1);
      expect(drift.stdout).toMatch(/products reconcile \(products in shop default, paired by shop key products_model\) in [\d.]+ s: drift 1/);
      expect(drift.stdout).toContain(`${sku(4)} → shop`);
      expect(drift.stdout).toContain('products_price');
      expect(readFileSync(join(dir, 'drift.csv'), 'utf8')).toContain(`different,${sku(4)},${sku(4)}`);
      expect(existsSync(join(dir, 'state', 'reconcile', 'products'))).toBe(true);

      const repaired = await runCli(['reconcile', 'products', '--repair', '--json', '--config', config], { env });
      expect(repaired.code, repaired.stderr).toBe(0);
      expect(JSON.parse(repaired.stdout)).toMatchObject({ drift: 1, repair: { status: 'succeeded', pushed: 1, updated: 1 } });
      const clean = await runCli(['reconcile', 'products', '--config', config], { env });
      expect(clean.code).toBe(0);
      expect(clean.stdout).toContain('drift 0');
    } finally {
      await shop.close();
    }
  });
});
