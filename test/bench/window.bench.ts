/**
 * The remaining window (issue 43): the shop books an order's stock on create, and the API has no
 * conditional update, so an order placed during a stock run *after* the run read the shop's orders
 * (its refresh) is not in that run's reservations: a write of that article after the order sets the
 * ERP's figure less the orders known at the refresh, one order too high. The window is the time from
 * the refresh to each write of the run. Measured here per write: refresh end (the answer of the
 * last orders read before the run's first product write, seen by a proxy in front of the shop) to
 * the shop storing the write (the sandbox's own clock, its process, same machine).
 *
 * The shop: the sandbox in a process of its own, 50 ms per request and 20 requests a second (429
 * beyond), shopsync's client fixed at 20/s, batches of 50, as the latency benchmark. An ERP (SQLite)
 * of N products and the ERP's booking table; the pipeline `stock` with `reservations:` and
 * `stock: reserved`. Changes arrive at 20 a second (stock of one product each). Variants:
 * (a) a 60 s schedule: each run carries the 1,200 changes of its minute; (b) a 10 s schedule: 200
 * a run; (c) triggers (debounce 1 s): a run every second with that second's 20 changes. The runs
 * are started in-process the way the schedule and the trigger start them (runtime.run), so only
 * the run itself is timed, not the waiting between runs. Then (d) the window shown: an order placed
 * while a 1,200-change run writes, for the article the run writes last, and what the shop shows
 * after that run and after the next one. BENCH_QUICK=1: 2,000 products and fewer runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { createShopClient } from '../../src/shop/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { QUICK, table } from './support/report.js';
import { quantileOf, startLatencyShop, type LatencyShop } from './support/latency.js';
import { ordersReadProxy, stampNow, STOCK_MAPPING, windowErp, windowSku, type OrdersReadProxy } from './support/window.js';

const N = QUICK ? 2_000 : 10_000;
const PER_SECOND = 20;
const SHOP_LATENCY_MS = 50;
const SHOP_LIMIT = 20;

interface RunWindow {
  readonly writes: number;
  /** ms from the refresh's end to each write the run stored, sorted. */
  readonly windows: number[];
  readonly runMs: number;
}

/** The windows of every run of a variant. */
interface Variant {
  readonly label: string;
  readonly changesPerRun: number;
  readonly runs: RunWindow[];
}

