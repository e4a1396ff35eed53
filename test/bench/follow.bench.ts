/**
 * Following orders after checkout (issue 44): requests a day for a shop taking 2,000 orders a day
 * whose orders are followed for 14 days, against the new-order pull alone.
 *
 * The shop (the sandbox in a process of its own) holds 15 days of orders in a steady state (today
 * half full): the lifecycle below gives each order its status for its age. An orders pull
 * delivers them all (first run, with follow's first pass), then each "hour" the shop changes the
 * statuses an hour brings (~2 per order in its life, cancellations, returns), and the runs are
 * measured by the shop's own request count (GET /sandbox/traffic):
 * - delta only: a run between follow passes (the pull every 2 minutes reads today and yesterday);
 * - delta + follow pass: the same plus the pass; the pass alone is the difference;
 * - a rolling window for comparison: the 14 days read again in pages every pass.
 * Two configs of final statuses: `until: [4, 5]` (cancelled, returned: shipped orders are followed
 * for returns until maxAgeDays) and `until: [3, 4, 5]` (shipped is final too: returns after
 * shipping are not seen). BENCH_QUICK=1: 200 orders a day.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSink } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState } from '../../src/state/index.js';
import { median, QUICK, table } from './support/report.js';
import { startShopProcess, type ShopProcess } from './support/shop.js';

const PER_DAY = QUICK ? 200 : 2_000;
const DAYS = 15;
const AGE_DAYS = 14;
const HOURS = 3;
const PULLS_PER_DAY = 720; // every 2 minutes
const PASSES_PER_DAY = 24; // follow.every: 1h

const MAPPING = `
name: follow-bench
direction: shop-to-erp
source: { resource: orders }
target: { erp: erp_orders }
key: orders_id
fields:
  id: { from: orders_id, type: integer }
  status: { from: orders_status, type: integer }
  changes:
    each: _changes
    fields:
      order_id: { from: $root.orders_id, type: integer }
      seq: { from: seq, type: integer }
      kind: kind
      status: { from: status, type: integer }
`;

/** A day's date `back` days before today (UTC), as the shop writes it. */
function day(back: number): string {
  return new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
}

/** A deterministic pseudo-random number in [0, 1) for order n and a salt. */
function rnd(n: number, salt: number): number {
  const x = Math.sin(n * 12.9898 + salt * 78.233) * 43758.5453;
  return x - Math.floor(x);
}

/** The status of order n at age `age` days (the lifecycle): pending, processing, shipped; 5 % cancelled early; 2 % of the shipped returned after 5 days. */
function statusAt(n: number, age: number): number {
  if (rnd(n, 1) < 0.05 && age >= 1) return 4;
  if (age === 0) return rnd(n, 2) < 0.7 ? 1 : 2;
  if (age === 1) return rnd(n, 3) < 0.4 ? 2 : 3;
  if (age >= 5 && rnd(n, 4) < 0.02) return 5;
  return 3;
}

interface Seeded {
  /** orders_id → [placement age in days, order number n]. */
  readonly orders: Map<number, { age: number; n: number; status: number }>;
}

