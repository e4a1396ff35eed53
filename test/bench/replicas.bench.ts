/**
 * One replica against three (issue "Run on several machines"): 4 sandbox shops, each in a process
 * of its own with 100 ms latency and a hidden limit (`rate_limit_per_second` 30), and 3 push lanes
 * per shop (12 pipelines, each a third of the benchmark catalog), the state in PostgreSQL with
 * `shops.<name>.rateLimit` 30/s (fixed, shared by the replicas). Every lane hands the shop one
 * batch at a time (`options.concurrency: 1`), so a lane is bound by the shop's latency, and a
 * replica by how many lanes it runs at once: `replicas.concurrency`, left at its default 4. One
 * replica runs the 12 lanes four at a time; three replicas (same config) run all twelve at once,
 * three lanes per shop sharing its 30/s. All 12 jobs are added at once; the time is from adding
 * them to the last run's end in the state's runs table. The shops count what they received
 * (GET /sandbox/traffic): requests answered 429 and the busiest second. For reference, one replica
 * with `replicas.concurrency: 12` (as many job slots as the three together).
 * Needs PostgreSQL (127.0.0.1:5432, user postgres, database test; SHOPSYNC_BENCH_PG overrides).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrafficView } from '../../src/sandbox/index.js';
import type { RunRecord } from '../../src/state/index.js';
import { writeCatalog } from './support/catalog.js';
import { count, median, QUICK, table } from './support/report.js';
import { cpuSeconds, deployment, machineCpu, metricByShop, unreachableReason, type ReplicaProcess } from './support/replicas.js';
import { startShopProcess, type ShopProcess } from './support/shop.js';

const PG_URL = process.env.SHOPSYNC_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const SHOPS = ['s1', 's2', 's3', 's4'] as const;
const LANES_PER_SHOP = 3;
/** Products every shop receives (a third per lane). */
const PRODUCTS = QUICK ? 1_500 : 6_000;
const BATCH = 10;
const LATENCY_MS = 100;
/**
 * The shops' hidden limit and the config's rateLimit.requests. A lane sends about 8 requests a
 * second (100 ms latency, one in flight), so three lanes of one shop need about 25 of the 30: the
 * limit is close enough that the shared budget has to space them, far enough not to set the pace.
 */
const SHOP_LIMIT = 30;
const ROUNDS = QUICK ? 1 : 3;

interface Contender {
  readonly name: string;
  readonly replicas: number;
  readonly concurrency?: number;
}

const CONTENDERS: readonly Contender[] = [
  { name: '1 replica (concurrency 4, default)', replicas: 1 },
  { name: '3 replicas (concurrency 4 each)', replicas: 3 },
  { name: '1 replica, concurrency 12 (reference)', replicas: 1, concurrency: 12 },
];

interface Outcome {
  readonly ms: number;
  readonly records: number;
  /** Most runs running at the same moment (runs table). */
  readonly atOnce: number;
  /** Median duration of one run (a lane's whole push), ms. */
  readonly runMs: number;
  /** When the runs started, as groups: "4 at +0.1–0.2 s". */
  readonly starts: string;
  readonly replicaCpuS: number;
  readonly shopCpuS: number;
  /** Share of the machine's CPU time (all cores, all processes, other work included) that was busy during the run. */
  readonly machineBusy: number;
  readonly traffic: readonly TrafficView[];
  /** Requests that waited for the shared budget, per shop (replicas' metrics). */
  readonly sharedWaits: readonly number[];
}

/** A measured value, or n/a where /proc is missing (not Linux). */
function orNa(value: number, show: (v: number) => string): string {
  return Number.isNaN(value) ? 'n/a (no /proc)' : show(value);
}

/** Run starts after `t0`, grouped where they are less than a second apart: "4 at +0.1–0.2 s, 4 at +6.3–6.6 s". */
function startGroups(runs: readonly RunRecord[], t0: number): string {
  const at = runs.map((r) => (Date.parse(r.startedAt) - t0) / 1000).sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const t of at) {
    const last = groups.at(-1);
    if (last && t - last.at(-1)! < 1) last.push(t);
    else groups.push([t]);
  }
  return groups.map((g) => `${g.length} at +${g[0]!.toFixed(1)}${g.length > 1 ? `–${g.at(-1)!.toFixed(1)}` : ''} s`).join(', ');
}

