/**
 * Push throughput against the hand-written script (issues 15 and 47), measured as a user would:
 * whole processes. The benchmark catalog (names in two languages, price, group prices, stock) is
 * pushed from an ERP SQLite table into a sandbox shop in a process of its own, at injected latency
 * 0, 20 and 80 ms, by four contenders, each a process of its own (support/processes.ts): the naive
 * loop and the hand-written script (support/script-child.ts), and `shopsync sync bench-products`
 * of the bundled CLI with its defaults and tuned. Each contender's time is its process's wall time
 * from spawn to exit, start-up included; its CPU time is the process's user + system time. Each
 * round runs every contender once against a fresh shop (and shopsync on a fresh state), in a
 * rotating order; ratios to the script are taken within a round, and the medians of rounds are
 * printed, with the CPU per record and the shop process's CPU during the run (/proc, Linux): at
 * loopback the shop and the contender share the machine's cores. Then a shop with a hidden limit (rate_limit_per_second 20,
 * 50 ms), the same processes: records/s, share of requests answered 429, and the share of the
 * limit's throughput (20 requests/s × records per request) each contender reached.
 * The naive contender takes one request per record: at 80 ms, 20,000 records would take half an
 * hour, so it pushes a smaller sample (its size is printed) and its records/s come from that.
 * For targeted runs (unset, everything runs as printed by `npm run bench`):
 * `BENCH_THROUGHPUT_LATENCIES=20,hidden` only those latencies (`hidden`: the hidden-limit shop),
 * `BENCH_THROUGHPUT_CONTENDERS=script,defaults` only contenders whose name contains a word given,
 * `BENCH_THROUGHPUT_ROUNDS=5` rounds, `BENCH_THROUGHPUT_RECORDS=20000` records (the full size under BENCH_QUICK).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCatalog } from './support/catalog.js';
import { assertCliCurrent, scriptProcess, shopsyncProcess, type ProcessContender, type ProcessResult } from './support/processes.js';
import { count, median, perSecond, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';

const N = envNumber('BENCH_THROUGHPUT_RECORDS') ?? (QUICK ? 2_000 : 20_000);
const ROUNDS = envNumber('BENCH_THROUGHPUT_ROUNDS') ?? 3;
const ONLY_LATENCIES = envList('BENCH_THROUGHPUT_LATENCIES');
const LATENCIES = [0, 20, 80].filter((l) => !ONLY_LATENCIES || ONLY_LATENCIES.includes(String(l)));
const HIDDEN = !ONLY_LATENCIES || ONLY_LATENCIES.includes('hidden');
/** Sample sizes of the naive contender per latency (about 10–20 s per round). */
const NAIVE_SAMPLE: Record<number, number> = QUICK ? { 0: 500, 20: 100, 80: 50, 50: 60 } : { 0: 2_000, 20: 500, 80: 200, 50: 200 };
const HIDDEN_LIMIT = 20;
const HIDDEN_LATENCY = 50;

interface Entry {
  readonly name: string;
  readonly run: ProcessContender;
  /** Records per request (for the hidden limit's throughput). */
  readonly perRequest: number;
  readonly naive?: boolean;
}

const SCRIPT = 'hand-written script (batches of 100, 8 in flight, no state)';
const DEFAULTS = 'shopsync defaults';
const TUNED = 'shopsync tuned (batch 100, 8 in flight, fixed rate)';
/** The latency at which the CPU per record is held against issue 47's target. */
const CPU_LATENCY = 20;
/** Issue 47's target for shopsync's CPU per record at 20 ms, in µs. */
const CPU_TARGET_US = 50;
const ONLY_CONTENDERS = envList('BENCH_THROUGHPUT_CONTENDERS');
const CONTENDERS: readonly Entry[] = (
  [
    { name: 'naive (1 request per record, sequential)', run: scriptProcess(1, 1), perRequest: 1, naive: true },
    { name: SCRIPT, run: scriptProcess(100, 8), perRequest: 100 },
    { name: DEFAULTS, run: shopsyncProcess(false), perRequest: 100 },
    { name: TUNED, run: shopsyncProcess(true), perRequest: 100 },
  ] satisfies Entry[]
).filter((c) => !ONLY_CONTENDERS || ONLY_CONTENDERS.some((word) => c.name.includes(word)));