async function seed(client: ShopClient): Promise<Seeded> {
  const orders = new Map<number, { age: number; n: number; status: number }>();
  let n = 0;
  for (let age = DAYS - 1; age >= 0; age--) {
    const count = age === 0 ? PER_DAY / 2 : PER_DAY;
    for (let start = 0; start < count; start += 100) {
      const batch = [];
      const meta: { n: number; status: number }[] = [];
      for (let k = start; k < Math.min(count, start + 100); k++) {
        n++;
        const status = statusAt(n, age);
        const seconds = Math.floor((k / count) * (age === 0 ? 43_000 : 86_000));
        const time = `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
        batch.push({
          customers_id: 0,
          auto_stock: false,
          date_purchased: `${day(age)} ${time}`,
          orders_status: status,
          billing: { firstname: 'A', lastname: `B${n}`, street_address: 'S 1', postcode: '1', city: 'C', country_iso_code_2: 'DE' },
          products: [{ products_model: `ART-${n % 500}`, quantity: 1, products_price: 10 }],
          external_reference: { source: 'bench', external_id: `F-${n}` },
          ...(status === 5 ? { tracking: [{ service_provider: 'DHL', code: `R-${n}`, is_retoure: true }] } : {}),
        });
        meta.push({ n, status });
      }
      const res = await client.create('orders', batch as never);
      for (const o of res.outcomes) {
        const m = meta[o.index]!;
        if (!o.ok) throw new Error(`seeding order ${m.n} failed: ${o.error?.message ?? 'no answer'}`);
        orders.set(Number(o.data?.orders_id), { age, n: m.n, status: m.status });
      }
    }
  }
  return { orders };
}

/** One hour of the shop's own changes: ~2 status changes per order over its first 3 days, cancellations, returns of shipped orders. */
async function hourOfChanges(client: ShopClient, s: Seeded, hour: number): Promise<number> {
  const updates: Record<string, unknown>[] = [];
  for (const [id, o] of s.orders) {
    if (o.status === 4 || o.status === 5) continue;
    const r = rnd(o.n, 100 + hour);
    let next: number | undefined;
    if (o.age <= 2 && o.status < 3 && r < 2 / 72) next = o.status + 1;
    else if (o.age <= 2 && r > 1 - 0.05 / 72) next = 4;
    else if (o.age >= 5 && o.status === 3 && r < 0.02 / (24 * 9)) next = 5;
    if (next === undefined) continue;
    o.status = next;
    updates.push({ orders_id: id, orders_status: next, comments: `hour ${hour}`, ...(next === 5 ? { tracking: [{ service_provider: 'DHL', code: `R-${o.n}`, is_retoure: true }] } : {}) });
  }
  for (let i = 0; i < updates.length; i += 100) {
    const res = await client.update('orders', updates.slice(i, i + 100) as never);
    if (res.outcomes.some((o) => !o.ok)) throw new Error('a status change of the bench shop failed');
  }
  return updates.length;
}

interface Variant {
  readonly label: string;
  readonly until: readonly number[];
  first: number;
  delta: number[];
  withPass: number[];
  changes: number;
}

export async function bench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-follow-'));
  const shop: ShopProcess = await startShopProcess();
  const client = createShopClient({ baseUrl: shop.url, auth: { kind: 'token', token: shop.token }, retry: { retries: 5, baseDelayMs: 50, maxDelayMs: 1000 } });
  const out: string[] = [];
  try {
    const seeded = await seed(client);
    writeFileSync(join(dir, 'follow-bench.yaml'), MAPPING);
    const mapping = await loadMapping(join(dir, 'follow-bench.yaml'));
    const variants: Variant[] = [
      { label: 'until [4, 5] (returns seen)', until: [4, 5], first: 0, delta: [], withPass: [], changes: 0 },
      { label: 'until [3, 4, 5] (shipped final)', until: [3, 4, 5], first: 0, delta: [], withPass: [], changes: 0 },
    ];
    let hour = 0;
    for (const [i, v] of variants.entries()) {
      const erpFile = join(dir, `erp-${i}.sqlite`);
      const erp = new Database(erpFile);
      erp.exec('CREATE TABLE erp_orders (id INTEGER PRIMARY KEY, status INTEGER); CREATE TABLE erp_order_changes (order_id INTEGER, seq INTEGER, kind TEXT, status INTEGER, PRIMARY KEY (order_id, seq))');
      erp.close();
      const state = await openState(join(dir, `state-${i}.db`));
      const sink = () => createSink({ kind: 'sqlite', path: erpFile }, { table: 'erp_orders', key: 'id', children: [{ field: 'changes', table: 'erp_order_changes', key: ['order_id', 'seq'], parentKey: 'order_id', append: true }] }, { logger: silentLogger, baseDir: '/' });
      const deps = { state, shop: client, mapping, sink, logger: silentLogger };
      const def = (every: string) => ({ name: `orders-${i}`, direction: 'pull' as const, resource: 'orders', mapping: 'follow-bench.yaml', sink: { connection: 'erp' }, options: { overlapDays: 1 }, follow: { every, until: [...v.until], cancelled: [4], returned: [5], maxAgeDays: AGE_DAYS } });
      const requests = async (every: string): Promise<number> => {
        const before = (await shop.traffic()).requests;
        const run = await runPipeline(def(every), deps);
        if (run.status !== 'succeeded') throw new Error(`the bench pull ended ${run.status}: ${run.error?.code} ${run.error?.message}`);
        return (await shop.traffic()).requests - before;
      };
      v.first = await requests('0s');
      for (let h = 0; h < HOURS; h++) {
        v.changes += await hourOfChanges(client, seeded, hour++);
        v.delta.push(await requests('1d'));
        v.changes += await hourOfChanges(client, seeded, hour++);
        v.withPass.push(await requests('0s'));
      }
      await state.close();
    }
    // The rolling window a follow replaces: the age window's orders in pages, every pass.
    const before = (await shop.traffic()).requests;
    for await (const _page of client.exportPages('orders', { filters: { date_from: day(AGE_DAYS) } })) void _page;
    const rolling = (await shop.traffic()).requests - before;

    const deltaMedian = median(variants[0]!.delta);
    const pullDay = deltaMedian * PULLS_PER_DAY;
    out.push(
      `${PER_DAY.toLocaleString('en-US')} orders a day, ${DAYS} days in the shop (${seeded.orders.size.toLocaleString('en-US')} orders), followed ${AGE_DAYS} days; the pull every 2 minutes (${PULLS_PER_DAY} runs a day, today half full), a follow pass every hour (${PASSES_PER_DAY} a day); requests counted by the shop`,
      ...table(
        ['strategy', 'requests a pass', 'a day', 'vs the new-order pull alone'],
        [
          ['new-order pull alone (delta run)', String(deltaMedian), String(pullDay), '1.00×'],
          ...variants.map((v) => {
            const pass = median(v.withPass) - median(v.delta);
            return [`follow ${v.label}`, String(pass), String(pass * PASSES_PER_DAY), `+${((pass * PASSES_PER_DAY) / pullDay).toFixed(2)}×`];
          }),
          ['rolling window (14 days in pages, each pass)', String(rolling), String(rolling * PASSES_PER_DAY), `+${((rolling * PASSES_PER_DAY) / pullDay).toFixed(2)}×`],
        ],
      ),
      ...variants.map((v) => `${v.label}: first run (delivers everything, first pass adopts the age window) ${v.first} requests; ${v.changes} shop-side changes over ${HOURS * 2} hours; delta runs ${v.delta.join(', ')}; delta + pass ${v.withPass.join(', ')}`),
    );
  } finally {
    await client.close();
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
