/**
 * Reconciliation at scale (issue "The rest of a catalog's life", item 4): 100,000 catalog products
 * (names in two languages, price, stock, two group prices) pushed by shopsync into a sandbox shop in
 * a process of its own (SQLite file), 400 records of drift seeded on both sides, then one
 * `reconcilePipeline` in a fresh process: time, peak RSS of that process, and the drift it found.
 * BENCH_QUICK=1 uses 10,000 products.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCatalog } from './support/catalog.js';
import { count, perSecond, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';

const N = QUICK ? 10_000 : 100_000;
const here = dirname(fileURLToPath(import.meta.url));

function child(args: readonly string[]): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(here, 'support', 'reconcile-child.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code === 0 && line) resolve(JSON.parse(line) as Record<string, number>);
      else reject(new Error(`reconcile child ${args[0]} exited with ${code}: ${out}`));
    });
  });
}

/** Run the benchmark; returns the lines to print. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-reconcile-'));
  const shop = await startShopProcess(join(dir, 'shop.sqlite'));
  try {
    const erpFile = writeCatalog(dir, N);
    const setup = await child(['setup', String(N), erpFile, shop.url, shop.token, dir]);
    const r = await child(['reconcile', erpFile, shop.url, shop.token, dir]);
    return [
      `${count(N)} products pushed in ${(setup.pushMs! / 1000).toFixed(1)} s (setup); drift seeded: 100 renamed and 100 new in the ERP, 100 prices edited and 100 products added in the shop`,
      ...table(
        ['products', 'reconcile time', 'records/s', 'peak RSS (reconcile process)', 'only in ERP', 'only in shop', 'different', 'drift'],
        [[count(N), `${(r.ms! / 1000).toFixed(1)} s`, count(perSecond(N, r.ms!)), `${r.peakRssMb!.toFixed(0)} MB`, count(r.onlyInErp!), count(r.onlyInShop!), count(r.different!), count(r.drift!)]],
      ),
      `phases: ERP side read and mapped in ${(r.erpMs! / 1000).toFixed(1)} s; shop export read (pages of 250, the next requested while one is compared) and compared in ${(r.shopMs! / 1000).toFixed(1)} s`,
    ];
  } finally {
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
