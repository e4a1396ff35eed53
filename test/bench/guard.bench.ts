/**
 * Guarded fields (issue 46): what `owner: guard` costs an update run. A shop of 5,000 products
 * (the sandbox in a process of its own), created by a push; then the ERP changes the price and the
 * description of 1,000 of them and a sync sends the updates, with the description
 * (a) the ERP's (`owner: erp`, no read), (b) guarded, the 1,000 neighbours in id order (ranges of
 * ids, one request per 249 ids), (c) guarded, every fifth product (the same 1,000 spread over all
 * 5,000 ids). Requests are the shop's own count (GET /sandbox/traffic), times the update run's wall
 * time, median of 5 rounds (each round a fresh shop and state, the variants in a rotating order), at
 * 0 and 50 ms a request.
 * BENCH_QUICK=1: 1,000 products, 200 updated, one round.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState } from '../../src/state/index.js';
import { count, median, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';

const PRODUCTS = QUICK ? 1_000 : 5_000;
const UPDATED = QUICK ? 200 : 1_000;
const ROUNDS = QUICK ? 1 : 5;
const LATENCIES = [0, 50];

const mapping = (owner: 'erp' | 'guard') => `
name: guard-bench
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
  products_price: { from: price, type: decimal, locale: point }
  products_status: { value: 1 }
  languages.de.products_name: name
  languages.de.products_description: { from: description, owner: ${owner} }
`;

type Variant = { readonly name: string; readonly owner: 'erp' | 'guard'; readonly every: number };
const VARIANTS: readonly Variant[] = [
  { name: 'owner: erp (no read)', owner: 'erp', every: 1 },
  { name: 'owner: guard, neighbouring ids', owner: 'guard', every: 1 },
  { name: `owner: guard, every ${PRODUCTS / UPDATED}th id`, owner: 'guard', every: PRODUCTS / UPDATED },
];

/** One round of one variant: create the catalog, change UPDATED products, time the update run and count its requests. */
async function once(v: Variant, latencyMs: number): Promise<{ ms: number; requests: number; updated: number; conflicts: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-guard-'));
  const shopProcess = await startShopProcess();
  const shop = createShopClient({ baseUrl: shopProcess.url, auth: { kind: 'token', token: shopProcess.token }, rateLimit: { mode: 'fixed', concurrency: 8, intervalCap: 100_000, intervalMs: 1000 } });
  const state = await openState(join(dir, 'state.db'));
  try {
    const erpPath = join(dir, 'erp.sqlite');
    const erp = new Database(erpPath);
    erp.exec('CREATE TABLE articles (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, description TEXT NOT NULL, updated_at TEXT NOT NULL)');
    const insert = erp.prepare("INSERT INTO articles VALUES (?, ?, ?, ?, '2026-01-01 00:00:00')");
    erp.transaction(() => {
      for (let i = 1; i <= PRODUCTS; i++) insert.run(`G-${String(i).padStart(6, '0')}`, `Artikel ${i}`, (5 + (i % 200) / 4).toFixed(2), `Beschreibung ${i} aus dem ERP`);
    })();
    writeFileSync(join(dir, 'guard-bench.yaml'), mapping(v.owner));
    const deps = { state, shop, mapping: await loadMapping(join(dir, 'guard-bench.yaml')), source: () => createSource({ kind: 'sqlite', path: erpPath }, { query: 'SELECT * FROM articles', cursor: 'updated_at', key: 'sku' } as never, { logger: silentLogger, baseDir: '/' }) };
    const def = { name: 'guard-bench', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'guard-bench.yaml', resource: 'products', batchSize: 100, options: { concurrency: 8 } };
    const first = await runPipeline(def, deps);
    if (first.status !== 'succeeded' || first.counts.created !== PRODUCTS) throw new Error(`the first push did not create every product: ${JSON.stringify(first.counts)}`);
    // Ids follow the creation order: every `every`-th product, UPDATED of them.
    const change = erp.prepare("UPDATE articles SET price = ?, description = ?, updated_at = '2026-01-02 00:00:00' WHERE sku = ?");
    erp.transaction(() => {
      for (let k = 0; k < UPDATED; k++) {
        const i = 1 + k * v.every;
        change.run((6 + (i % 200) / 4).toFixed(2), `Beschreibung ${i}, neu`, `G-${String(i).padStart(6, '0')}`);
      }
    })();
    erp.close();
    await shopProcess.faults({ latency_ms: latencyMs });
    const before = (await shopProcess.traffic()).requests;
    const started = performance.now();
    const run = await runPipeline(def, deps);
    const ms = performance.now() - started;
    const requests = (await shopProcess.traffic()).requests - before;
    if (run.status !== 'succeeded' || run.counts.updated !== UPDATED) throw new Error(`the update run did not update ${UPDATED}: ${JSON.stringify(run.counts)}`);
    return { ms, requests, updated: run.counts.updated, conflicts: run.counts.conflicts ?? 0 };
  } finally {
    await shop.close();
    await state.close();
    await shopProcess.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run the benchmark; returns the lines to print. */
export async function bench(): Promise<string[]> {
  const lines: string[] = [`${count(PRODUCTS)} products in the shop, ${count(UPDATED)} updated (price and description changed in the ERP), batches of 100, 8 in flight; median of ${ROUNDS} round(s)${QUICK ? ' [BENCH_QUICK sizes]' : ''}`];
  const rows: string[][] = [];
  for (const latency of LATENCIES) {
    const results = new Map<Variant, Awaited<ReturnType<typeof once>>[]>(VARIANTS.map((v) => [v, []]));
    // A rotating order: a machine busy with something else for a while does not weigh on one variant only.
    for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < VARIANTS.length; k++) {
      const v = VARIANTS[(r + k) % VARIANTS.length]!;
      results.get(v)!.push(await once(v, latency));
    }
    const per = 1000 / UPDATED;
    const of = (v: Variant) => ({ ms: median(results.get(v)!.map((x) => x.ms)), requests: median(results.get(v)!.map((x) => x.requests)) });
    const b = of(VARIANTS[0]!);
    for (const v of VARIANTS) {
      const m = of(v);
      rows.push([`${latency} ms`, v.name, count(m.requests * per), `+${count((m.requests - b.requests) * per)}`, `${count(m.ms * per)} ms`, v.owner === 'erp' ? '1.00×' : `${(m.ms / b.ms).toFixed(2)}×`, `${results.get(v)!.map((x) => count(x.ms * per)).join(', ')}`]);
    }
  }
  lines.push(...table(['latency', 'variant', 'requests per 1,000 updated', 'of them reads', 'run time per 1,000 updated (median)', 'vs erp', 'every round (ms)'], rows));
  return lines;
}
