/**
 * Push benchmark: 20,000 products from an ERP SQLite file into the sandbox over HTTP.
 * - shopsync: batched writes, several batches in flight, state in SQLite.
 * - naive sync: the same mapping, one request per record, in sequence (what a simple script does).
 * - a second shopsync run with no changes (incremental), and a full re-read (cursor reset) where
 *   every record is compared by content hash: both must make 0 requests.
 * Both clients use the same unthrottled rate limit, so the figures compare request patterns, not a quota.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState } from '../../src/state/index.js';
import { productsMapping } from '../support/mappings.js';

const N = 20_000;
const MAPPING = productsMapping('bench-products');

const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')} records/s`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Run the push benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-push-'));
  const erpFile = join(dir, 'erp.sqlite');
  const erp = new Database(erpFile);
  erp.pragma('journal_mode = WAL');
  erp.exec('CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, qty INTEGER NOT NULL, updated_at TEXT NOT NULL)');
  const insert = erp.prepare('INSERT INTO products VALUES (?, ?, ?, ?, ?)');
  erp.transaction(() => {
    for (let i = 1; i <= N; i++) insert.run(`B-${String(i).padStart(6, '0')}`, `Bench product ${i}`, (5 + (i % 200) / 4).toFixed(2), i % 100, '2026-01-01 00:00:00');
  })();
  erp.close();
  writeFileSync(join(dir, 'products.yaml'), MAPPING);
  const mapping = await loadMapping(join(dir, 'products.yaml'));
  const source = () => createSource({ kind: 'sqlite', path: erpFile }, { query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }, { logger: silentLogger, baseDir: dir });
  const rateLimit = { concurrency: 4, intervalCap: 1_000_000, intervalMs: 1000 };
  const lines: string[] = [];
  let shopsyncMs = 0;
  let shopsyncRequests = 0;

  const shopA = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  const clientA = createShopClient({ baseUrl: shopA.url, auth: { kind: 'token', token: shopA.token }, rateLimit });
  const state = openState(join(dir, 'state.db'));
  const def = { name: 'bench-products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 100, options: { concurrency: 4, storePayloads: false } };
  try {
    let t = performance.now();
    const first = await runPipeline(def, { state, shop: clientA, mapping, source });
    let ms = performance.now() - t;
    shopsyncMs = ms;
    shopsyncRequests = first.counts.requests;
    lines.push(`shopsync first run: ${first.counts.created.toLocaleString('en-US')} created in ${secs(ms)} = ${rate(N, ms)}, ${first.counts.requests} requests (batch 100, 4 batches in flight), status ${first.status}`);

    t = performance.now();
    const second = await runPipeline(def, { state, shop: clientA, mapping, source });
    ms = performance.now() - t;
    lines.push(`shopsync second run, no changes (incremental): ${second.counts.read} read, ${second.counts.requests} requests, ${secs(ms)}`);

    state.cursors.delete('bench-products');
    t = performance.now();
    const full = await runPipeline(def, { state, shop: clientA, mapping, source });
    ms = performance.now() - t;
    lines.push(`shopsync full re-read, no changes (cursor reset, hash compare): ${full.counts.read.toLocaleString('en-US')} read, ${full.counts.unchanged.toLocaleString('en-US')} unchanged, ${full.counts.requests} requests, ${secs(ms)}`);
  } finally {
    await clientA.close();
    await state.close();
    await shopA.close();
  }

  const shopB = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  const clientB = createShopClient({ baseUrl: shopB.url, auth: { kind: 'token', token: shopB.token }, rateLimit, batchSize: 1 });
  try {
    const src = await source();
    const ctx = { lookupReference: () => undefined };
    let requests = 0;
    let ok = 0;
    const t = performance.now();
    for await (const item of src.read({ pageSize: 1000 })) {
      const mapped = mapping.applySync ? mapping.applySync(item.record, ctx) : await mapping.apply(item.record, ctx);
      if (!mapped.ok) continue;
      const result = await clientB.create('products', [mapped.payload]);
      requests += result.requests;
      if (result.outcomes[0]?.ok) ok++;
    }
    const ms = performance.now() - t;
    await src.close();
    lines.push(`naive sync (one request per record, in sequence): ${ok.toLocaleString('en-US')} created in ${secs(ms)} = ${rate(N, ms)}, ${requests.toLocaleString('en-US')} requests`);
    lines.push(`ratio shopsync vs naive, this run: ${(ms / shopsyncMs).toFixed(1)}x the throughput, ${(requests / Math.max(1, shopsyncRequests)).toFixed(0)}x fewer requests`);
  } finally {
    await clientB.close();
    await shopB.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  bench().then(
    (lines) => {
      for (const line of lines) process.stdout.write(`${line}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
