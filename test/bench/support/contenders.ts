/**
 * The four ways to push the benchmark catalog into a shop:
 * - naive: one request per record, one after another (mapping by hand);
 * - script: what a user writes in an afternoon: pages of the ERP table, mapping by hand, batches of
 *   100, 8 requests in flight, waits out Retry-After on 429, no state (mapping and reading included in its time);
 * - shopsync defaults: a push pipeline as `shopsync.yaml` gives it with nothing tuned;
 * - shopsync tuned: batches of 100, 8 in flight, a fixed rate high enough not to matter.
 * shopsync runs the whole pipeline: source, mapping with validation, state (references, hashes,
 * events, checkpoints; in SQLite unless a PostgreSQL schema is asked for), the client's queue and retries.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shopClientOptions, shopConfigSchema } from '../../../src/config/shop.js';
import { createSource } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { runPipeline } from '../../../src/pipeline/index.js';
import { pipelineSchema } from '../../../src/pipeline/schema.js';
import { createShopClient, type ClientEvent } from '../../../src/shop/index.js';
import { openState, type StateStore } from '../../../src/state/index.js';
import { catalogSource, mapByHand, readCatalog, skuOf, writeCatalogMapping } from './catalog.js';
import type { ShopProcess } from './shop.js';
import { benchState, type BenchBackend } from './states.js';

/** What one contender did. */
export interface PushResult {
  readonly records: number;
  readonly ms: number;
  readonly requests: number;
  /** Requests answered 429. */
  readonly throttled: number;
  /** Records the shop did not take. */
  readonly failed: number;
}

/** A way to push `n` records of the catalog at `erpFile` into `shop`. */
export type Contender = (shop: ShopProcess, erpFile: string, n: number) => Promise<PushResult>;

/** POST one batch the way a script would; waits out 429 with Retry-After and tries again. */
async function post(shop: ShopProcess, records: Record<string, unknown>[], counts: { requests: number; throttled: number; failed: number }): Promise<void> {
  for (;;) {
    counts.requests++;
    const res = await fetch(`${shop.url}/import/json/products`, { method: 'POST', headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'products', data: records }) });
    if (res.status === 429) {
      counts.throttled++;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      continue;
    }
    const body = (await res.json()) as { data?: unknown[] };
    if (!res.ok) counts.failed += records.length;
    else counts.failed += records.length - (body.data?.length ?? 0);
    return;
  }
}

/** One request per record, in sequence. */
export const naive: Contender = async (shop, erpFile, n) => {
  const counts = { requests: 0, throttled: 0, failed: 0 };
  const t = performance.now();
  let records = 0;
  for (const page of readCatalog(erpFile, n)) {
    for (const row of page) {
      await post(shop, [mapByHand(row)], counts);
      records++;
    }
  }
  return { records, ms: performance.now() - t, ...counts };
};

/** Batches of 100, 8 in flight, no state. */
export const script: Contender = async (shop, erpFile, n) => {
  const counts = { requests: 0, throttled: 0, failed: 0 };
  const inFlight = new Set<Promise<void>>();
  const t = performance.now();
  let records = 0;
  for (const page of readCatalog(erpFile, n)) {
    for (let i = 0; i < page.length; i += 100) {
      const batch = page.slice(i, i + 100).map(mapByHand);
      records += batch.length;
      const p: Promise<void> = post(shop, batch, counts).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= 8) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
  return { records, ms: performance.now() - t, ...counts };
};

/** How a shopsync contender runs: tuned or defaults, where its state lives, and whether it re-reads. */
export interface ShopsyncOptions {
  /** Batches of 100, 8 in flight, a fixed rate that never binds. */
  readonly tuned: boolean;
  /** @default 'sqlite' */
  readonly backend?: BenchBackend;
  /** After the push: reset the cursor and read every record again (nothing changed: all compared by hash, 0 requests). */
  readonly reread?: boolean;
}

/** What a shopsync contender did; `rereadMs` with `reread`. */
export interface ShopsyncResult extends PushResult {
  readonly rereadMs?: number;
}

/** A shopsync push pipeline run as `options` say. */
export async function runShopsync(shop: ShopProcess, erpFile: string, n: number, options: ShopsyncOptions): Promise<ShopsyncResult> {
  const { tuned } = options;
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-run-'));
  const counts = { requests: 0, throttled: 0 };
  const onEvent = (e: ClientEvent) => {
    if (e.type !== 'request') return;
    counts.requests++;
    if (e.status === 429) counts.throttled++;
  };
  const shopConfig = shopConfigSchema.parse(
    tuned ? { baseUrl: shop.url, token: shop.token, batchSize: 100, concurrency: 8, rateLimit: { mode: 'fixed', requests: 1_000_000 } } : { baseUrl: shop.url, token: shop.token },
  );
  const client = createShopClient({ ...shopClientOptions(shopConfig), onEvent });
  const def = pipelineSchema.parse({
    name: 'bench-products',
    direction: 'push',
    source: { connection: 'erp' },
    mapping: 'bench-products.yaml',
    resource: 'products',
    ...(tuned ? { batchSize: 100, options: { concurrency: 8 } } : {}),
  });
  const where = await benchState(options.backend ?? 'sqlite');
  let state: StateStore | undefined;
  try {
    state = await openState(where.location);
    const mapping = await loadMapping(writeCatalogMapping(dir));
    const source = () => createSource({ kind: 'sqlite', path: erpFile }, catalogSource(`SELECT * FROM products WHERE sku <= '${skuOf(n)}'`), { logger: silentLogger, baseDir: dir });
    let t = performance.now();
    const run = await runPipeline(def, { state, shop: client, mapping, source });
    const ms = performance.now() - t;
    if (run.status !== 'succeeded') throw new Error(`shopsync run ended ${run.status}: ${JSON.stringify(run.error ?? run.counts)}`);
    const result: PushResult = { records: run.counts.read, ms, requests: counts.requests, throttled: counts.throttled, failed: run.counts.failed };
    if (!options.reread) return result;
    await state.cursors.delete(def.name);
    const profile = await startProfile(process.env.BENCH_PROFILE_REREAD);
    t = performance.now();
    const again = await runPipeline(def, { state, shop: client, mapping, source });
    const rereadMs = performance.now() - t;
    await profile?.();
    if (again.status !== 'succeeded' || again.counts.unchanged !== run.counts.read || again.counts.requests !== 0) throw new Error(`no-change re-read: ${JSON.stringify(again.counts)}`);
    return { ...result, rereadMs };
  } finally {
    await client.close();
    await state?.close();
    await where.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const shopsyncDefaults: Contender = (shop, erpFile, n) => runShopsync(shop, erpFile, n, { tuned: false });
export const shopsyncTuned: Contender = (shop, erpFile, n) => runShopsync(shop, erpFile, n, { tuned: true });

/** A CPU profile of what follows, written to `file` by the returned function (`BENCH_PROFILE_REREAD=<file>.cpuprofile`: the no-change re-read alone). */
async function startProfile(file: string | undefined): Promise<(() => Promise<void>) | undefined> {
  if (!file) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