export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-window-'));
  const shop = await startLatencyShop();
  const proxy = await ordersReadProxy(shop.url);
  const erp = windowErp(join(dir, 'erp.sqlite'), N);
  const customer = createShopClient({ baseUrl: shop.url, auth: { kind: 'token', token: shop.token }, rateLimit: { mode: 'fixed', concurrency: 1, intervalCap: 5, intervalMs: 1000 }, retry: { retries: 20, baseDelayMs: 50, maxDelayMs: 1000 } });
  let runtime: Runtime | undefined;
  const out: string[] = [];
  try {
    writeFileSync(join(dir, 'stock.yaml'), STOCK_MAPPING);
    writeFileSync(join(dir, 'shopsync.yaml'), configYaml());
    runtime = await openRuntime(await loadConfig(join(dir, 'shopsync.yaml'), { env: { SHOP_URL: proxy.url, SHOP_TOKEN: shop.token } }), { logger: silentLogger });
    // The first push creates the catalog, without the shop's limits (not measured).
    const first = await runtime.run('stock', { mode: 'sync' });
    if (first.status !== 'succeeded') throw new Error(`the first push ended ${first.status}: ${first.error?.code} ${first.error?.message}`);
    await shop.faults({ latency_ms: SHOP_LATENCY_MS, latency_jitter_ms: 0, error_rate: 0, error_status: 503, rate_limit_per_second: SHOP_LIMIT, reset_rate: 0, reset_after_write_rate: 0 });
    let next = 1;
    const change = (count: number): string[] => {
      const skus: string[] = [];
      const update = erp.prepare('UPDATE products SET qty = qty + 1, updated_at = ? WHERE sku = ?');
      const stamp = stampNow();
      erp.transaction(() => {
        for (let k = 0; k < count; k++) {
          const sku = windowSku(((next++ * 7919) % N) + 1);
          update.run(stamp, sku);
          skus.push(sku);
        }
      })();
      return skus;
    };
    const variants: Variant[] = [];
    for (const [label, perRun, runs] of [
      ['schedule 60 s', 60 * PER_SECOND, QUICK ? 2 : 3],
      ['schedule 10 s', 10 * PER_SECOND, QUICK ? 3 : 6],
      ['triggers (debounce 1 s)', PER_SECOND, QUICK ? 10 : 30],
    ] as const) {
      const v: Variant = { label, changesPerRun: perRun, runs: [] };
      for (let r = 0; r < runs; r++) {
        change(perRun);
        v.runs.push(await timedRun(runtime, shop, proxy));
      }
      variants.push(v);
    }
    out.push(
      `${N.toLocaleString('en-US')} products, changes at ${PER_SECOND}/s; shop ${SHOP_LATENCY_MS} ms a request, ${SHOP_LIMIT} requests/s; window = refresh end → each write stored`,
      ...table(
        ['variant', 'changes a run', 'runs', 'run time p50', 'window p50', 'window p95', 'window max (last write)'],
        variants.map((v) => {
          const all = v.runs.flatMap((r) => r.windows).sort((a, b) => a - b);
          const runMs = v.runs.map((r) => r.runMs).sort((a, b) => a - b);
          return [v.label, String(v.changesPerRun), String(v.runs.length), seconds(quantileOf(runMs, 0.5)), seconds(quantileOf(all, 0.5)), seconds(quantileOf(all, 0.95)), seconds(all.at(-1) ?? NaN)];
        }),
      ),
    );
    out.push(...(await shown(runtime, shop, proxy, customer, erp, change)));
  } finally {
    await runtime?.close();
    await customer.close();
    erp.close();
    await proxy.close();
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

function configYaml(): string {
  return `shop:
  baseUrl: \${SHOP_URL}
  token: \${SHOP_TOKEN}
  rateLimit: { requests: ${SHOP_LIMIT}, intervalMs: 1000, mode: fixed }
  concurrency: 4
  batchSize: 50
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: stock
    direction: push
    resource: products
    mapping: stock.yaml
    batchSize: 50
    source: { connection: erp, query: "SELECT sku, name, price, qty, updated_at FROM products", cursor: updated_at, key: sku }
    reservations:
      booked: { query: "SELECT orders_id FROM erp_bookings WHERE orders_id IN (:orders)" }
      alertAfter: 24h
state:
  path: state.db
`;
}

/** One stock run, and the time from its refresh to each write it stored. */
async function timedRun(runtime: Runtime, shop: LatencyShop, proxy: OrdersReadProxy): Promise<RunWindow> {
  const started = Date.now();
  const t0 = performance.now();
  const summary = await runtime.run('stock', { mode: 'sync' });
  const runMs = performance.now() - t0;
  if (summary.status !== 'succeeded') throw new Error(`a stock run ended ${summary.status}: ${summary.error?.code} ${summary.error?.message}`);
  // The shop's write lines arrive through a pipe: give the last ones a moment.
  await new Promise((r) => setTimeout(r, 100));
  const writes = [...shop.writes.values()].flatMap((list) => list.filter((w) => w.at >= started).map((w) => w.at)).sort((a, b) => a - b);
  if (writes.length === 0) return { writes: 0, windows: [], runMs };
  const refresh = proxy.ordersReads.filter((t) => t >= started && t <= writes[0]!).at(-1);
  if (refresh === undefined) throw new Error('the stock run wrote products without reading the shop\'s orders first: reservations are not in effect');
  return { writes: writes.length, windows: writes.map((w) => w - refresh), runMs };
}

/**
 * The window shown: a run of 1,200 changes; as soon as its first write is stored (after the
 * refresh), a customer buys 1 of the article the run writes last. After the run, and after a next
 * run without any ERP change, what the shop shows against ERP − unbooked.
 */
async function shown(runtime: Runtime, shop: LatencyShop, proxy: OrdersReadProxy, customer: ShopClient, erp: import('better-sqlite3').Database, change: (n: number) => string[]): Promise<string[]> {
  const skus = change(60 * PER_SECOND).sort();
  const target = skus.at(-1)!;
  const started = Date.now();
  const run = runtime.run('stock', { mode: 'sync' });
  while ([...shop.writes.values()].every((list) => list.every((w) => w.at < started))) await new Promise((r) => setTimeout(r, 5));
  const placed = await customer.create('orders', [{ customers_id: 0, auto_stock: true, billing: { firstname: 'Kim', lastname: 'Fenster', street_address: 'Hauptstr. 2', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' }, products: [{ products_model: target, quantity: 1, products_price: 10 }] }]);
  const orderAt = Date.now();
  if (!placed.outcomes[0]?.ok) throw new Error(`the order was refused: ${JSON.stringify(placed.outcomes[0])}`);
  await run;
  const erpQty = (erp.prepare('SELECT qty FROM products WHERE sku = ?').get(target) as { qty: number }).qty;
  const shopQty = async () => {
    for await (const p of customer.exportAll('products', { products_model: target } as never)) if (p.products_model === target) return Number(p.products_quantity);
    return NaN;
  };
  const afterRun = await shopQty();
  const lastWrite = shop.writes.get(target)?.at(-1)?.at ?? NaN;
  const refresh = proxy.ordersReads.filter((t) => t >= started && t <= orderAt).at(-1) ?? NaN;
  const rerun = await runtime.run('stock', { mode: 'sync' });
  const afterNext = await shopQty();
  const limit = erpQty - 1;
  return [
    '',
    `the window shown: an order for 1 × ${target} placed ${seconds(orderAt - refresh)} after the run's refresh; the run wrote ${target} ${seconds(lastWrite - orderAt)} after the order`,
    `  ERP ${erpQty}, unbooked 1 → at most ${limit}; the shop after that run: ${afterRun} (${afterRun > limit ? `${afterRun - limit} too many: the order fell into the window` : 'within'}); after the next run (no ERP change, ${rerun.status}): ${afterNext} (${afterNext > limit ? 'still too many: the next run did not send the article again' : 'corrected'})`,
  ];
}

function seconds(ms: number): string {
  return Number.isNaN(ms) ? 'n/a' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
