import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';
import { ensureBuilt, runCli, tempDir, writeConfig } from './support.js';

// No request reaches a shop here: status and dlq list read the state only.
const env = { SHOP_URL: 'http://127.0.0.1:9', SHOP_TOKEN: 'test-token' };

/** A config with `shop:` (default) and `shops: { de }`: pipeline products in default, products-de in de. */
function twoShopConfig(dir: string): string {
  const config = writeConfig(dir, { extraShop: 'shops:\n  de: { baseUrl: "${SHOP_URL}", token: "${SHOP_TOKEN}" }\n' });
  const text = readFileSync(config, 'utf8');
  const second = '  - name: products-de\n    shop: de\n    direction: push\n    resource: products\n    mapping: products.yaml\n    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }\n';
  writeFileSync(config, text.replace('\nstate:\n', `\n${second}state:\n`));
  return config;
}

/** A partial run of `pipeline` in its shop, leaving a dead letter for each key. */
async function partialRun(state: StateStore, pipeline: string, keys: readonly string[]): Promise<void> {
  const runId = await state.runs.start({ pipeline, mode: 'sync', lane: pipeline });
  await state.write((tx) => {
    for (const erpKey of keys) tx.deadLetters.add({ pipeline, resource: 'products', erpKey, runId, code: 'MAPPING_REQUIRED', reason: 'no name', record: { sku: erpKey } });
  });
  await state.runs.finish(runId, 'partial', { ...emptyCounts(), read: keys.length, failed: keys.length, deadLettered: keys.length });
}

describe('status and dlq list of a deployment with several shops', () => {
  let config: string;

  beforeAll(async () => {
    await ensureBuilt();
    const dir = tempDir('shopsync-cli-shops-');
    config = twoShopConfig(dir);
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      await partialRun(state, 'products', ['D-1']);
      await partialRun(state.forShop('de'), 'products-de', ['DE-1', 'DE-2']);
    } finally {
      await state.close();
    }
  }, 300_000);

  it('shows every pipeline with its shop, and with --shop only the pipelines of that shop', async () => {
    const all = await runCli(['status', '--json', '--config', config], { env });
    expect(all.code, all.stderr).toBe(0);
    const pipelines = (out: string) => (JSON.parse(out) as { pipelines: { name: string; shop: string; deadLetters: number; lastRun: { status: string } | null }[] }).pipelines;
    expect(pipelines(all.stdout).map((p) => [p.name, p.shop, p.deadLetters, p.lastRun?.status])).toEqual([
      ['products', 'default', 1, 'partial'],
      ['products-de', 'de', 2, 'partial'],
    ]);

    const de = await runCli(['status', '--shop', 'de', '--json', '--config', config], { env });
    expect(de.code, de.stderr).toBe(0);
    expect(pipelines(de.stdout).map((p) => p.name)).toEqual(['products-de']);
    const byDefault = await runCli(['status', '--shop', 'default', '--config', config], { env });
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toMatch(/^products\s+default\s/m);
    expect(byDefault.stdout).not.toContain('products-de');
  });

  it('lists with --shop only the dead letters of that shop', async () => {
    const letters = async (...args: string[]) => {
      const r = await runCli(['dlq', 'list', '--json', ...args, '--config', config], { env });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { erpKey: string; shop: string; pipeline: string }[]).map((l) => `${l.shop}/${l.pipeline}/${l.erpKey}`).sort();
    };
    expect(await letters()).toEqual(['de/products-de/DE-1', 'de/products-de/DE-2', 'default/products/D-1']);
    expect(await letters('--shop', 'de')).toEqual(['de/products-de/DE-1', 'de/products-de/DE-2']);
    expect(await letters('--shop', 'default')).toEqual(['default/products/D-1']);
  });

  it('refuses a shop name that is not configured with a usage error naming the known shops', async () => {
    for (const args of [['status'], ['dlq', 'list']]) {
      const r = await runCli([...args, '--shop', 'ch', '--config', config], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain('no shop named "ch"; known: default, de');
      expect(r.stdout, args.join(' ')).toBe('');
    }
  });
});
