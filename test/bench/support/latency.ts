/**
 * Parts of the latency benchmark: a sandbox that reports when it stored each product, a
 * PostgreSQL ERP table of products, a writer committing changes at a steady rate (one row per
 * transaction, its own clock at COMMIT return), the ERP's commit rate flat out, and a daemon
 * (`shopsync run`, the compiled bin) for a config.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TrafficView } from '../../../src/sandbox/index.js';
import { skuOf } from './catalog.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(here, '../../../../bin/shopsync.js');

/** A sandbox process and the times it stored each product model (with the quantity it stored). */
export interface LatencyShop {
  readonly url: string;
  readonly token: string;
  /** Product model → every write of it: when stored, the quantity written. */
  readonly writes: Map<string, { at: number; qty: string }[]>;
  faults(settings: Readonly<Record<string, number>>): Promise<void>;
  traffic(): Promise<TrafficView>;
  close(): Promise<void>;
}

/** Start the sandbox of latency-shop-child.ts. */
export async function startLatencyShop(): Promise<LatencyShop> {
  const child = spawn(process.execPath, [join(here, 'latency-shop-child.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const writes = new Map<string, { at: number; qty: string }[]>();
  let buffer = '';
  let ready: ((v: [string, string]) => void) | undefined;
  const started = new Promise<[string, string]>((resolve, reject) => {
    ready = resolve;
    child.once('exit', (code) => reject(new Error(`the sandbox process exited with ${code} before it was ready`)));
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^READY (\S+) (\S+)/.exec(line);
      if (m) ready?.([m[1]!, m[2]!]);
      const w = /^W (\d+) (\S+) (\S*)$/.exec(line);
      if (!w) continue;
      let list = writes.get(w[2]!);
      if (!list) writes.set(w[2]!, (list = []));
      list.push({ at: Number(w[1]), qty: w[3]! });
    }
  });
  const [url, token] = await started;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const control = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path} failed: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    url,
    token,
    writes,
    async faults(settings) {
      await control('PUT', '/sandbox/faults', settings);
    },
    async traffic() {
      return (await (await control('GET', '/sandbox/traffic')).json()) as TrafficView;
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/** A products table in a PostgreSQL schema of its own. */
export interface PgErp {
  readonly url: string;
  readonly schema: string;
  /** `"schema".products` */
  readonly table: string;
  dispose(): Promise<void>;
}

/** `n` products (`updated_at timestamptz`, an index on (updated_at, sku)), all stamped a day ago. */
export async function pgErp(url: string, n: number): Promise<PgErp> {
  const schema = `shopsync_bench_latency_${randomBytes(4).toString('hex')}`;
  const s = pg.escapeIdentifier(schema);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${s}`);
    await admin.query(`CREATE TABLE ${s}.products (sku TEXT PRIMARY KEY, name_de TEXT NOT NULL, name_en TEXT NOT NULL, price NUMERIC(10,2) NOT NULL, qty INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL)`);
    await admin.query(
      `INSERT INTO ${s}.products SELECT 'B-' || lpad(i::text, 7, '0'), 'Artikel ' || i, 'Item ' || i, 5 + (i % 200) / 4.0, i % 100, now() - interval '1 day' FROM generate_series(1, $1::int) AS i`,
      [n],
    );
    await admin.query(`CREATE INDEX products_cursor ON ${s}.products (updated_at, sku)`);
    await admin.query(`ANALYZE ${s}.products`);
  } finally {
    await admin.end();
  }
  return {
    url,
    schema,
    table: `${s}.products`,
    async dispose() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await c.end();
    },
  };
}

/** One committed change: the product, the quantity it now has (unique per change), and when COMMIT returned. */
export interface Change {
  readonly sku: string;
  readonly qty: number;
  readonly commitAt: number;
  /** How long the UPDATE (its own transaction, COMMIT included) took; absent for file drops. */
  readonly commitMs?: number;
}

/**
 * The i-th product a change touches: a stride through the catalog, so no product changes twice in a
 * benchmark (each change is one row the shop must show) and neighbours are not written together.
 */
export function changedSku(i: number, n: number): string {
  return skuOf(((i * 7919) % n) + 1);
}

/**
 * Commit `perSecond` changes a second for `seconds` (stock and price of one product per
 * transaction, `updated_at = now()`), paced against the start so a slow commit does not slow the
 * rate. Change numbers start at `first` (quantities 1,000,000 + number, unique).
 */
export async function writeChanges(erp: PgErp, n: number, perSecond: number, seconds: number, first: number): Promise<Change[]> {
  const client = new pg.Client({ connectionString: erp.url });
  await client.connect();
  const changes: Change[] = [];
  try {
    const start = Date.now();
    const total = perSecond * seconds;
    for (let k = 0; k < total; k++) {
      const due = start + (k * 1000) / perSecond;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const i = first + k;
      const sku = changedSku(i, n);
      const qty = 1_000_000 + i;
      const began = performance.now();
      await client.query(`UPDATE ${erp.table} SET qty = $1, price = price + 0.01, updated_at = now() WHERE sku = $2`, [qty, sku]);
      changes.push({ sku, qty, commitAt: Date.now(), commitMs: performance.now() - began });
    }
  } finally {
    await client.end();
  }
  return changes;
}

/** Commits per second of `connections` sessions updating one random product per transaction as fast as they can for `seconds`. */
export async function commitRate(erp: PgErp, n: number, connections: number, seconds: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c = new pg.Client({ connectionString: erp.url });
      await c.connect();
      return c;
    }),
  );
  let commits = 0;
  const end = Date.now() + seconds * 1000;
  try {
    await Promise.all(
      clients.map(async (c, j) => {
        let i = j;
        while (Date.now() < end) {
          await c.query(`UPDATE ${erp.table} SET qty = qty + 1, updated_at = now() WHERE sku = $1`, [skuOf(((i * 104_729) % n) + 1)]);
          i += connections;
          commits++;
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  return commits / seconds;
}

/** A running `shopsync run`. */
export interface DaemonProcess {
  /** Its dashboard URL. */
  readonly url: string;
  readonly pid: number;
  /** Resolve once a log line matches (seen since the start), e.g. a trigger saying it is armed. */
  logged(re: RegExp, timeoutMs: number): Promise<void>;
  /** SIGTERM, then wait for it to exit; throws with the log's tail when it exits other than 0. */
  stop(): Promise<void>;
}

/** Start `shopsync run --config <file>` (the compiled bin) and wait for its start line. */
export async function startDaemon(configFile: string, cwd: string): Promise<DaemonProcess> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'run', '--config', configFile], { cwd, env: { ...process.env, LOG_LEVEL: process.env.BENCH_LATENCY_LOG_LEVEL ?? 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  // BENCH_LATENCY_LOG=<file>: the daemon's whole log, to find out where the time goes.
  const log = process.env.BENCH_LATENCY_LOG;
  if (log) {
    child.stdout!.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    child.stderr!.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
  }
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let out = '';
  const seen: string[] = [];
  let partial = '';
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the daemon did not start within 60 s:\n${out.slice(-2000)}`)), 60_000);
    const scan = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-20_000);
      // Trigger lines are kept whole (few): `logged` looks for them.
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.includes('"component":"triggers"')) seen.push(line);
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    };
    child.stdout!.on('data', scan);
    child.stderr!.on('data', scan);
    void exited.then((code) => fail(new Error(`the daemon exited with ${code} before it started:\n${out.slice(-2000)}`)));
  });
  return {
    url,
    pid: child.pid!,
    async logged(re, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!seen.some((l) => re.test(l))) {
        if (Date.now() > deadline) throw new Error(`the daemon did not log ${String(re)} within ${timeoutMs} ms:\n${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the daemon exited with ${code}:\n${out.slice(-2000)}`);
    },
  };
}

/** The q-quantile of sorted values (nearest rank). */
export function quantileOf(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
