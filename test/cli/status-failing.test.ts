import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emptyCounts, openState } from '../../src/state/index.js';
import { ensureBuilt, runCli, tempDir, writeConfig } from './support.js';

// No request reaches a shop: status reads the state only.
const env = { SHOP_URL: 'http://127.0.0.1:9', SHOP_TOKEN: 'test-token' };

interface StatusJson {
  readonly pipelines: { name: string; shop: string; failing: boolean; reasons: { code: string; text: string }[] }[];
}

/** `products` in the default shop and `products-de` in shop de, as test/cli/shops.test.ts has them. */
function twoShopConfig(dir: string): string {
  const config = writeConfig(dir, { extraShop: 'shops:\n  de: { baseUrl: "${SHOP_URL}", token: "${SHOP_TOKEN}" }\n' });
  const second = '  - name: products-de\n    shop: de\n    direction: push\n    resource: products\n    mapping: products.yaml\n    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }\n';
  writeFileSync(config, readFileSync(config, 'utf8').replace('\nstate:\n', `\n${second}state:\n`));
  return config;
}

describe('shopsync status --failing', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = tempDir('shopsync-cli-status-failing-');
    config = twoShopConfig(dir);
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      // products: a partial run that left a dead letter. products-de: a clean run.
      const runId = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      await state.write((tx) => tx.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey: 'D-1', runId, code: 'MAPPING_REQUIRED', reason: 'no name', record: { sku: 'D-1' } }));
      await state.runs.finish(runId, 'partial', { ...emptyCounts(), read: 3, created: 2, failed: 1, deadLettered: 1 });
      const de = state.forShop('de');
      const clean = await de.runs.start({ pipeline: 'products-de', mode: 'sync', lane: 'products-de' });
      await de.runs.finish(clean, 'succeeded', { ...emptyCounts(), read: 3, created: 3 });
    } finally {
      await state.close();
    }
  }, 300_000);

  it('lists only the failing pipelines with why, and exits 1 because some are failing', async () => {
    const json = await runCli(['status', '--failing', '--json', '--config', config], { env });
    expect(json.code, json.stderr).toBe(1);
    const parsed = JSON.parse(json.stdout) as StatusJson;
    expect(parsed.pipelines.map((p) => [p.name, p.reasons.map((r) => r.code)])).toEqual([['products', ['records-failed', 'dead-letters']]]);

    const table = await runCli(['status', '--failing', '--config', config], { env });
    expect(table.code, table.stderr).toBe(1);
    expect(table.stdout).toMatch(/^products\s+default\s/m);
    expect(table.stdout).not.toContain('products-de');
    expect(table.stdout).toMatch(/FAILING: 1 of 2 pipeline\(s\)\n {2}products \(shop default\): last run #\d+ left 1 record\(s\) failed; 1 dead letter\(s\) wait: retry or drop them/);
  });

  it('narrows to one shop with --shop and exits 0 when none of its pipelines is failing', async () => {
    const de = await runCli(['status', '--failing', '--shop', 'de', '--config', config], { env });
    expect(de.code, de.stderr).toBe(0);
    expect(de.stdout.trim()).toBe('no failing pipelines in shop de (of 1)');
    const deJson = await runCli(['status', '--failing', '--shop', 'de', '--json', '--config', config], { env });
    expect(deJson.code, deJson.stderr).toBe(0);
    expect((JSON.parse(deJson.stdout) as StatusJson).pipelines).toEqual([]);
  });

  it('keeps plain status a report: every pipeline, its failing flag, exit 0', async () => {
    const all = await runCli(['status', '--json', '--config', config], { env });
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as StatusJson).pipelines.map((p) => [p.name, p.failing])).toEqual([
      ['products', true],
      ['products-de', false],
    ]);
  });

  it('exits 0 once the letter is dropped and a run went through', async () => {
    const dropped = await runCli(['dlq', 'drop', '--all', '--pipeline', 'products', '--config', config], { env });
    expect(dropped.code, dropped.stderr).toBe(0);
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      const runId = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      await state.runs.finish(runId, 'succeeded', { ...emptyCounts(), read: 1, updated: 1 });
    } finally {
      await state.close();
    }
    const after = await runCli(['status', '--failing', '--config', config], { env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.trim()).toBe('no failing pipelines (of 2)');
  });
});
