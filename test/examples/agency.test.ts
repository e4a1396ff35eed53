/**
 * examples/agency: one ERP, three shop files in shops.d/ (de, at, ch) and two templates. Loaded as
 * written and run against three sandboxes: each shop gets the price of its own column and the name
 * in its own language from one mapping file; the Austrian shop's rate limit, batch size and
 * schedule offset are its own; and a shop whose file breaks stops alone.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, shopsOf, type LoadedConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { useSandbox } from '../support/sandbox.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/agency');
const sandboxes = { de: useSandbox(), at: useSandbox(), ch: useSandbox() };
let dir: string;
let env: NodeJS.ProcessEnv;
let loaded: LoadedConfig;
let runtime: Runtime;

/** What a shop holds, model → price and names by language. */
async function products(shop: { url: string; token: string }): Promise<Record<string, { price: number; names: Record<string, string> }>> {
  const res = await fetch(`${shop.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${shop.token}` } });
  const body = (await res.json()) as { data: { products_model: string; products_price: number | string; languages?: Record<string, { products_name?: string }> }[] };
  return Object.fromEntries(
    body.data.map((p) => [p.products_model, { price: Number(p.products_price), names: Object.fromEntries(Object.entries(p.languages ?? {}).map(([l, v]) => [l, v.products_name ?? ''])) }]),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shopsync-agency-'));
  const erp = new Database(join(dir, 'erp.db'));
  erp.exec(`CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT, name_en TEXT, geaendert TEXT, vk_de TEXT, vk_at TEXT, vk_ch TEXT, bestand INTEGER);
            INSERT INTO artikel VALUES ('A-1', 'Hammer', 'Hammer (en)', '2026-01-01', '10.00', '11.50', '14.90', 5),
                                       ('A-2', 'Zange', 'Pliers', '2026-01-01', '20.00', '21.50', '26.00', 7);`);
  erp.close();
  env = { ERP_DB: join(dir, 'erp.db'), STATE_DB: join(dir, 'state.db') };
  for (const [name, s] of Object.entries(sandboxes)) Object.assign(env, { [`SHOP_${name.toUpperCase()}_URL`]: s.url, [`SHOP_${name.toUpperCase()}_TOKEN`]: s.token });
  loaded = await loadConfig(join(EXAMPLE, 'shopsync.yaml'), { env });
  runtime = await openRuntime(loaded, { logger: silentLogger });
});
afterAll(async () => {
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('examples/agency', () => {
  it('expands two templates into one pipeline per shop, leaving out what a shop does not run', () => {
    expect(loaded.brokenShops).toEqual([]);
    expect(loaded.config.pipelines.map((p) => p.name).sort()).toEqual(['products-at', 'products-ch', 'products-de', 'stock-at', 'stock-de']);
  });

  it("applies each shop's own schedule offset, batch size and rate limit", () => {
    const byName = Object.fromEntries(loaded.config.pipelines.map((p) => [p.name, p]));
    expect([byName['products-de']!.schedule, byName['products-at']!.schedule, byName['products-ch']!.schedule]).toEqual(['*/5 * * * *', '20 */5 * * * *', '40 */5 * * * *']);
    expect([byName['products-de']!.batchSize, byName['products-at']!.batchSize]).toEqual([100, 50]);
    expect(shopsOf(loaded.config).at!.rateLimit).toMatchObject({ mode: 'fixed', requests: 20 });
    expect(shopsOf(loaded.config).de!.rateLimit).toMatchObject({ mode: 'adaptive' });
  });

  it('gives every shop the price of its own column and the name in its language, from one mapping file', async () => {
    for (const shop of ['de', 'at', 'ch']) expect(await runtime.run(`products-${shop}`)).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    const [de, at, ch] = [await products(sandboxes.de), await products(sandboxes.at), await products(sandboxes.ch)];
    expect([de['A-1']!.price, at['A-1']!.price, ch['A-1']!.price]).toEqual([10, 11.5, 14.9]);
    expect([de['A-2']!.price, at['A-2']!.price, ch['A-2']!.price]).toEqual([20, 21.5, 26]);
    expect(de['A-2']!.names.de).toBe('Zange');
    expect(ch['A-2']!.names.en).toBe('Pliers');
  });

  it("talks to each shop at its own rate: the Austrian shop's client holds its fixed limit, the others adapt", () => {
    expect(runtime.shop('at').rate()).toMatchObject({ mode: 'fixed', requestsPerSecond: 20 });
    expect(runtime.shop('de').rate()).toMatchObject({ mode: 'adaptive' });
    expect(runtime.shop('ch').rate()).toMatchObject({ mode: 'adaptive' });
  });

  it('runs the same stock template for the shops it lists', async () => {
    expect(await runtime.run('stock-at')).toMatchObject({ status: 'succeeded', counts: { updated: 2 } });
  });

  it("keeps the other shops loaded and running when one shop's file breaks", async () => {
    const copy = join(dir, 'agency');
    cpSync(EXAMPLE, copy, { recursive: true });
    writeFileSync(join(copy, 'shops.d', 'at.yaml'), 'baseUrl: ${SHOP_AT_URL}\ntoken: ${SHOP_AT_TOKEN}\nrateLimit: { mode: fixed, requests: many }\n');
    const partly = await loadConfig(join(copy, 'shopsync.yaml'), { env: { ...env, STATE_DB: join(dir, 'state-2.db') } });
    expect(partly.brokenShops.map((b) => [b.name, b.line, b.pipelines])).toEqual([['at', 3, ['products-at', 'stock-at']]]);
    expect(partly.brokenShops[0]!.message).toContain(`${join(copy, 'shops.d', 'at.yaml')}:3: rateLimit.requests`);
    expect(partly.config.pipelines.map((p) => p.name).sort()).toEqual(['products-ch', 'products-de', 'stock-de']);
    const other = await openRuntime(partly, { logger: silentLogger });
    try {
      expect(await other.run('products-de')).toMatchObject({ status: 'succeeded' });
      await expect(other.run('products-at')).rejects.toThrow(/pipeline products-at does not run: its shop at is broken \(.*at\.yaml:3\)/);
    } finally {
      await other.close();
    }
  });
});
