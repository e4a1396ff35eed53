/**
 * Seconds, not schedules (issue 33): how long an ERP change takes to reach the shop. A PostgreSQL
 * ERP table of 100,000 products; a writer commits 20 changes a second (stock and price of one
 * product per transaction, each product once) for BENCH_LATENCY_SECONDS (default 120); the sandbox
 * (its own process) answers after 50 ms and refuses more than 20 requests a second (429), and
 * shopsync's shop client is set to that limit (fixed, 20/s). A `shopsync run` daemon (the compiled
 * bin, SQLite state) pushes the changes (a) on a 60 s schedule, (b) on a 10 s schedule, (c) woken
 * by NOTIFY (statement-level triggers installed by the functions of `shopsync erp notify-setup`)
 * with a 10-minute safety-net schedule (default debounce, 1 s), (d) the same with `debounce: 200ms` (lower latency, more requests),
 * (e) short polling every second (`trigger.poll`, no trigger in the ERP), and (f) a file drop: a
 * CSV file of 50 changes every 5 s into an inbox watched by `trigger.watch` (marker mode). Commit time: the writer's clock when COMMIT returned; shop
 * time: when the sandbox stored the write (its onWrite hook, same machine clock). Printed per
 * variant: p50/p95/p99/max, changes not delivered within the drain time, shop requests per change
 * (the sandbox's count, 429s included), and what the daemon itself reported (the
 * shopsync_change_latency_seconds histogram and the dashboard's p50/p95 from the state).
 * Before that, the ERP's own commit rate flat out (4 sessions, one row per transaction, 10 s
 * each, without / with the NOTIFY trigger and a listener, alternating twice): the ratio.
 * BENCH_QUICK=1: 10,000 products and 30 s of changes. BENCH_LATENCY_VARIANTS=ce runs only those (r: the commit rate);
 * BENCH_LATENCY_LOG=<file> keeps the daemons' logs (BENCH_LATENCY_LOG_LEVEL=debug for more). Nothing is asserted; targets are printed with
 * "met" or "MISSED".
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { stringify } from 'yaml';
import { LatencyHistogram, LATENCY_BUCKETS } from '../../src/pipeline/latency.js';
import { notifyChannel } from '../../src/triggers/index.js';
import { notifySetupSql } from '../../src/triggers/notify/index.js';
import { count, QUICK, table } from './support/report.js';
import { changedSku, commitRate, pgErp, quantileOf, startDaemon, startLatencyShop, writeChanges, type Change, type LatencyShop, type PgErp } from './support/latency.js';
import { postgresUnavailable, POSTGRES_URL } from './support/states.js';

const N = QUICK ? 10_000 : 100_000;
const PER_SECOND = 20;
const SECONDS = envSeconds() ?? (QUICK ? 30 : 120);
const SHOP_LATENCY_MS = 50;
const SHOP_LIMIT = 20;
const PIPELINE = 'products';
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'shopsync.js');

function envSeconds(): number | undefined {
  const raw = process.env.BENCH_LATENCY_SECONDS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 5) throw new Error(`Expected \`BENCH_LATENCY_SECONDS\` to be a whole number from 5 up, got \`${raw}\``);
  return n;
}

const MAPPING = `
name: latency-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
locale: point
fields:
  products_model: { from: sku, required: true }
  products_price: { from: price, type: decimal, required: true }
  products_quantity: { from: qty, type: integer }
  products_status: { value: 1 }
  languages.de.products_name: { from: name_de, required: true }
  languages.en.products_name: name_en
`;

/** One way of running the pipeline. */
interface Variant {
  readonly label: string;
  readonly schedule?: string;
  readonly trigger?: Readonly<Record<string, unknown>>;
  /** Changes arrive as CSV files of FILE_ROWS rows every FILE_EVERY_MS in a file-drop inbox (instead of ERP commits). */
  readonly files?: boolean;
  /** How long to wait for the last changes after the writer stopped. */
  readonly drainMs: number;
}