/** A whole number from the environment, if set. */
function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`Expected \`${name}\` to be a whole number from 1 and up, got \`${raw}\``);
  return n;
}

/** A comma-separated list from the environment, if set. */
function envList(name: string): string[] | undefined {
  const raw = process.env[name];
  return raw ? raw.split(',').map((w) => w.trim()).filter((w) => w !== '') : undefined;
}

/** A contender's figures and the CPU time the shop spent on its run. */
type Measured = ProcessResult & { readonly shopCpuMs: number };

/**
 * User + system CPU of a running process in ms (Linux: /proc/<pid>/stat, clock ticks of 10 ms), or
 * undefined where there is none. At loopback the shop's CPU bounds every contender: on 2 cores,
 * shop and contender together cannot take less wall time than half their CPU.
 */
function cpuOfProcess(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based), so 11 and 12 here.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Every contender once against fresh shops with `faults`; the order rotates with `round`. */
async function round(erpFile: string, faults: Record<string, number>, latency: number, roundNo: number): Promise<Map<string, Measured>> {
  const out = new Map<string, Measured>();
  for (let i = 0; i < CONTENDERS.length; i++) {
    const c = CONTENDERS[(i + roundNo) % CONTENDERS.length]!;
    const shop = await startShopProcess();
    try {
      await shop.faults(faults);
      const before = cpuOfProcess(shop.pid);
      const result = await c.run(shop, erpFile, c.naive ? NAIVE_SAMPLE[latency]! : N);
      if (result.failed > 0) throw new Error(`${c.name}: ${result.failed} records failed`);
      const after = cpuOfProcess(shop.pid);
      out.set(c.name, { ...result, shopCpuMs: before === undefined || after === undefined ? Number.NaN : after - before });
    } finally {
      await shop.close();
    }
  }
  return out;
}

