/**
 * shopsync's push pipeline run inside the bench's own process (runPipeline), for the benchmarks
 * that measure a part of it (the state backends, a profiled re-read): source, mapping with
 * validation, state (references, hashes, events, checkpoints; in SQLite unless a PostgreSQL schema
 * is asked for), the client's queue and retries. The throughput benchmark times whole processes
 * instead (processes.ts, issue 47).
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
import { catalogSource, skuOf, writeCatalogMapping } from './catalog.js';
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
