/**
 * An agency's fifty shops (issue 34): 50 sandbox shops (hidden limits 5–40 requests/s, latency
 * 20–120 ms) in three processes, one PostgreSQL ERP with 20,000 articles and a price per shop and
 * article, four templates (products, prices, stock, manufacturers) expanded per shop from
 * shops.d/ (200 pipelines, every 30 s with each shop's offset), three replicas on a PostgreSQL
 * state, and a writer committing steady changes for 10 minutes. From the 40th to the 70th
 * percent of the time one shop is down (every connection reset) and another answers 429 to
 * everything. Printed: tick start delay, runs per tick, each shop's busiest second against its
 * limit, the healthy shops' delivery rate during the outage against before, ERP queries per tick
 * (shared reads), RSS per replica, and the alerts sent.
 * The first sync of the catalog is not part of it: the pipelines start from a cursor at the
 * bench's start, so every shop receives the articles that go live during the run.
 * `BENCH_AGENCY_MINUTES` (default 10; BENCH_QUICK 3) and `BENCH_AGENCY_SHOPS` (default 50; quick 12).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openState, type RunRecord } from '../../src/state/index.js';
import { createErp, startFleet, tokenEnv, writeAgencyConfig, type AgencyShop } from './support/agency.js';
import { startWriter } from './support/agency-writer.js';
import { count, QUICK, table } from './support/report.js';
import { spawnReplica, unreachableReason, type ReplicaProcess } from './support/replicas.js';

const PG_URL = process.env.SHOPSYNC_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const MINUTES = Number(process.env.BENCH_AGENCY_MINUTES ?? (QUICK ? 3 : 10));
const SHOPS = Number(process.env.BENCH_AGENCY_SHOPS ?? (QUICK ? 12 : 50));
const PRODUCTS = 20_000;
const REPLICAS = 3;
const RATES = { articles: 2, stock: 6, prices: 6, manufacturers: 0.2 };
const TEMPLATES = ['products', 'prices', 'stock', 'manufacturers'] as const;

interface Alert {
  readonly incident: string;
  readonly state: string;
  readonly shop?: string;
}

/** Collects the alert webhook's messages. */
async function alertSink(): Promise<{ url: string; alerts: Alert[]; server: Server }> {
  const alerts: Alert[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        alerts.push(JSON.parse(body) as Alert);
      } catch {
        // not an alert
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/alerts`, alerts, server };
}

/** p-th percentile (0–100) of a list. */
function pct(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The scheduled instant a run belongs to: the latest second o or o+30 of a minute at or before its start. */
function tickOf(startedAt: number, offsetSeconds: number): number {
  const base = Math.floor(startedAt / 30_000) * 30_000 + (offsetSeconds % 30) * 1000;
  return base <= startedAt ? base : base - 30_000;
}

/** Resident and peak memory of a process in MB, from /proc (Linux). */
function memoryMb(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Sum of a metric's samples per label value on every replica. */
async function metricSum(replicas: readonly ReplicaProcess[], metric: string, label: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const r of replicas) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
      const key = new RegExp(`${label}="([^"]*)"`).exec(line)?.[1] ?? '';
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (Number.isFinite(value)) out.set(key, (out.get(key) ?? 0) + value);
    }
  }
  return out;
}

