/**
 * Scale curve (issue 15): 1k, 10k, 100k and 1M catalog products pushed by shopsync with its
 * defaults into a loopback sandbox (own process, SQLite file), each size in a fresh process of its
 * own: time, peak RSS of that process, state size, and the no-change full re-read (cursor reset,
 * every record compared by hash, 0 requests) per 100,000 records. The largest size runs twice: with
 * Node's default heap (on a big host V8 lets garbage pile up to hundreds of MB before it collects)
 * and with the heap capped (`--max-old-space-size`, as Node sizes it by itself in a container with a
 * small memory limit): that run finishing shows the run is streamed, not held in memory. Last, the
 * pull of 100k shop orders (with lines) into the ERP's SQLite order import. BENCH_QUICK=1 stops at
 * 100k products and 10k orders.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createShopClient } from '../../src/shop/index.js';
import { writeCatalog } from './support/catalog.js';
import { count, QUICK, table } from './support/report.js';
import { startShopProcess } from './support/shop.js';

const SIZES = QUICK ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
/** The heap cap of the largest size's second run (MB). */
const CAPPED_HEAP_MB = 160;
const RUNS: readonly { n: number; heapMb?: number }[] = [...SIZES.map((n) => ({ n })), { n: SIZES.at(-1)!, heapMb: CAPPED_HEAP_MB }];
const ORDERS = QUICK ? 10_000 : 100_000;
const here = dirname(fileURLToPath(import.meta.url));

/** Run scale-child.js with `args`; resolves with its JSON line. */
function child(args: readonly string[], nodeFlags: readonly string[] = []): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeFlags, join(here, 'support', 'scale-child.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code === 0 && line) resolve(JSON.parse(line) as Record<string, number>);
      else reject(new Error(`scale child ${args[0]} exited with ${code}: ${out}`));
    });
  });
}

/** Orders shaped like the sandbox tests': one line each, created through the API in batches. */
async function seedOrders(url: string, token: string, n: number): Promise<void> {
  const client = createShopClient({ baseUrl: url, auth: { kind: 'token', token }, rateLimit: { mode: 'fixed', concurrency: 8, intervalCap: 1_000_000 } });
  try {
    const orders = (from: number, size: number) =>
      Array.from({ length: size }, (_, i) => ({
        customers_id: 0,
        tax_flag: 0,
        external_reference: { source: 'bench', external_id: `O-${from + i}` },
        billing: { firstname: 'Anna', lastname: `Kunde ${from + i}`, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
        products: [{ products_id: 0, products_name: 'Manuell', products_model: `M-${(from + i) % 500}`, quantity: 1 + (i % 3), products_price: '10.00', products_tax: 19 }],
      }));
    const chunk = 5_000;
    for (let from = 0; from < n; from += chunk) {
      const result = await client.create('orders', orders(from, Math.min(chunk, n - from)), { batchSize: 100 });
      const failed = result.outcomes.filter((o) => !o.ok);
      if (failed.length > 0) throw new Error(`seeding orders: ${failed.length} failed, first: ${failed[0]!.error?.message}`);
    }
  } finally {
    await client.close();
  }
}

/** Run the benchmark; returns result lines. */
export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-scale-'));
  const lines: string[] = [];
  try {
    const erpFile = writeCatalog(dir, SIZES.at(-1)!);
    const rows: string[][] = [];
    let rereadPer100k = 0;
    for (const { n, heapMb } of RUNS) {
      const shop = await startShopProcess(join(dir, `shop-${n}-${heapMb ?? 'default'}.sqlite`));
      try {
        const r = await child(['push', String(n), erpFile, shop.url, shop.token, 'reread'], heapMb ? [`--max-old-space-size=${heapMb}`] : []);
        if (n === 100_000) rereadPer100k = r.rereadMs! / 1000;
        const reread = `${(((r.rereadMs! / n) * 100_000) / 1000).toFixed(2)} s`;
        rows.push([`${count(n)}${heapMb ? ` (heap ≤ ${heapMb} MB)` : ''}`, `${(r.ms! / 1000).toFixed(1)} s`, count((n / r.ms!) * 1000), `${((r.ms! / n) * 1000).toFixed(0)} µs`, `${((r.cpuMs! / n) * 1000).toFixed(0)} µs`, `${count(r.peakRssMb!)} MB`, `${(r.stateBytes! / 1024 / 1024).toFixed(1)} MB`, reread]);
      } finally {
        await shop.close();
      }
    }
    lines.push(`scale curve: shopsync defaults pushing catalog products into a loopback sandbox (own process, SQLite file); each size in a fresh process${QUICK ? ' [BENCH_QUICK sizes]' : ''}`);
    lines.push(...table(['products', 'time', 'records/s', 'per record', 'shopsync CPU per record', 'peak RSS (push, re-read)', 'state size', 'no-change re-read per 100k'], rows));
    lines.push(`no-change full re-read (cursor reset, hash compare, 0 requests) at 100k: ${rereadPer100k.toFixed(2)} s per 100,000 records`);

    const shop = await startShopProcess(join(dir, 'shop-orders.sqlite'));
    try {
      await seedOrders(shop.url, shop.token, ORDERS);
      const r = await child(['pull', shop.url, shop.token]);
      lines.push(`pull of ${count(r.n!)} orders (1 line each, shipped orders-to-erp mapping) into the ERP's SQLite order import: ${(r.ms! / 1000).toFixed(1)} s = ${count((r.n! / r.ms!) * 1000)} records/s, ${count(r.requests!)} requests, peak RSS ${count(r.peakRssMb!)} MB`);
    } finally {
      await shop.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
