/**
 * A deployment of replicas as the tests run it: an ERP SQLite file with products and orders, a
 * config whose state is a PostgreSQL schema of its own, and `shopsync run` replicas spawned from
 * the compiled bin (dist/), each a separate process as in production.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { openState, type RunRecord, type StateStore } from '../../src/state/index.js';
import { startCli, type CliProcess } from '../cli/support.js';
import { createErp, createOrderTables, insertOrders, ORDER_MAPPING, ORDER_SOURCE, PRODUCT_MAPPING, upsertProducts } from '../pipeline/support.js';
import { tempDir } from '../support/tmp.js';
import { freshSchema, POSTGRES_URL } from './support.js';

/** Replica settings of the test deployment. */
export interface DeploymentOptions {
  readonly products: number;
  readonly orders: number;
  /** Shop requests per second of each replica (slow enough that runs last). */
  readonly requestsPerSecond: number;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  readonly schedule?: string;
  readonly shutdownGraceMs?: number;
  /** Pipelines: both (products, orders) or products only. @default both */
  readonly ordersPipeline?: boolean;
  /** Shop settings merged over the defaults below (concurrency, rateLimit, batchSize…). */
  readonly shop?: Record<string, unknown>;
  /** The products pipeline's `options` merged over the defaults below (concurrency: batches in flight…). */
  readonly productsOptions?: Record<string, unknown>;
  /** The products pipeline's batch size. @default 20 */
  readonly productsBatchSize?: number;
  /** The PostgreSQL database of the state (a cluster of the test's own, for tests that stop it). @default the test server's */
  readonly stateUrl?: string;
}

/** A running test deployment. */
export interface Deployment {
  readonly dir: string;
  readonly config: string;
  readonly schema: string;
  readonly erp: Database.Database;
  readonly state: StateStore;
  /** Environment of the replicas and CLI commands (shop, state URL). */
  env(replica?: string): NodeJS.ProcessEnv;
  /** Spawn a replica (with `extraEnv` on top, e.g. a fake clock) and wait until it serves; returns it with its URL. */
  spawn(name: string, extraEnv?: NodeJS.ProcessEnv): Promise<{ proc: CliProcess; url: string; name: string }>;
  /** Every run of a pipeline, oldest first. */
  runs(pipeline: string): Promise<RunRecord[]>;
  close(): Promise<void>;
}

/** Write the ERP, mappings and config of a deployment. */
export async function deployment(shop: { url: string; token: string }, o: DeploymentOptions): Promise<Deployment> {
  const dir = tempDir('shopsync-replicas-');
  const schema = freshSchema('shopsync_rep');
  const erp = createErp(join(dir, 'erp.sqlite'));
  createOrderTables(erp);
  upsertProducts(erp, 1, o.products);
  insertOrders(erp, 1, o.orders, o.products);
  writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
  writeFileSync(join(dir, 'orders.yaml'), ORDER_MAPPING);
  const schedule = o.schedule ? { schedule: o.schedule } : {};
  const config = {
    shop: { baseUrl: '${SHOP_URL}', token: '${SHOP_TOKEN}', rateLimit: { mode: 'fixed', requests: o.requestsPerSecond, intervalMs: 1000 }, concurrency: 2, batchSize: 20, retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 100 }, ...o.shop },
    connections: { erp: { kind: 'sqlite', path: 'erp.sqlite' } },
    pipelines: [
      { name: 'products', direction: 'push', resource: 'products', mapping: 'products.yaml', batchSize: o.productsBatchSize ?? 20, ...schedule, source: { connection: 'erp', query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }, options: { maxAttempts: 20, ...o.productsOptions } },
      ...(o.ordersPipeline === false ? [] : [{ name: 'orders', direction: 'push', resource: 'orders', mapping: 'orders.yaml', batchSize: 5, ...schedule, source: { connection: 'erp', ...ORDER_SOURCE }, options: { maxAttempts: 20 } }]),
    ],
    state: { kind: 'postgres', url: '${STATE_DATABASE_URL}', schema },
    replicas: { heartbeatMs: o.heartbeatMs, deadAfterMs: o.deadAfterMs, concurrency: 2 },
    dashboard: { port: 0 },
    daemon: { shutdownGraceMs: o.shutdownGraceMs ?? 5000 },
  };
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(file, stringify(config));
  const stateUrl = o.stateUrl ?? POSTGRES_URL;
  const state = await openState({ kind: 'postgres', url: stateUrl, schema });
  const env = (replica?: string): NodeJS.ProcessEnv => ({ SHOP_URL: shop.url, SHOP_TOKEN: shop.token, STATE_DATABASE_URL: stateUrl, ...(replica ? { SHOPSYNC_REPLICA: replica } : {}) });
  return {
    dir,
    config: file,
    schema,
    erp,
    state,
    env,
    async spawn(name, extraEnv = {}) {
      const proc = startCli(['run', '--config', file], { env: { ...env(name), ...extraEnv }, cwd: dir });
      const [, url] = await proc.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/, 60_000);
      return { proc, url: url!, name };
    },
    async runs(pipeline) {
      return (await state.runs.list({ pipeline, limit: 10_000 })).reverse();
    },
    async close() {
      await state.close();
      erp.close();
    },
  };
}

/** Runs of one lane that overlap in time (a run's end after the next one's start); the runs table is the witness. */
export function overlaps(runs: readonly RunRecord[]): string[] {
  const sorted = [...runs].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.id - b.id);
  const out: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const next = sorted[i]!;
    const end = prev.finishedAt ? Date.parse(prev.finishedAt) : Infinity;
    if (Date.parse(next.startedAt) < end) out.push(`run #${prev.id} (pid ${prev.pid}, ${prev.startedAt}..${prev.finishedAt ?? 'running'}) overlaps run #${next.id} (pid ${next.pid}, from ${next.startedAt})`);
  }
  return out;
}
