/**
 * A deployment of `shopsync run` replicas for the replicas benchmark: the benchmark catalog in an
 * ERP SQLite file, a config with several shops and several push lanes per shop, the state in a
 * PostgreSQL schema of its own, and replicas spawned from the compiled bin (as in production, one
 * process each). Jobs are added through the job engine's store, as `shopsync jobs add` does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { stringify } from 'yaml';
import { JobStore } from '../../../src/jobs/index.js';
import { silentLogger } from '../../../src/log.js';
import { openState, type RunRecord, type StateStore } from '../../../src/state/index.js';
import { catalogSource, skuOf, writeCatalogMapping } from './catalog.js';

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../bin/shopsync.js');

/** A shop the deployment writes to. */
export interface ShopTarget {
  readonly url: string;
  readonly token: string;
}

/** What the deployment looks like. */
export interface DeploymentSpec {
  readonly dir: string;
  readonly erpFile: string;
  readonly pgUrl: string;
  /** Shops by name; each gets `lanesPerShop` pipelines, each pushing its own share of the catalog. */
  readonly shops: Readonly<Record<string, ShopTarget>>;
  /** Catalog products every shop receives (split over its lanes by SKU range). */
  readonly products: number;
  readonly lanesPerShop: number;
  /** `shops.<name>.rateLimit.requests` per second (fixed mode; shared by the replicas on the PostgreSQL state). */
  readonly shopRequestsPerSecond: number;
  /** Records per write request. */
  readonly batchSize: number;
  /** Write batches a lane hands to the shop client at once (`options.concurrency`). */
  readonly batchesInFlight: number;
  /** `replicas.concurrency`; absent = the default. */
  readonly replicaConcurrency?: number;
}

/** A running replica. */
export interface ReplicaProcess {
  readonly name: string;
  readonly pid: number;
  /** Its dashboard (metrics) URL. */
  readonly url: string;
  /** SIGTERM, then wait for it to exit. */
  stop(): Promise<void>;
}

/** A written deployment on a fresh state schema. */
export interface Deployment {
  /** Pipelines in the order jobs are added: lane 1 of every shop, then lane 2 of every shop… */
  readonly pipelines: readonly string[];
  readonly state: StateStore;
  spawn(name: string): Promise<ReplicaProcess>;
  /** Add a run job for every pipeline, one after another as fast as the store takes them. */
  enqueueAll(): Promise<void>;
  /** Wait until every pipeline has a finished run; returns the runs. */
  finished(timeoutMs: number): Promise<RunRecord[]>;
  /** Close the state and drop the schemas. */
  close(): Promise<void>;
}

/** Write config, mapping and a fresh schema for `spec`. */
export async function deployment(spec: DeploymentSpec): Promise<Deployment> {
  const schema = `shopsync_bench_${randomBytes(4).toString('hex')}`;
  writeCatalogMapping(spec.dir);
  const names = Object.keys(spec.shops);
  const perLane = Math.ceil(spec.products / spec.lanesPerShop);
  const pipelines: Record<string, unknown>[] = [];
  for (let lane = 1; lane <= spec.lanesPerShop; lane++) {
    const from = (lane - 1) * perLane;
    const to = Math.min(spec.products, lane * perLane);
    for (const shop of names) {
      pipelines.push({
        name: `products-${shop}-${lane}`,
        shop,
        direction: 'push',
        resource: 'products',
        mapping: 'bench-products.yaml',
        batchSize: spec.batchSize,
        source: { connection: 'erp', ...catalogSource(`SELECT * FROM products WHERE sku > '${from === 0 ? '' : skuOf(from)}' AND sku <= '${skuOf(to)}'`) },
        options: { concurrency: spec.batchesInFlight },
      });
    }
  }
  const config = {
    shops: Object.fromEntries(names.map((n) => [n, { baseUrl: spec.shops[n]!.url, token: spec.shops[n]!.token, rateLimit: { mode: 'fixed', requests: spec.shopRequestsPerSecond, intervalMs: 1000 } }])),
    connections: { erp: { kind: 'sqlite', path: spec.erpFile } },
    pipelines,
    state: { kind: 'postgres', url: spec.pgUrl, schema },
    ...(spec.replicaConcurrency === undefined ? {} : { replicas: { concurrency: spec.replicaConcurrency } }),
    dashboard: { port: 0 },
  };
  const file = join(spec.dir, `shopsync-${schema}.yaml`);
  writeFileSync(file, stringify(config));
  const state = await openState({ kind: 'postgres', url: spec.pgUrl, schema });
  const children = new Set<ChildProcess>();
  const pipelineNames = pipelines.map((p) => String(p.name));
  return {
    pipelines: pipelineNames,
    state,
    spawn: (name) => spawnReplica(file, spec.dir, name, children),
    async enqueueAll() {
      const jobs = await JobStore.open({ url: spec.pgUrl, schema: `${schema}_jobs`, logger: silentLogger });
      try {
        for (const p of pipelineNames) await jobs.enqueueRun(p, { reason: 'manual', by: 'bench', maxAttempts: 5 });
      } finally {
        await jobs.release();
      }
    },
    async finished(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const runs = await state.runs.list({ limit: 10_000 });
        const done = runs.filter((r) => r.status !== 'running');
        if (new Set(done.map((r) => r.pipeline)).size === pipelineNames.length && done.length === runs.length) return done;
        if (Date.now() > deadline) throw new Error(`runs not finished within ${timeoutMs} ms: ${runs.map((r) => `${r.pipeline}:${r.status}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      for (const child of children) child.kill('SIGKILL');
      await state.close();
      const admin = new pg.Client({ connectionString: spec.pgUrl });
      await admin.connect();
      try {
        for (const s of [schema, `${schema}_jobs`]) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** Start `shopsync run --config <file>` as replica `name`; resolves once it logged its start (with its URL). */
export async function spawnReplica(file: string, cwd: string, name: string, children: Set<ChildProcess>, env: Readonly<Record<string, string>> = {}): Promise<ReplicaProcess> {
  const child = spawn(process.execPath, [BIN, 'run', '--config', file], { cwd, env: { ...process.env, SHOPSYNC_REPLICA: name, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let out = '';
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`replica ${name} did not start within 60 s:\n${out.slice(-2000)}`)), 60_000);
    const scan = (chunk: Buffer) => {
      // Keep only the tail: the replica's log is read for its start line and for errors.
      out = (out + chunk.toString()).slice(-20_000);
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    };
    child.stdout!.on('data', scan);
    child.stderr!.on('data', scan);
    void exited.then((code) => fail(new Error(`replica ${name} exited with ${code} before it started:\n${out.slice(-2000)}`)));
  });
  return {
    name,
    pid: child.pid!,
    url,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      children.delete(child);
      if (code !== 0) throw new Error(`replica ${name} exited with ${code}:\n${out.slice(-2000)}`);
    },
  };
}

/** Why PostgreSQL at `url` does not answer; undefined when it does. */
export async function unreachableReason(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** CPU seconds (user + system) a live process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU time of the whole machine so far (every core, every process), from /proc/stat; undefined elsewhere. */
export function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - fields[3]! - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** Sum of a counter of the replica's /metrics per `shop` label. */
export async function metricByShop(replicaUrl: string, metric: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${replicaUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const shop = /shop="([^"]*)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (shop !== undefined && Number.isFinite(value)) out.set(shop, (out.get(shop) ?? 0) + value);
  }
  return out;
}