/** Most runs whose [start, end) overlap at one moment. */
function mostAtOnce(runs: readonly RunRecord[]): number {
  const edges = runs.flatMap((r) => [
    { at: Date.parse(r.startedAt), d: 1 },
    { at: Date.parse(r.finishedAt!), d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

async function productsIn(shop: ShopProcess): Promise<number> {
  const res = await fetch(`${shop.url}/export/json/products?limit=1`, { headers: { authorization: `Bearer ${shop.token}` } });
  return ((await res.json()) as { pagination: { total: number } }).pagination.total;
}

/** One contender against four fresh shops and a fresh state schema. */
async function measure(dir: string, erpFile: string, c: Contender): Promise<Outcome> {
  const shops = await Promise.all(SHOPS.map(() => startShopProcess()));
  try {
    for (const s of shops) await s.faults({ latency_ms: LATENCY_MS, rate_limit_per_second: SHOP_LIMIT });
    const d = await deployment({
      dir,
      erpFile,
      pgUrl: PG_URL,
      shops: Object.fromEntries(SHOPS.map((n, i) => [n, shops[i]!])),
      products: PRODUCTS,
      lanesPerShop: LANES_PER_SHOP,
      shopRequestsPerSecond: SHOP_LIMIT,
      batchSize: BATCH,
      batchesInFlight: 1,
      ...(c.concurrency === undefined ? {} : { replicaConcurrency: c.concurrency }),
    });
    try {
      const replicas: ReplicaProcess[] = await Promise.all(Array.from({ length: c.replicas }, (_, i) => d.spawn(`bench-r${i + 1}`)));
      const cpuBefore = replicas.map((r) => cpuSeconds(r.pid) ?? Number.NaN);
      const shopCpuBefore = shops.map((s) => cpuSeconds(s.pid) ?? Number.NaN);
      const machineBefore = machineCpu();
      const t0 = Date.now();
      await d.enqueueAll();
      const runs = await d.finished(600_000);
      const failed = runs.filter((r) => r.status !== 'succeeded');
      if (failed.length > 0) throw new Error(`${c.name}: runs did not succeed: ${failed.map((r) => `${r.pipeline} ${r.status} ${JSON.stringify(r.error ?? r.counts)}`).join('; ')}`);
      const end = Math.max(...runs.map((r) => Date.parse(r.finishedAt!)));
      const machineAfter = machineCpu();
      const machineBusy = machineBefore && machineAfter ? (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total) : Number.NaN;
      const replicaCpuS = replicas.reduce((sum, r, i) => sum + (cpuSeconds(r.pid) ?? Number.NaN) - cpuBefore[i]!, 0);
      const shopCpuS = shops.reduce((sum, s, i) => sum + (cpuSeconds(s.pid) ?? Number.NaN) - shopCpuBefore[i]!, 0);
      const waits = await Promise.all(replicas.map((r) => metricByShop(r.url, 'shopsync_shop_rate_waits_total')));
      await Promise.all(replicas.map((r) => r.stop()));
      const traffic = await Promise.all(shops.map((s) => s.traffic()));
      for (const [i, s] of shops.entries()) {
        const n = await productsIn(s);
        if (n !== PRODUCTS) throw new Error(`${c.name}: shop ${SHOPS[i]} holds ${n} products, expected ${PRODUCTS}`);
      }
      return {
        ms: end - t0,
        records: runs.reduce((sum, r) => sum + r.counts.created + r.counts.updated, 0),
        atOnce: mostAtOnce(runs),
        starts: startGroups(runs, t0),
        runMs: median(runs.map((r) => Date.parse(r.finishedAt!) - Date.parse(r.startedAt))),
        replicaCpuS,
        shopCpuS,
        machineBusy,
        traffic,
        sharedWaits: SHOPS.map((n) => waits.reduce((sum, w) => sum + (w.get(n) ?? 0), 0)),
      };
    } finally {
      await d.close();
    }
  } finally {
    await Promise.all(shops.map((s) => s.close()));
  }
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const unreachable = await unreachableReason(PG_URL);
  if (unreachable) return [`SKIPPED: PostgreSQL unreachable at ${PG_URL} (${unreachable}); replicas need a PostgreSQL state`];
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-replicas-'));
  const lines: string[] = [];
  try {
    const erpFile = writeCatalog(dir, PRODUCTS);
    const lanes = SHOPS.length * LANES_PER_SHOP;
    lines.push(
      `${SHOPS.length} sandbox shops (own processes, ${LATENCY_MS} ms latency, answer 429 above ${SHOP_LIMIT} requests/s) × ${LANES_PER_SHOP} push lanes = ${lanes} pipelines; every shop receives ${count(PRODUCTS)} products (${count(PRODUCTS / LANES_PER_SHOP)} per lane), batches of ${BATCH}, one batch in flight per lane;`,
      `config rateLimit ${SHOP_LIMIT}/s per shop (fixed, shared by the replicas through the PostgreSQL state); all ${lanes} jobs added at once, time to the last run's end (runs table); medians of ${ROUNDS} round(s), speed-up within each round${QUICK ? ' [BENCH_QUICK sizes]' : ''}`,
      `machine: ${process.platform}, load average ${loadavg()[0]!.toFixed(2)} at start`,
    );
    const rounds: Map<string, Outcome>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const m = new Map<string, Outcome>();
      for (const c of CONTENDERS) m.set(c.name, await measure(dir, erpFile, c));
      rounds.push(m);
    }
    const base = CONTENDERS[0]!.name;
    lines.push(
      ...table(
        ['contender', 'wall time', 'records/s', 'speed-up vs 1 replica (each round)', 'runs at once (most)', 'one run (median)', 'CPU of the replicas', 'CPU of the shops', 'machine CPU busy'],
        CONTENDERS.map((c) => {
          const all = rounds.map((m) => m.get(c.name)!);
          const ms = median(all.map((o) => o.ms));
          const speedUps = rounds.map((m) => m.get(base)!.ms / m.get(c.name)!.ms);
          const cpu = median(all.map((o) => o.replicaCpuS));
          return [c.name, `${(ms / 1000).toFixed(1)} s`, count(median(all.map((o) => (o.records / o.ms) * 1000))), `${median(speedUps).toFixed(2)}×${ROUNDS > 1 ? ` (${speedUps.map((x) => x.toFixed(2)).join(', ')})` : ''}`, String(median(all.map((o) => o.atOnce))), `${(median(all.map((o) => o.runMs)) / 1000).toFixed(1)} s`, Number.isNaN(cpu) ? 'n/a (no /proc)' : `${cpu.toFixed(1)} s (${((cpu / (ms / 1000)) * 100).toFixed(0)} % of a core)`, orNa(median(all.map((o) => o.shopCpuS)), (v) => `${v.toFixed(1)} s`), orNa(median(all.map((o) => o.machineBusy)), (v) => `${(v * 100).toFixed(0)} % of ${cpus().length} cores`)];
        }),
      ),
      '',
      `what each shop received (sandbox counts; all rounds: 429s summed, busiest second the highest of any round; limit ${SHOP_LIMIT}/s)`,
      ...table(
        ['contender', 'requests per shop', '429s per shop', 'busiest second per shop (any 1000 ms)', 'waits for the shared budget per shop'],
        CONTENDERS.map((c) => {
          const all = rounds.map((m) => m.get(c.name)!);
          const perShop = (f: (o: Outcome, i: number) => number, combine: (v: number[]) => number) => SHOPS.map((_, i) => count(combine(all.map((o) => f(o, i))))).join(' / ');
          const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
          const max = (v: number[]) => Math.max(...v);
          return [c.name, perShop((o, i) => o.traffic[i]!.requests, median), perShop((o, i) => o.traffic[i]!.rate_limited, sum), perShop((o, i) => o.traffic[i]!.busiest_second, max), perShop((o, i) => o.sharedWaits[i]!, median)];
        }),
      ),
      '',
      `runs started (seconds after the jobs were added)`,
      ...CONTENDERS.flatMap((c) => rounds.map((m, r) => `- ${c.name}${ROUNDS > 1 ? `, round ${r + 1}` : ''}: ${m.get(c.name)!.starts}`)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