/** `BENCH_LATENCY_VARIANTS=ce`: only those variants (letters). */
const ONLY = process.env.BENCH_LATENCY_VARIANTS;

const FILE_ROWS = 50;
const FILE_EVERY_MS = 5000;
const FILES_PIPELINE = 'products-files';

const VARIANTS: readonly Variant[] = [
  { label: '(a) schedule every 60 s', schedule: '0 * * * * *', drainMs: 90_000 },
  { label: '(b) schedule every 10 s', schedule: '*/10 * * * * *', drainMs: 40_000 },
  { label: '(c) NOTIFY trigger (+ 10 min safety net)', schedule: '0 */10 * * * *', trigger: { notify: true }, drainMs: 30_000 },
  { label: '(d) NOTIFY trigger, debounce 200 ms (+ 10 min safety net)', schedule: '0 */10 * * * *', trigger: { notify: true, debounce: '200ms' }, drainMs: 30_000 },
  { label: '(e) short polling every 1 s (+ 10 min safety net)', schedule: '0 */10 * * * *', trigger: { poll: '1s' }, drainMs: 30_000 },
  { label: `(f) file drop: ${FILE_ROWS} changes every ${FILE_EVERY_MS / 1000} s, trigger watch`, trigger: { watch: true }, files: true, drainMs: 30_000 },
];

function configOf(dir: string, erp: PgErp, shop: LatencyShop, variant: Variant | undefined, requestsPerSecond: number): string {
  const pipeline = variant?.files
    ? {
        name: FILES_PIPELINE,
        source: { connection: 'drop', folder: 'inbox', format: 'csv', pattern: 'latency-*.csv', key: 'sku', stability: { mode: 'marker' } },
      }
    : { name: PIPELINE, source: { connection: 'erp', query: 'SELECT sku, name_de, name_en, price, qty, updated_at FROM products', cursor: 'updated_at', key: 'sku' } };
  const config = {
    shop: { baseUrl: shop.url, token: shop.token, rateLimit: { mode: 'fixed', requests: requestsPerSecond, intervalMs: 1000 } },
    connections: { erp: { kind: 'postgres', url: erp.url, schema: erp.schema }, drop: { kind: 'files', folder: join(dir, 'drop') } },
    state: { path: join(dir, 'state.db') },
    dashboard: { port: 0 },
    pipelines: [
      {
        ...pipeline,
        direction: 'push',
        resource: 'products',
        mapping: 'latency-products.yaml',
        ...(variant?.schedule ? { schedule: variant.schedule } : {}),
        ...(variant?.trigger ? { trigger: variant.trigger } : {}),
      },
    ],
  };
  const file = join(dir, `shopsync-${variant ? variant.label.slice(1, 2) : 'preload'}.yaml`);
  writeFileSync(file, stringify(config));
  return file;
}

/** Install (or drop) the pipeline's NOTIFY triggers with the statements `shopsync erp notify-setup --apply` runs. */
async function notifySetup(erp: PgErp, mode: 'install' | 'drop'): Promise<void> {
  const setup = notifySetupSql({ channel: notifyChannel(PIPELINE, { notify: true, debounce: 200 })!, tables: ['products'], schema: erp.schema });
  const c = new pg.Client({ connectionString: erp.url });
  await c.connect();
  try {
    await c.query('BEGIN');
    for (const s of mode === 'install' ? setup.install : setup.drop) await c.query(s);
    await c.query('COMMIT');
  } finally {
    await c.end();
  }
}

/** The ERP's commit rate without the trigger, with it and nobody listening, and with it and a listener on its channel (as the daemon), in turn. */
async function commitRates(erp: PgErp): Promise<{ without: number[]; unheard: number[]; with: number[] }> {
  const out = { without: [] as number[], unheard: [] as number[], with: [] as number[] };
  const channel = notifyChannel(PIPELINE, { notify: true, debounce: 200 })!;
  for (let round = 0; round < 2; round++) {
    out.without.push(await commitRate(erp, N, 4, 10));
    await notifySetup(erp, 'install');
    try {
      out.unheard.push(await commitRate(erp, N, 4, 10));
      const listener = new pg.Client({ connectionString: erp.url });
      await listener.connect();
      await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      let heard = 0;
      listener.on('notification', () => heard++);
      try {
        out.with.push(await commitRate(erp, N, 4, 10));
      } finally {
        await listener.end();
      }
      if (heard === 0) throw new Error('the listener heard no notification while the trigger was installed');
    } finally {
      await notifySetup(erp, 'drop');
    }
  }
  return out;
}

