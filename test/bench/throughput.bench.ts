/**
 * Push throughput against the hand-written script (issue 15): the benchmark catalog (names in two
 * languages, price, group prices, stock) pushed into a sandbox shop in a process of its own, at
 * injected latency 0, 20 and 80 ms, by four contenders (support/contenders.ts). Each round runs
 * every contender once against a fresh shop, in a rotating order; ratios to the script are taken
 * within a round, and the medians of rounds are printed. Then a shop with a hidden limit
 * (rate_limit_per_second 20, 50 ms): records/s, share of requests answered 429, and the share of
 * the limit's throughput (20 requests/s × records per request) each contender reached.
 * The naive contender takes one request per record: at 80 ms, 20,000 records would take half an
 * hour, so it pushes a smaller sample (its size is printed) and its records/s come from that.
 * For targeted runs (unset, everything runs as printed by `npm run bench`):
 * `BENCH_THROUGHPUT_LATENCIES=20,hidden` only those latencies (`hidden`: the hidden-limit shop),
 * `BENCH_THROUGHPUT_CONTENDERS=script,defaults` only contenders whose name contains a word given,
 * `BENCH_THROUGHPUT_ROUNDS=5` rounds, `BENCH_THROUGHPUT_RECORDS=20000` records (the full size under BENCH_QUICK).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCatalog } from './support/catalog.js';
import { naive, script, shopsyncDefaults, shopsyncTuned, type Contender, type PushResult } from './support/contenders.js';
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
  readonly run: Contender;
  /** Records per request (for the hidden limit's throughput). */
  readonly perRequest: number;
  readonly naive?: boolean;
}

const SCRIPT = 'hand-written script (batches of 100, 8 in flight, no state)';
const ONLY_CONTENDERS = envList('BENCH_THROUGHPUT_CONTENDERS');
const CONTENDERS: readonly Entry[] = (
  [
    { name: 'naive (1 request per record, sequential)', run: naive, perRequest: 1, naive: true },
    { name: SCRIPT, run: script, perRequest: 100 },
    { name: 'shopsync defaults', run: shopsyncDefaults, perRequest: 100 },
    { name: 'shopsync tuned (batch 100, 8 in flight, fixed rate)', run: shopsyncTuned, perRequest: 100 },
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

/** Every contender once against fresh shops with `faults`; the order rotates with `round`. */
async function round(erpFile: string, faults: Record<string, number>, latency: number, roundNo: number): Promise<Map<string, PushResult>> {
  const out = new Map<string, PushResult>();
  for (let i = 0; i < CONTENDERS.length; i++) {
    const c = CONTENDERS[(i + roundNo) % CONTENDERS.length]!;
    const shop = await startShopProcess();
    try {
      await shop.faults(faults);
      const result = await c.run(shop, erpFile, c.naive ? NAIVE_SAMPLE[latency]! : N);
      if (result.failed > 0) throw new Error(`${c.name}: ${result.failed} records failed`);
      out.set(c.name, result);
    } finally {
      await shop.close();
    }
  }
  return out;
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-throughput-'));
  const lines: string[] = [];
  try {
    const erpFile = writeCatalog(dir, N);
    lines.push(`push of ${count(N)} products (names de/en, price, 2 group prices, stock) into a sandbox in its own process; naive on a sample (size in brackets); medians of ${ROUNDS} rounds, ratios to the script within each round${QUICK ? ' [BENCH_QUICK sizes]' : ''}`);
    const rows: string[][] = [];
    for (const latency of LATENCIES) {
      const rounds: Map<string, PushResult>[] = [];
      for (let r = 0; r < ROUNDS; r++) rounds.push(await round(erpFile, { latency_ms: latency }, latency, r));
      for (const c of CONTENDERS) {
        const rates = rounds.map((m) => perSecond(m.get(c.name)!.records, m.get(c.name)!.ms));
        const ratios = rounds.map((m) => (m.has(SCRIPT) ? perSecond(m.get(c.name)!.records, m.get(c.name)!.ms) / perSecond(m.get(SCRIPT)!.records, m.get(SCRIPT)!.ms) : NaN));
        const requests = median(rounds.map((m) => m.get(c.name)!.requests));
        // Targeted runs (several rounds) print every round's ratio too: the spread says how far to trust the median.
        const each = ONLY_LATENCIES || ONLY_CONTENDERS ? ` (${ratios.map((r) => r.toFixed(2)).join(', ')})` : '';
        rows.push([`${latency} ms`, c.naive ? `${c.name} [${count(NAIVE_SAMPLE[latency]!)}]` : c.name, count(median(rates)), `${median(ratios).toFixed(2)}×${each}`, count(requests)]);
      }
    }
    if (rows.length > 0) lines.push(...table(['latency', 'contender', 'records/s', 'vs script', 'requests'], rows));
    if (!HIDDEN) return lines;

    lines.push('', `hidden limit: sandbox rate_limit_per_second ${HIDDEN_LIMIT} at ${HIDDEN_LATENCY} ms, ${count(N)} products; limit throughput = ${HIDDEN_LIMIT} requests/s × records per request`);
    const limited: Map<string, PushResult>[] = [];
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