export async function bench(): Promise<string[]> {
  const unreachable = await unreachableReason(PG_URL);
  if (unreachable) return [`skipped: PostgreSQL at ${PG_URL} does not answer (${unreachable})`];
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-agency-'));
  const suffix = randomBytes(3).toString('hex');
  const erpSchema = `agency_erp_${suffix}`;
  const stateSchema = `agency_state_${suffix}`;
  const fleet = await startFleet(SHOPS, 3);
  const sink = await alertSink();
  const children = new Set<ChildProcess>();
  const replicas: ReplicaProcess[] = [];
  try {
    await createErp(PG_URL, erpSchema, PRODUCTS, fleet.shops);
    const t0 = Date.now();
    const file = writeAgencyConfig(dir, { pgUrl: PG_URL, erpSchema, stateSchema, shops: fleet.shops, alertUrl: sink.url, initialCursor: new Date(t0 - 1000).toISOString() });
    for (let i = 1; i <= REPLICAS; i++) replicas.push(await spawnReplica(file, dir, `agency-${i}`, children, tokenEnv(fleet.shops)));
    const replicasUpAt = Date.now();
    const writer = await startWriter(PG_URL, erpSchema, fleet.shops.map((s) => s.name), PRODUCTS, RATES);
    const durationMs = MINUTES * 60_000;
    const outageFrom = t0 + durationMs * 0.4;
    const outageTo = t0 + durationMs * 0.7;
    const down = fleet.shops[Math.min(7, fleet.shops.length - 1)]!;
    const refusing = fleet.shops[Math.min(13, fleet.shops.length - 2)]!;
    const rssSamples = new Map<string, number[]>();
    const sample = () => {
      for (const r of replicas) {
        const m = memoryMb(r.pid);
        if (m) rssSamples.set(r.name, [...(rssSamples.get(r.name) ?? []), m.rss]);
      }
    };
    await new Promise((r) => setTimeout(r, Math.max(0, outageFrom - Date.now())));
    sample();
    await fleet.faults(down, { latency_ms: down.latencyMs, rate_limit_per_second: down.limit, reset_rate: 1 });
    await fleet.faults(refusing, { latency_ms: refusing.latencyMs, rate_limit_per_second: 0.001 });
    await new Promise((r) => setTimeout(r, Math.max(0, outageTo - Date.now())));
    sample();
    await fleet.faults(down, { latency_ms: down.latencyMs, rate_limit_per_second: down.limit, reset_rate: 0 });
    await fleet.faults(refusing, { latency_ms: refusing.latencyMs, rate_limit_per_second: refusing.limit });
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + durationMs - Date.now())));
    sample();
    await writer.stop();
    const wakeMetrics = await metricSum(replicas, 'shopsync_erp_queries_total', 'shared');
    const peaks = replicas.map((r) => ({ name: r.name, ...(memoryMb(r.pid) ?? { rss: NaN, peak: NaN }) }));
    // Let the last ticks finish before counting.
    await new Promise((r) => setTimeout(r, 35_000));
    const stoppedAt = Date.now();
    for (const r of replicas) await r.stop().catch((err: unknown) => lines.push(`replica stop: ${String(err).slice(0, 300)}`));
    replicas.length = 0;

    const state = await openState({ kind: 'postgres', url: PG_URL, schema: stateSchema });
    const runs: RunRecord[] = await state.runs.list({ limit: 100_000 });
    await state.close();
    const shopOf = new Map(fleet.shops.map((s) => [s.name, s]));
    const pipelineShop = (p: string) => shopOf.get(p.slice(p.lastIndexOf('-') + 1));

    // Tick start delay and runs per tick: every scheduled instant of every pipeline from the first
    // tick after the replicas started to the last one before they stopped, with the runs started for it.
    const delays: number[] = [];
    const perTick = new Map<string, number>();
    const failedTicks = new Set<string>();
    for (const r of runs) {
      const shop = pipelineShop(r.pipeline);
      if (!shop) continue;
      const started = Date.parse(r.startedAt);
      const tick = tickOf(started, shop.offsetSeconds);
      delays.push((started - tick) / 1000);
      const key = `${r.pipeline}@${tick}`;
      perTick.set(key, (perTick.get(key) ?? 0) + 1);
      if (r.status === 'failed') failedTicks.add(key);
    }
    const ticksPerRuns = new Map<number, number>();
    const doubled: string[] = [];
    for (const shop of fleet.shops) {
      for (const template of TEMPLATES) {
        const pipeline = `${template}-${shop.name}`;
        for (let tick = tickOf(replicasUpAt, shop.offsetSeconds) + 30_000; tick < stoppedAt - 15_000; tick += 30_000) {
          const n = perTick.get(`${pipeline}@${tick}`) ?? 0;
          ticksPerRuns.set(Math.min(n, 2), (ticksPerRuns.get(Math.min(n, 2)) ?? 0) + 1);
          if (n > 1) doubled.push(`${pipeline}@${new Date(tick).toISOString().slice(11, 19)}${failedTicks.has(`${pipeline}@${tick}`) ? ' (a retry after a failed run)' : ''}`);
        }
      }
    }
    lines.push(
      `${fleet.shops.length} shops × ${TEMPLATES.length} templates = ${fleet.shops.length * TEMPLATES.length} pipelines, ${REPLICAS} replicas, ${MINUTES} min, writer ${RATES.articles} new articles + ${RATES.stock} stock + ${RATES.prices} price changes/s (load average at the end ${loadavg()[0]!.toFixed(1)})`,
      `writer committed: ${count(writer.tally.articles)} articles, ${count(writer.tally.stock)} stock, ${count(writer.tally.prices)} prices, ${count(writer.tally.manufacturers)} manufacturers`,
      `tick start delay: p50 ${pct(delays, 50).toFixed(2)} s, p95 ${pct(delays, 95).toFixed(2)} s, max ${Math.max(...delays).toFixed(2)} s over ${count(runs.length)} runs (target p95 ≤ 5 s)`,
      `runs per tick: of ${count([...ticksPerRuns.values()].reduce((a, b) => a + b, 0))} scheduled pipeline-ticks, ${count(ticksPerRuns.get(1) ?? 0)} ran once, ${count(ticksPerRuns.get(0) ?? 0)} not at all (lane still busy: folded into the waiting run), ${count(ticksPerRuns.get(2) ?? 0)} more than once${doubled.length ? `: ${doubled.slice(0, 8).join(', ')}` : ''}`,
    );

    // Busiest second per shop against its limit.
    const rows: string[][] = [];
    let over = 0;
    for (const shop of fleet.shops) {
      const t = await fleet.traffic(shop);
      const passed = t.busiest_second_passed;
      if (shop !== refusing && passed > shop.limit) over++;
      rows.push([shop.name, String(shop.limit), String(shop.latencyMs), count(t.requests), count(t.rate_limited), String(passed), shop === down ? 'down' : shop === refusing ? '429 to all' : '']);
    }
    lines.push(`shops whose busiest second (requests let through) exceeded their limit: ${over} of ${fleet.shops.length}`);
    lines.push(...table(['shop', 'limit/s', 'latency ms', 'requests', '429', 'busiest second', 'fault'], rows.length > 12 ? [...rows.slice(0, 6), ['…', '', '', '', '', '', ''], ...rows.slice(-6), ...rows.filter((r) => r[6] !== '' && !rows.slice(0, 6).includes(r) && !rows.slice(-6).includes(r))] : rows));

    // Healthy shops' delivery rate before and during the outage.
    const healthy = new Set(fleet.shops.filter((s) => s !== down && s !== refusing).map((s) => s.name));
    const delivered = (from: number, to: number) =>
      runs.filter((r) => r.finishedAt && healthy.has(pipelineShop(r.pipeline)?.name ?? '') && Date.parse(r.finishedAt) >= from && Date.parse(r.finishedAt) < to).reduce((n, r) => n + (r.counts.created ?? 0) + (r.counts.updated ?? 0), 0);
    // Stock and price changes begin once articles have been live for 90 s (the writer's settle time): count from a minute after that.
    const steadyFrom = t0 + 150_000;
    const before = delivered(steadyFrom, outageFrom) / ((outageFrom - steadyFrom) / 1000);
    const during = delivered(outageFrom, outageTo) / ((outageTo - outageFrom) / 1000);
    lines.push(`${healthy.size} healthy shops delivered ${before.toFixed(1)} records/s before the outage and ${during.toFixed(1)} during it: ${(during / before).toFixed(2)}× (target ≥ 0.9×)`);
    const failedRuns = runs.filter((r) => r.status !== 'succeeded');
    const why = new Map<string, number>();
    for (const r of failedRuns) {
      const key = `${pipelineShop(r.pipeline)?.name ?? r.pipeline} ${r.status} ${String(r.error?.code ?? '')}`.trim();
      why.set(key, (why.get(key) ?? 0) + 1);
    }
    lines.push(`runs not succeeded: ${failedRuns.length}${why.size ? `: ${[...why].map(([k, n]) => `${k} ×${n}`).join(', ')}` : ''}`);
    const samples = new Map<string, string>();
    for (const r of failedRuns) if (r.error?.code && !samples.has(String(r.error.code))) samples.set(String(r.error.code), String(r.error.message ?? '').slice(0, 300));
    for (const [code, message] of samples) lines.push(`  ${code}: ${message}`);

    // ERP queries.
    const shared = wakeMetrics.get('true') ?? 0;
    const own = wakeMetrics.get('false') ?? 0;
    const tickCount = perTick.size || 1;
    lines.push(wakeMetrics.size === 0 ? 'ERP queries: no shopsync_erp_queries_total metric' : `ERP queries: ${count(own)} to the database, ${count(shared)} answered from a shared read: ${(own / tickCount).toFixed(2)} per pipeline-tick with sharing, ${((own + shared) / tickCount).toFixed(2)} without`);
    lines.push(`RSS per replica (MB, now / peak): ${peaks.map((p) => `${p.name} ${p.rss.toFixed(0)} / ${p.peak.toFixed(0)}`).join(', ')}`);

    // Alerts.
    const byIncident = new Map<string, string[]>();
    for (const a of sink.alerts) byIncident.set(a.incident, [...(byIncident.get(a.incident) ?? []), a.state]);
    lines.push(`alerts sent: ${sink.alerts.length}; ${[...byIncident].map(([id, states]) => `${id}: ${states.join(', ')}`).join('; ') || 'none'}`);
    return lines;
  } finally {
    for (const r of replicas) await r.stop().catch(() => undefined);
    for (const c of children) c.kill('SIGKILL');
    await fleet.close();
    sink.server.close();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    for (const s of [erpSchema, stateSchema, `${stateSchema}_jobs`]) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
