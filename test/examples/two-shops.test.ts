/**
 * examples/two-shops: one ERP and two shops (two sandboxes). Each shop gets the articles with the
 * price of its own price group; references and hashes are kept per shop (two shop ids, two hashes
 * per article), so a second run sends nothing, and a price change of one group reaches only its shop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { useSandbox } from '../support/sandbox.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/two-shops/shopsync.yaml');
const de = useSandbox();
const at = useSandbox();
let dir: string;
let erp: Database.Database;
let runtime: Runtime;

/** The products a shop holds, model → price. */
async function prices(shop: { url: string; token: string }): Promise<Record<string, number>> {
  const res = await fetch(`${shop.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${shop.token}` } });
  const body = (await res.json()) as { data: { products_model: string; products_price: number | string }[] };
  return Object.fromEntries(body.data.map((p) => [p.products_model, Number(p.products_price)]));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shopsync-two-shops-'));
  erp = new Database(join(dir, 'erp.db'));
  erp.exec(`CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT NOT NULL, geaendert TEXT NOT NULL);
            CREATE TABLE preise (artnr TEXT NOT NULL, gruppe TEXT NOT NULL, preis TEXT NOT NULL, PRIMARY KEY (artnr, gruppe));
            INSERT INTO artikel VALUES ('A-1', 'Hammer', '2026-01-01'), ('A-2', 'Zange', '2026-01-01'), ('A-3', 'Säge', '2026-01-01');
            INSERT INTO preise VALUES ('A-1', 'DE', '10.00'), ('A-1', 'AT', '11.50'), ('A-2', 'DE', '20.00'), ('A-2', 'AT', '21.50'), ('A-3', 'DE', '30.00'), ('A-3', 'AT', '32.00');`);
  const env = { SHOP_DE_URL: de.url, SHOP_DE_TOKEN: de.token, SHOP_AT_URL: at.url, SHOP_AT_TOKEN: at.token, ERP_DB: join(dir, 'erp.db'), STATE_DB: join(dir, 'state.db') };
  runtime = await openRuntime(await loadConfig(EXAMPLE, { env }), { logger: silentLogger });
});
afterAll(async () => {
  await runtime?.close();
  erp?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('examples/two-shops', () => {
  it('pushes every article to both shops, each with the price of its own price group', async () => {
    const [first, second] = [await runtime.run('products-de'), await runtime.run('products-at')];
    expect(first).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    expect(second).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    expect(await prices(de)).toEqual({ 'A-1': 10, 'A-2': 20, 'A-3': 30 });
    expect(await prices(at)).toEqual({ 'A-1': 11.5, 'A-2': 21.5, 'A-3': 32 });
  });

  it('keeps one reference per shop for the same ERP article, and names the shop on every run', async () => {
    const inDe = await runtime.state.forShop('de').refs.get('products', 'A-1');
    const inAt = await runtime.state.forShop('at').refs.get('products', 'A-1');
    expect(inDe?.shop).toBe('de');
    expect(inAt?.shop).toBe('at');
    expect(await runtime.state.refs.get('products', 'A-1')).toBeUndefined();
    const runs = await runtime.state.runs.list({ limit: 10 });
    expect(runs.map((r) => `${r.pipeline}@${r.shop}`).sort()).toEqual(['products-at@at', 'products-de@de']);
    expect((await runtime.state.runs.list({ shop: 'at' })).map((r) => r.pipeline)).toEqual(['products-at']);
  });

  it('sends nothing when nothing changed, and a changed AT price only to the Austrian shop', async () => {
    expect((await runtime.run('products-de')).counts).toMatchObject({ requests: 0, unchanged: 0, created: 0, updated: 0 });
    erp.exec(`UPDATE preise SET preis = '12.90' WHERE artnr = 'A-1' AND gruppe = 'AT'; UPDATE artikel SET geaendert = '2026-02-01' WHERE artnr = 'A-1'`);
    const deRun = await runtime.run('products-de');
    const atRun = await runtime.run('products-at');
    expect(deRun.counts).toMatchObject({ read: 1, unchanged: 1, updated: 0, requests: 0 });
    expect(atRun.counts).toMatchObject({ read: 1, updated: 1 });
    expect((await prices(at))['A-1']).toBe(12.9);
    expect((await prices(de))['A-1']).toBe(10);
  });
});
