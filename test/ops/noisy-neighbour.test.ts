/**
 * Bulkheads: shop A's backlog of 10,000 records never holds up shop B's one changed record. Shop A
 * is slow on purpose (10 requests per second, 10 records each: its backlog takes minutes), so B's
 * record arriving while A still runs is the proof; the waits are liveness bounds far below A's time.
 * - one process (SQLite state): every pipeline runs side by side, each shop through its own client;
 * - replicas (PostgreSQL state, `replicas.concurrency: 2`): shop A has two pipelines with backlogs,
 *   yet takes one worker only (perShopConcurrency defaults to concurrency - 1 with several shops),
 *   so B's job finds the other one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { startReplica, type Replica } from '../../src/jobs/index.js';
import { sleep } from '../../src/util/time.js';
import { createErp, PRODUCT_MAPPING, tempDir } from '../pipeline/support.js';
import { useSandbox } from '../support/sandbox.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from '../jobs/support.js';

const shopA = useSandbox();
const shopB = useSandbox();
const BACKLOG = 10_000;

/** An ERP with A's backlog in two tables (one per pipeline) and B's one changed article, and a config over both shops. */
function deployment(state: Record<string, unknown>): { dir: string; config: string } {
  const dir = tempDir('shopsync-bulkheads-');
  const erp = createErp(join(dir, 'erp.sqlite'));
  erp.exec('CREATE TABLE stock AS SELECT * FROM products WHERE 0');
  const insert = (table: string, prefix: string, n: number) => {
    const row = erp.prepare(`INSERT INTO ${table} (sku, name, price, qty, updated_at) VALUES (?, ?, ?, 1, '2026-01-01 00:00:00')`);
    erp.transaction(() => {
      for (let i = 1; i <= n; i++) row.run(`${prefix}-${i}`, `Article ${prefix} ${i}`, '9.90');
    })();
  };
  insert('products', 'A', BACKLOG);
  insert('stock', 'S', BACKLOG);
  erp.exec("CREATE TABLE products_b AS SELECT * FROM products WHERE 0; INSERT INTO products_b (sku, name, price, qty, updated_at) VALUES ('B-1', 'Changed in B', '19.90', 1, '2026-01-02 00:00:00')");
  erp.close();
  writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
  const source = (table: string) => ({ connection: 'erp', query: `SELECT * FROM ${table}`, cursor: 'updated_at', key: 'sku' });
  const pipeline = (name: string, shop: string, table: string) => ({ name, shop, direction: 'push', resource: 'products', mapping: 'products.yaml', source: source(table) });
  const config = {
    shops: {
      a: { baseUrl: '${SHOP_A_URL}', token: '${SHOP_A_TOKEN}', rateLimit: { mode: 'fixed', requests: 10, intervalMs: 1000 }, concurrency: 1, batchSize: 10 },
      b: { baseUrl: '${SHOP_B_URL}', token: '${SHOP_B_TOKEN}' },
    },
    connections: { erp: { kind: 'sqlite', path: 'erp.sqlite' } },
    pipelines: [pipeline('products-a', 'a', 'products'), pipeline('stock-a', 'a', 'stock'), pipeline('products-b', 'b', 'products_b')],
    state,
    replicas: { concurrency: 2, heartbeatMs: 500, deadAfterMs: 5000 },
  };
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(file, stringify(config));
  return { dir, config: file };
}

const env = () => ({ SHOP_A_URL: shopA.url, SHOP_A_TOKEN: shopA.token, SHOP_B_URL: shopB.url, SHOP_B_TOKEN: shopB.token, STATE_DATABASE_URL: POSTGRES_URL });

/** Wait (liveness only) until `check` holds; fails naming what it waited for. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await sleep(100);
  }
}

describe('one process: shop A pushing a backlog of 10,000 records', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    const { config } = deployment({ kind: 'sqlite', path: 'state.db' });
    runtime = await openRuntime(await loadConfig(config, { env: env() }), { logger: silentLogger });
  });
  afterAll(async () => {
    await runtime?.close();
  });

  it('lets shop B deliver its one changed record while A is still running, A having sent only part of its backlog', async () => {
    const stop = new AbortController();
    const a = runtime.run('products-a', { signal: stop.signal });
    await until('products-a to be running', async () => (await runtime.state.runs.list({ pipeline: 'products-a', status: 'running', limit: 1 })).length === 1);
    const b = await runtime.run('products-b');
    const aRunning = (await runtime.state.runs.list({ pipeline: 'products-a', limit: 1 }))[0];
    expect(b).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(aRunning?.status).toBe('running');
    stop.abort();
    const aSummary = await a;
    // A got only part of its backlog through: B's bound did not depend on it.
    expect(aSummary.status).toBe('aborted');
    expect(aSummary.counts.created).toBeLessThan(BACKLOG);
  }, 120_000);
});

describe.skipIf(!postgresAvailable)('replicas (concurrency 2): shop A with backlogs in two pipelines', () => {
  let runtime: Runtime;
  let replica: Replica;
  beforeAll(async () => {
    const { config } = deployment({ kind: 'postgres', url: '${STATE_DATABASE_URL}', schema: freshSchema('shopsync_bulk') });
    const loaded = await loadConfig(config, { env: env() });
    runtime = await openRuntime(loaded, { logger: silentLogger });
    replica = await startReplica(runtime, loaded, silentLogger);
  }, 120_000);
  afterAll(async () => {
    await replica?.stop(10_000);
    await runtime?.close();
  }, 60_000);

  it('runs one of A\'s pipelines at a time here, so B\'s one change takes the other worker and is delivered while A runs', async () => {
    const running = async (pipeline: string) => (await runtime.state.runs.list({ pipeline, status: 'running', limit: 1 })).length === 1;
    await replica.enqueue('products-a', 'manual');
    await replica.enqueue('stock-a', 'manual');
    await until('a run of shop A', async () => (await running('products-a')) || (await running('stock-a')));
    // Give the second worker every chance to take A's other job (it must not).
    await sleep(3000);
    expect([await running('products-a'), await running('stock-a')].filter(Boolean)).toHaveLength(1);
    await replica.enqueue('products-b', 'manual');
    await until('products-b to succeed', async () => (await runtime.state.runs.list({ pipeline: 'products-b', status: 'succeeded', limit: 1 })).length === 1);
    // Still running: A's backlog is nowhere near done, and its second pipeline still waits for its share.
    expect([await running('products-a'), await running('stock-a')].filter(Boolean)).toHaveLength(1);
    const [b] = await runtime.state.runs.list({ pipeline: 'products-b', limit: 1 });
    // The first describe already created B-1 in shop B: here it is found there and brought up to date.
    expect(b?.counts).toMatchObject({ read: 1, failed: 0, deadLettered: 0 });
    const jobs = await replica.jobs.list();
    expect(jobs.filter((j) => j.pipeline === 'products-a' || j.pipeline === 'stock-a').map((j) => j.state).sort()).toEqual(['queued', 'running']);
  }, 120_000);
});
