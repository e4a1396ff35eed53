/**
 * One push (and no-change re-read) of the benchmark catalog with the state in one backend, for
 * profiling outside the rounds of state.bench.ts:
 * `node --cpu-prof dist/test/bench/support/state-once.js postgres [n]` (sqlite | postgres, n 20000).
 * Prints one JSON line with the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCatalog } from './catalog.js';
import { runShopsync } from './contenders.js';
import { startShopProcess } from './shop.js';
import type { BenchBackend } from './states.js';

const backend = (process.argv[2] ?? 'postgres') as BenchBackend;
const n = Number(process.argv[3] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-state-once-'));
const shop = await startShopProcess();
try {
  const result = await runShopsync(shop, writeCatalog(dir, n), n, { tuned: true, backend, reread: process.argv[4] !== 'push-only' });
  process.stdout.write(`${JSON.stringify({ backend, n, ...result, recordsPerSecond: Math.round((result.records / result.ms) * 1000) })}\n`);
} finally {
  await shop.close();
  rmSync(dir, { recursive: true, force: true });
}