/** The daemon's own view: its histogram's p50/p95 and count (from /metrics) and the dashboard's (from the state). */
async function daemonView(url: string, pipeline: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const h = new LatencyHistogram();
  let prev = 0;
  const counts: number[] = [];
  for (const le of [...LATENCY_BUCKETS.map(String), '+Inf']) {
    const m = new RegExp(`^shopsync_change_latency_seconds_bucket\\{le="${le.replace('+', '\\+')}",[^}]*pipeline="${pipeline}"[^}]*\\} (\\d+)`, 'm').exec(text);
    const cum = Number(m?.[1] ?? 0);
    counts.push(cum - prev);
    prev = cum;
  }
  // /metrics has no maximum: the upper bound of the highest bucket in use stands in (the estimate's ceiling).
  const top = counts.findLastIndex((n) => n > 0);
  const sum = Number(new RegExp(`^shopsync_change_latency_seconds_sum\\{[^}]*pipeline="${pipeline}"[^}]*\\} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
  h.add({ le: [...LATENCY_BUCKETS], c: counts, sum, max: LATENCY_BUCKETS[Math.min(top, LATENCY_BUCKETS.length - 1)] ?? 0, skew: 0 });
  const metric = h.count > 0 ? `/metrics: ${count(h.count)} observed, p50 ≈ ${h.quantile(0.5)!.toFixed(2)} s, p95 ≈ ${h.quantile(0.95)!.toFixed(2)} s` : '/metrics: none observed';
  let card = 'dashboard: not read';
  try {
    const api = (await (await fetch(`${url}/api/overview`)).json()) as { pipelines?: { name: string; changeLatency?: { changes: number; p50Seconds: number; p95Seconds: number } | null }[] };
    const l = api.pipelines?.find((p) => p.name === pipeline)?.changeLatency;
    card = l ? `dashboard (state, last hour): ${count(l.changes)} changes, p50 ${l.p50Seconds.toFixed(2)} s, p95 ${l.p95Seconds.toFixed(2)} s` : 'dashboard: none';
  } catch (err) {
    card = `dashboard: ${err instanceof Error ? err.message : String(err)}`;
  }
  return `${metric}; ${card}`;
}

/** What one variant measured. */
interface Measured {
  readonly latencies: number[];
  readonly undelivered: number;
  readonly requests: number;
  readonly rateLimited: number;
  readonly daemon: string;
  /** The writer's commits per second as achieved, and its median COMMIT time. */
  readonly writer: string;
}

/**
 * Drop `seconds / 5` CSV files of 50 changes each, one every 5 s: written, then its `.done` marker
 * (the file is complete when the marker appears, which is what a change's time is here).
 */
async function dropFiles(dir: string, seconds: number, first: number): Promise<Change[]> {
  const inbox = join(dir, 'drop', 'inbox');
  mkdirSync(inbox, { recursive: true });
  const changes: Change[] = [];
  const start = Date.now();
  for (let f = 0; f < Math.floor((seconds * 1000) / FILE_EVERY_MS); f++) {
    const wait = start + f * FILE_EVERY_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const rows: { sku: string; qty: number }[] = [];
    for (let k = 0; k < FILE_ROWS; k++) rows.push({ sku: changedSku(first + f * FILE_ROWS + k, N), qty: 1_000_000 + first + f * FILE_ROWS + k });
    const name = join(inbox, `latency-${String(f).padStart(4, '0')}.csv`);
    writeFileSync(name, ['sku,name_de,name_en,price,qty', ...rows.map((r) => `${r.sku},Artikel ${r.sku},Item ${r.sku},9.99,${r.qty}`), ''].join('\n'));
    writeFileSync(`${name}.done`, '');
    const complete = Date.now();
    for (const r of rows) changes.push({ sku: r.sku, qty: r.qty, commitAt: complete });
  }
  return changes;
}

async function measure(dir: string, erp: PgErp, shop: LatencyShop, variant: Variant, first: number): Promise<Measured> {
  const notify = variant.trigger?.notify === true;
  if (notify) await notifySetup(erp, 'install');
  // The inbox exists before the watcher starts (a missing one is watched only after retries).
  if (variant.files) mkdirSync(join(dir, 'drop', 'inbox'), { recursive: true });
  const daemon = await startDaemon(configOf(dir, erp, shop, variant, SHOP_LIMIT), dir);
  try {
    // Triggers are armed a few seconds after the start line (the CLI starts the clock after its checks); the start-up run of a trigger (once when armed) settles first.
    if (variant.trigger) await daemon.logged(/listening|polling the source|watching the inbox/, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    const before = await shop.traffic();
    const began = Date.now();
    const changes = variant.files ? await dropFiles(dir, SECONDS, first) : await writeChanges(erp, N, PER_SECOND, SECONDS, first);
    const commitMs = changes.flatMap((c) => (c.commitMs === undefined ? [] : [c.commitMs])).sort((a, b) => a - b);
    const writer = commitMs.length === 0 ? '-' : `${(changes.length / ((Date.now() - began) / 1000)).toFixed(1)}/s, ${quantileOf(commitMs, 0.5).toFixed(1)} ms (p95 ${quantileOf(commitMs, 0.95).toFixed(1)} ms)`;
    const deadline = Date.now() + variant.drainMs;
    const arrived = (c: Change) => shop.writes.get(c.sku)?.find((w) => Number(w.qty) === c.qty)?.at;
    while (Date.now() < deadline && changes.some((c) => arrived(c) === undefined)) await new Promise((r) => setTimeout(r, 250));
    const after = await shop.traffic();
    const latencies = changes.flatMap((c) => {
      const at = arrived(c);
      return at === undefined ? [] : [(at - c.commitAt) / 1000];
    });
    const view = await daemonView(daemon.url, variant.files ? FILES_PIPELINE : PIPELINE);
    return { latencies, undelivered: changes.length - latencies.length, requests: after.requests - before.requests, rateLimited: after.rate_limited - before.rate_limited, daemon: view, writer };
  } finally {
    await daemon.stop();
    if (notify) await notifySetup(erp, 'drop');
  }
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const unavailable = await postgresUnavailable();
  if (unavailable) return [`SKIPPED, not measured: ${unavailable}`];
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-latency-'));
  const lines: string[] = [
    `PostgreSQL ERP table of ${count(N)} products; a writer commits ${PER_SECOND} changes/s (stock and price, one row per transaction, each product once) for ${SECONDS} s (file drop: ${FILE_ROWS} changes in a CSV file every ${FILE_EVERY_MS / 1000} s, complete when its .done marker appears); sandbox (own process) at ${SHOP_LATENCY_MS} ms latency, ${SHOP_LIMIT} requests/s limit (429 above); shopsync's shop client fixed at ${SHOP_LIMIT}/s, batchSize 100; shopsync state in SQLite; daemon = the compiled bin${QUICK ? ' [BENCH_QUICK sizes]' : ''}`,
  ];
  const erp = await pgErp(POSTGRES_URL, N);
  const shop = await startLatencyShop();
  try {
    const rates = ONLY && !ONLY.includes('r') ? undefined : await commitRates(erp);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ratio = rates ? mean(rates.with) / mean(rates.without) : Number.NaN;
    if (rates) lines.push(
      `ERP commit rate flat out (4 sessions, one UPDATE per transaction, 10 s each, in turn, twice): without trigger ${rates.without.map((r) => count(r)).join(' / ')} commits/s; with the NOTIFY trigger, nobody listening ${rates.unheard.map((r) => count(r)).join(' / ')}; with the trigger and a listener (as the daemon) ${rates.with.map((r) => count(r)).join(' / ')}: ratio ${ratio.toFixed(2)}× (nobody listening ${(mean(rates.unheard) / mean(rates.without)).toFixed(2)}×; target ≥ 0.90×: ${ratio >= 0.9 ? 'met' : 'MISSED'})`,
    );

    writeFileSync(join(dir, 'latency-products.yaml'), MAPPING);
    // The shop holds the catalog before the changes begin (the changes are updates), loaded without the faults.
    const t = Date.now();
    const preload = spawnSync(process.execPath, [BIN, 'sync', PIPELINE, '--config', configOf(dir, erp, shop, undefined, 1000)], { cwd: dir, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
    if (preload.status !== 0) throw new Error(`the preload sync exited with ${preload.status}:\n${(preload.stdout + preload.stderr).slice(-2000)}`);
    lines.push(`preload: ${count(N)} products into the sandbox in ${((Date.now() - t) / 1000).toFixed(0)} s (not timed further)`);
    await shop.faults({ latency_ms: SHOP_LATENCY_MS, rate_limit_per_second: SHOP_LIMIT });

    const rows: string[][] = [];
    const notes: string[] = [];
    let perChangeB: number | undefined;
    for (const [v, variant] of VARIANTS.entries()) {
      if (ONLY && !ONLY.includes(variant.label.slice(1, 2))) continue;
      const m = await measure(dir, erp, shop, variant, (v + 1) * PER_SECOND * SECONDS);
      const sorted = [...m.latencies].sort((a, b) => a - b);
      const total = m.latencies.length + m.undelivered;
      const perChange = m.requests / total;
      if (variant.schedule === '*/10 * * * * *') perChangeB = perChange;
      const f = (q: number) => `${quantileOf(sorted, q).toFixed(2)} s`;
      rows.push([variant.label, count(total), f(0.5), f(0.95), f(0.99), `${(sorted.at(-1) ?? Number.NaN).toFixed(2)} s`, m.undelivered === 0 ? '0' : `**${count(m.undelivered)}** (within ${variant.drainMs / 1000} s)`, `${perChange.toFixed(3)} (${count(m.requests)}, ${count(m.rateLimited)} 429)`, m.writer]);
      notes.push(`${variant.label}: the daemon's own figures: ${m.daemon}`);
      if (variant.files) {
        const p95 = quantileOf(sorted, 0.95);
        notes.push(`target for (f): p95 ≤ 3 s after the file is complete: ${p95 <= 3 ? 'met' : 'MISSED'} (${p95.toFixed(2)} s); every change delivered: ${m.undelivered === 0 ? 'yes' : 'NO'}`);
      }
      if (variant.trigger?.notify === true && variant.trigger.debounce === undefined) {
        const p95 = quantileOf(sorted, 0.95);
        const p99 = quantileOf(sorted, 0.99);
        notes.push(
          `targets for (c): p95 ≤ 2 s: ${p95 <= 2 ? 'met' : 'MISSED'} (${p95.toFixed(2)} s); p99 ≤ 5 s: ${p99 <= 5 ? 'met' : 'MISSED'} (${p99.toFixed(2)} s); requests per change ≤ (b): ${perChangeB !== undefined && perChange <= perChangeB ? 'met' : 'MISSED'} (${perChange.toFixed(3)} vs ${perChangeB?.toFixed(3) ?? '?'}); every change delivered: ${m.undelivered === 0 ? 'yes' : 'NO'}`,
        );
      }
    }
    lines.push(`machine load average (1 min) at the end: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores (a shared machine: other work ran beside the benchmark)`);
    lines.push(...table(['variant', 'changes', 'p50', 'p95', 'p99', 'max', 'not delivered', 'shop requests per change (requests, of them 429)', 'ERP writer: commits/s, median UPDATE+COMMIT'], rows));
    lines.push(...notes);
  } finally {
    await shop.close();
    await erp.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