/** `1.23 s (1.20–1.31)`: the median of rounds with their range. */
function seconds(values: readonly number[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return values.length === 1 ? `${s(values[0]!)} s` : `${s(median(values))} s (${s(Math.min(...values))}–${s(Math.max(...values))})`;
}

/** The median CPU time the shop spent on the contender's runs, or — where it cannot be read. */
function shopCpu(results: readonly Measured[]): string {
  const ms = results.map((r) => r.shopCpuMs);
  return ms.some((x) => Number.isNaN(x)) ? '—' : `${(median(ms) / 1000).toFixed(2)} s`;
}

/** The child's CPU time per record in µs. */
function cpuPerRecordUs(r: ProcessResult): number {
  return (r.cpuMs * 1000) / r.records;
}

/** Issue 47's targets held against the medians of this run (only those whose contenders and latencies ran). */
function targetLines(ratios: ReadonlyMap<number, number>, cpuUs: ReadonlyMap<string, number>): string[] {
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const out: string[] = [];
  for (const [latency, ratio] of ratios) {
    const target = latency === 0 ? 0.9 : 1.0;
    out.push(`shopsync defaults vs the script at ${latency} ms: ${ratio.toFixed(2)}× (issue 47's target ≥ ${target.toFixed(1)}×: ${verdict(ratio >= target)})`);
  }
  if (cpuUs.size > 0) {
    const defaults = cpuUs.get(DEFAULTS);
    const each = [...cpuUs].map(([name, us]) => `${name} ${us.toFixed(1)} µs`).join(', ');
    out.push(`CPU per record at ${CPU_LATENCY} ms (the process's user + system CPU / records, median of rounds): ${each}${defaults === undefined ? '' : `; target for shopsync defaults ≤ ${CPU_TARGET_US} µs: ${verdict(defaults <= CPU_TARGET_US)}`}`);
  }
  return out;
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  if (CONTENDERS.some((c) => c.name.startsWith('shopsync'))) assertCliCurrent();
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-throughput-'));
  const lines: string[] = [];
  try {
    const erpFile = writeCatalog(dir, N);
    lines.push(
      `push of ${count(N)} products (names de/en, price, 2 group prices, stock) from an ERP SQLite table into a sandbox in its own process; every contender a whole process (the script: node script-child.js; shopsync: node bin/shopsync.js sync, the bundled CLI, fresh state); time = the process's wall time from spawn to exit, CPU = its user + system time (GNU time); naive on a sample (size in brackets); medians of ${ROUNDS} rounds, order rotating, ratios to the script within each round${QUICK ? ' [BENCH_QUICK sizes]' : ''}`,
    );
    const rows: string[][] = [];
    const defaultsRatios = new Map<number, number>();
    const cpuUs = new Map<string, number>();
    for (const latency of LATENCIES) {
      const rounds: Map<string, Measured>[] = [];
      for (let r = 0; r < ROUNDS; r++) rounds.push(await round(erpFile, { latency_ms: latency }, latency, r));
      for (const c of CONTENDERS) {
        const results = rounds.map((m) => m.get(c.name)!);
        const rates = results.map((x) => perSecond(x.records, x.ms));
        const ratios = rounds.map((m) => (m.has(SCRIPT) ? perSecond(m.get(c.name)!.records, m.get(c.name)!.ms) / perSecond(m.get(SCRIPT)!.records, m.get(SCRIPT)!.ms) : NaN));
        const cpu = median(results.map(cpuPerRecordUs));
        if (c.name === DEFAULTS && rounds[0]!.has(SCRIPT)) defaultsRatios.set(latency, median(ratios));
        if (latency === CPU_LATENCY && !c.naive) cpuUs.set(c.name === SCRIPT ? 'hand-written script' : c.name === TUNED ? 'shopsync tuned' : c.name, cpu);
        // Targeted runs (several rounds) print every round's ratio too: the spread says how far to trust the median.
        const each = ONLY_LATENCIES || ONLY_CONTENDERS ? ` (${ratios.map((r) => r.toFixed(2)).join(', ')})` : '';
        rows.push([
          `${latency} ms`,
          c.naive ? `${c.name} [${count(NAIVE_SAMPLE[latency]!)}]` : c.name,
          seconds(results.map((x) => x.ms)),
          count(median(rates)),
          `${median(ratios).toFixed(2)}×${each}`,
          `${(median(results.map((x) => x.cpuMs)) / 1000).toFixed(2)} s (${cpu.toFixed(1)} µs)`,
          `${median(results.map((x) => x.peakRssMb)).toFixed(0)} MB`,
          shopCpu(results),
          count(median(results.map((x) => x.requests))),
        ]);
      }
    }
    if (rows.length > 0) lines.push(...table(['latency', 'contender', 'process wall time', 'records/s', 'vs script', 'CPU time (per record)', 'peak RSS', "shop's CPU", 'requests'], rows), ...targetLines(defaultsRatios, cpuUs));
    if (!HIDDEN) return lines;

    lines.push('', `hidden limit: sandbox rate_limit_per_second ${HIDDEN_LIMIT} at ${HIDDEN_LATENCY} ms, ${count(N)} products; limit throughput = ${HIDDEN_LIMIT} requests/s × records per request`);
    const limited: Map<string, Measured>[] = [];
    for (let r = 0; r < ROUNDS; r++) limited.push(await round(erpFile, { latency_ms: HIDDEN_LATENCY, rate_limit_per_second: HIDDEN_LIMIT }, HIDDEN_LATENCY, r));
    lines.push(
      ...table(
        ['contender', 'records/s', 'share of limit throughput', 'requests answered 429'],
        CONTENDERS.map((c) => {
          const results = limited.map((m) => m.get(c.name)!);
          const rate = median(results.map((x) => perSecond(x.records, x.ms)));
          const share429 = median(results.map((x) => x.throttled / x.requests));
          const shares = results.map((x) => perSecond(x.records, x.ms) / (HIDDEN_LIMIT * c.perRequest));
          const each = ONLY_LATENCIES || ONLY_CONTENDERS ? ` (${shares.map((x) => (x * 100).toFixed(0)).join(', ')}; 429s ${results.map((x) => x.throttled).join(', ')})` : '';
          return [c.naive ? `${c.name} [${count(NAIVE_SAMPLE[HIDDEN_LATENCY]!)}]` : c.name, count(rate), `${((rate / (HIDDEN_LIMIT * c.perRequest)) * 100).toFixed(0)} %${each}`, `${(share429 * 100).toFixed(1)} % (${count(median(results.map((x) => x.throttled)))} of ${count(median(results.map((x) => x.requests)))})`];
        }),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
