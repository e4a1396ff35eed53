/**
 * A one-off sync against a shop that throttles hard (5 requests a second, 429 with Retry-After
 * beyond that) and answers every fifth request 503, with settings that are too optimistic on
 * purpose. The process once ended in the middle of such a run with exit 0 (issue 25).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, shopProducts, sku, tempDir, writeConfig } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { setFaults } from '../pipeline/support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

function stormConfig(dir: string, mode: 'adaptive' | 'fixed'): string {
  const file = writeConfig(dir, { batchSize: 5 });
  const yaml = readFileSync(file, 'utf8')
    .replace(/rateLimit: \{[^}]*\}/, `rateLimit: { requests: 40, intervalMs: 1000, mode: ${mode} }`)
    .replace('concurrency: 2', 'concurrency: 8')
    // The client's default retry (a Retry-After of a second is waited out whole).
    .replace('  retry: { baseDelayMs: 5, maxDelayMs: 200 }\n', '');
  writeFileSync(file, yaml);
  return file;
}

describe.each(['adaptive', 'fixed'] as const)('shopsync sync against a shop that throttles and fails (rateLimit.mode %s)', { timeout: 240_000 }, (mode) => {
  it('delivers all 300 products in one run, dead-letters none and exits 0 only after the run succeeded', async () => {
    await setFaults(sandbox, { rate_limit_per_second: 5, error_rate: 0.2, error_status: 503 });
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 300);
    // Each mode's products carry their own SKU prefix in the one sandbox of this file.
    const erp = join(dir, 'erp.sqlite');
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(erp);
    db.prepare(`UPDATE products SET sku = ? || sku`).run(`${mode}-`);
    db.close();
    const config = stormConfig(dir, mode);

    // runCli also fails the test if the process exits 0 while the run is not `succeeded` (the old silent exit left it `running`).
    const sync = await runCli(['sync', 'products', '--config', config, '--json'], { env: shopEnv(sandbox), timeoutMs: 200_000 });

    expect(sync.stdout, `exit ${sync.code}\n${sync.stderr.slice(-2000)}`).not.toBe('');
    expect(sync.code, sync.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ status: 'succeeded', counts: { read: 300, created: 300, failed: 0, deadLettered: 0 } });
    await setFaults(sandbox, { rate_limit_per_second: 0, error_rate: 0 });
    const shop = await shopProducts(sandbox);
    const mine = [...shop.values()].filter((p) => String(p.products_model).startsWith(`${mode}-`));
    expect(mine).toHaveLength(300);
    // Every value arrived, not only the record: product 123's price is 10 + 123 % 90.
    expect(Number(shop.get(`${mode}-${sku(123)}`)?.products_price)).toBe(43);
    if (mode === 'adaptive') {
      // The limit it learnt last is the shop's: 5 a second, counting the requests answered 503.
      const learnt = [...sync.stderr.matchAll(/"learntLimitPerSecond":(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
      expect(learnt.at(-1)).toBe(5);
    }
  });
});
