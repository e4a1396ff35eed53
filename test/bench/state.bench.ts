/**
 * State backends (issue: "PostgreSQL within 1.5× of SQLite"): the benchmark catalog pushed by
 * shopsync tuned (batch 100, 8 in flight, fixed rate) into a loopback sandbox in its own process
 * (latency 0, where the state's share of the time is largest), once with the state in a SQLite
 * file and once in a PostgreSQL schema of its own (127.0.0.1:5432, database `test`, dropped
 * afterwards). Each round runs both against fresh shops and fresh states in a rotating order; the
 * PostgreSQL/SQLite ratio is taken within a round and the medians of the rounds are printed. After
 * each push the cursor is reset and every record read again (nothing changed: compared by hash,
 * 0 requests); that re-read is printed per 100,000 records (scaled from the catalog's size).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCatalog } from './support/catalog.js';
import { runShopsync, type ShopsyncResult } from './support/contenders.js';
import { count, median, perSecond, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';
import { postgresUnavailable, POSTGRES_URL, type BenchBackend } from './support/states.js';

const N = QUICK ? 2_000 : 20_000;
const ROUNDS = QUICK ? 3 : 5;
const TARGET = 1.5;

/** One push (and re-read) of the catalog with the state in `backend`, against a fresh shop. */
async function once(backend: BenchBackend, erpFile: string): Promise<ShopsyncResult> {
  const shop = await startShopProcess();
  try {
    const result = await runShopsync(shop, erpFile, N, { tuned: true, backend, reread: true });
    if (result.failed > 0) throw new Error(`${backend}: ${result.failed} records failed`);
    return result;
  } finally {
    await shop.close();
  }
}

const per100k = (r: ShopsyncResult) => ((r.rereadMs! / r.records) * 100_000) / 1000;

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-state-'));
  const lines: string[] = [];
  try {
    const erpFile = writeCatalog(dir, N);
    const unavailable = await postgresUnavailable();
    const backends: BenchBackend[] = unavailable ? ['sqlite'] : ['sqlite', 'postgres'];
    lines.push(
      `push of ${count(N)} products by shopsync tuned (batch 100, 8 in flight, fixed rate) into a loopback sandbox (own process, latency 0), state in SQLite (temp file) and in PostgreSQL (${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')}, a schema of its own); medians of ${ROUNDS} rounds, order rotating, ratio within each round; re-read = cursor reset, every record compared by hash, 0 requests, scaled to 100,000 records${QUICK ? ' [BENCH_QUICK sizes]' : ''}`,
    );
    if (unavailable) lines.push(`${unavailable}: PostgreSQL not measured in this run`);
    const rounds: Map<BenchBackend, ShopsyncResult>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const m = new Map<BenchBackend, ShopsyncResult>();
      for (let i = 0; i < backends.length; i++) {
        const b = backends[(i + r) % backends.length]!;
        m.set(b, await once(b, erpFile));
      }
      rounds.push(m);
    }
    const rate = (r: ShopsyncResult) => perSecond(r.records, r.ms);
    const ratios = unavailable ? [] : rounds.map((m) => m.get('postgres')!.ms / m.get('sqlite')!.ms);
    const rereadRatios = unavailable ? [] : rounds.map((m) => m.get('postgres')!.rereadMs! / m.get('sqlite')!.rereadMs!);
    lines.push(
      ...table(
        ['state', 'records/s', 'push time', 'time vs SQLite', 'no-change re-read per 100k', 're-read vs SQLite'],
        backends.map((b) => {
          const results = rounds.map((m) => m.get(b)!);
          return [
            b === 'sqlite' ? 'SQLite' : 'PostgreSQL',
            count(median(results.map(rate))),
            `${(median(results.map((x) => x.ms)) / 1000).toFixed(2)} s`,
            b === 'sqlite' ? '1.00×' : `${median(ratios).toFixed(2)}×`,
            `${median(results.map(per100k)).toFixed(2)} s`,
            b === 'sqlite' ? '1.00×' : `${median(rereadRatios).toFixed(2)}×`,
          ];
        }),
      ),
    );
    if (!unavailable) {
      lines.push(`PostgreSQL push time / SQLite push time per round: ${ratios.map((x) => `${x.toFixed(2)}×`).join(', ')}; median ${median(ratios).toFixed(2)}× (target ≤ ${TARGET}×: ${median(ratios) <= TARGET ? 'met' : 'not met'} in this run)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
