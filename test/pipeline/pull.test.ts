import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { ConnectorError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { deltaFilterValue } from '../../src/pipeline/pull.js';
import { mappingFile, pushFixture, type PushFixture } from './support.js';

const MAPPING = `
name: shop-subscribers
direction: shop-to-erp
source: { resource: newsletter_subscribers }
target: { erp: erp_subscribers }
key: subscribe_id
fields:
  id: subscribe_id
  email: subscribe_email
  lastname: subscribe_lastname
  modified: subscribe_last_modified
`;

const def = { name: 'subscribers-in', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'subscribers.yaml', resource: 'newsletter_subscribers' };

let f: PushFixture;
let mapping: CompiledMapping;
let sinkDb: Database.Database;
let sinkFile: string;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'subscribers', MAPPING);
  sinkFile = join(f.dir, 'erp-in.sqlite');
  sinkDb = new Database(sinkFile);
  sinkDb.exec('CREATE TABLE erp_subscribers (id INTEGER PRIMARY KEY, email TEXT, lastname TEXT, modified TEXT)');
});
afterEach(async () => {
  sinkDb.close();
  await f.close();
});

const sink = () => createSink({ kind: 'sqlite', path: sinkFile }, { table: 'erp_subscribers', key: 'id' }, { logger: silentLogger, baseDir: '/' });
const deps = () => ({ state: f.state, shop: f.shop, mapping, sink });
const rows = () => sinkDb.prepare('SELECT * FROM erp_subscribers ORDER BY id').all() as { id: number; email: string; lastname: string }[];

async function subscribe(email: string, lastname: string): Promise<number> {
  const r = await f.shop.create('newsletter_subscribers', [{ subscribe_email: email, subscribe_lastname: lastname }]);
  expect(r.outcomes[0]!.ok).toBe(true);
  return r.outcomes[0]!.data!.subscribe_id as number;
}

describe('pull pipeline (shop → ERP)', () => {
  it('delivers every record exactly once when the sink fails half-way: the committed batch is not repeated, the rest follows next run', async () => {
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await subscribe(`s${n}@example.com`, `S${n}`));
    const writes: string[][] = [];
    let failSecond = true;
    const flaky = async () => {
      const real = await sink();
      return {
        kind: real.kind,
        close: () => real.close(),
        async write(batch: Parameters<typeof real.write>[0]) {
          if (writes.length === 1 && failSecond) {
            failSecond = false;
            throw new ConnectorError('CONNECTOR_UNREACHABLE', 'the ERP database went away', { connector: 'sqlite' });
          }
          writes.push(batch.records.map((r) => String(r.email)));
          await real.write(batch);
        },
      };
    };
    const halfDef = { ...def, options: { sinkBatchSize: 2 } };
    const failed = await runPipeline(halfDef, { ...deps(), sink: flaky });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'CONNECTOR_UNREACHABLE' } });
    expect(rows()).toHaveLength(2);
    expect(await f.state.cursors.get('subscribers-in')).toBeUndefined();

    const next = await runPipeline(halfDef, { ...deps(), sink: flaky });
    expect(next.status).toBe('succeeded');
    expect(rows().map((r) => r.email).sort()).toEqual(['s1@example.com', 's2@example.com', 's3@example.com', 's4@example.com', 's5@example.com']);
    // The first batch was committed before the failure: the second run does not write it again.
    expect(writes.flat().filter((e) => e === writes[0]![0])).toHaveLength(1);
    expect(writes.flat()).toHaveLength(5);
  });

  it('delivers a boundary record changed twice on the same day once, in its latest version', async () => {
    const a = await subscribe('a@example.com', 'First');
    await subscribe('b@example.com', 'Bee');
    const first = await runPipeline(def, deps());
    expect(first.counts).toMatchObject({ read: 2, created: 2 });
    const cursor = (await f.state.cursors.get('subscribers-in'))!.value as string;
    expect(cursor).toMatch(/^\d{4}-\d{2}-\d{2}/);

    await f.shop.update('newsletter_subscribers', [{ subscribe_id: a, subscribe_lastname: 'Second' }]);
    await f.shop.update('newsletter_subscribers', [{ subscribe_id: a, subscribe_lastname: 'Third' }]);
    const second = await runPipeline(def, deps());
    // The day filter re-reads both records of the boundary day; only the changed one is delivered.
    expect(second.counts).toMatchObject({ read: 2, created: 0, updated: 1, unchanged: 1 });
    const delivered = await f.state.events.list({ runId: second.runId, outcome: 'delivered' });
    expect(delivered.map((e) => e.erpKey)).toEqual([String(a)]);
    expect(rows().find((r) => r.id === a)?.lastname).toBe('Third');

    const third = await runPipeline(def, deps());
    expect(third.counts).toMatchObject({ read: 2, created: 0, updated: 0, unchanged: 2 });
  });

  it('leaves the cursor where it was when the sink fails, and delivers on the next run', async () => {
    await subscribe('a@example.com', 'A');
    await runPipeline(def, deps());
    const before = await f.state.cursors.get('subscribers-in');
    await fetch(`${f.sandbox.url}/sandbox/clock`, { method: 'PUT', headers: { authorization: `Bearer ${f.sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ advance_seconds: 86_400 }) });
    const c = await subscribe('c@example.com', 'C');
    sinkDb.exec('ALTER TABLE erp_subscribers RENAME TO erp_subscribers_moved');
    const failed = await runPipeline(def, deps());
    expect(failed.status).toBe('failed');
    expect(await f.state.cursors.get('subscribers-in')).toEqual(before);
    expect(await f.state.seen.get('subscribers-in', String(c))).toBeUndefined();

    sinkDb.exec('ALTER TABLE erp_subscribers_moved RENAME TO erp_subscribers');
    const retried = await runPipeline(def, deps());
    expect(retried.status).toBe('succeeded');
    expect(rows().map((r) => r.email)).toContain('c@example.com');
    // The shop's clock runs a day ahead here: the cursor may not pass our own clock, so it stays at or after where it was.
    expect(String((await f.state.cursors.get('subscribers-in'))!.value) >= String(before!.value)).toBe(true);
  });

  it('writes nothing in a dry run but lists what it would deliver', async () => {
    await subscribe('a@example.com', 'A');
    const summary = await runPipeline(def, deps(), { mode: 'dry-run' });
    expect(summary.plan).toMatchObject([{ action: 'create', payload: { email: 'a@example.com' } }]);
    expect(rows()).toEqual([]);
    expect(await f.state.runs.list()).toEqual([]);
    expect(await f.state.cursors.get('subscribers-in')).toBeUndefined();
  });

  it('counts a re-delivery of a changed record as updated, in the dry-run plan and its summary alike', async () => {
    const a = await subscribe('a@example.com', 'First');
    await runPipeline(def, deps());
    await f.shop.update('newsletter_subscribers', [{ subscribe_id: a, subscribe_lastname: 'Second' }]);
    await subscribe('b@example.com', 'Bee');
    const summary = await runPipeline(def, deps(), { mode: 'dry-run' });
    const actions = (summary.plan ?? []).map((p) => p.action);
    expect(actions.filter((x) => x === 'update')).toHaveLength(1);
    expect(actions.filter((x) => x === 'create')).toHaveLength(1);
    expect(summary.counts).toMatchObject({ created: 1, updated: 1 });
    const real = await runPipeline(def, deps());
    expect(real.counts).toMatchObject({ created: 1, updated: 1 });
  });
});

describe('delta filter values', () => {
  it('re-reads the boundary day for day-granular filters', () => {
    expect(deltaFilterValue('2026-03-04 17:05:00', 'day', 0)).toBe('2026-03-04');
    expect(deltaFilterValue('2026-03-04 17:05:00', 'day', 2)).toBe('2026-03-02');
  });
  it('keeps the timestamp for timestamp filters (the boundary second is re-read and dropped by hash)', () => {
    expect(deltaFilterValue('2026-03-04 17:05:00', 'timestamp', 0)).toBe('2026-03-04 17:05:00');
    expect(deltaFilterValue('2026-03-04 17:05:00', 'timestamp', 1)).toBe('2026-03-03 00:00:00');
  });
});

const PRODUCTS_OUT = `
name: shop-products
direction: shop-to-erp
source: { resource: products }
target: { erp: erp_products }
key: products_id
fields:
  id: products_id
  model: products_model
  price: products_price
`;

describe('pull without a delta filter', () => {
  let productSink: string;
  let db: Database.Database;
  let out: CompiledMapping;
  const productsDef = { name: 'products-out', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'products-out.yaml', resource: 'products' };
  beforeEach(async () => {
    out = await mappingFile(f.dir, 'products-out', PRODUCTS_OUT);
    productSink = join(f.dir, 'erp-products.sqlite');
    db = new Database(productSink);
    db.exec('CREATE TABLE erp_products (id INTEGER PRIMARY KEY, model TEXT, price REAL)');
    const created = await f.shop.create('products', Array.from({ length: 30 }, (_, i) => ({ products_model: `P-${i + 1}`, products_price: 10 + i })));
    expect(created.outcomes.every((o) => o.ok)).toBe(true);
  });
  afterEach(() => db.close());
  const productDeps = () => ({ state: f.state, shop: f.shop, mapping: out, sink: () => createSink({ kind: 'sqlite', path: productSink }, { table: 'erp_products', key: 'id' }, { logger: silentLogger, baseDir: '/' }) });

  it('scans the whole list and delivers only records whose content changed', async () => {
    expect((await runPipeline(productsDef, productDeps())).counts).toMatchObject({ read: 30, created: 30, updated: 0 });
    expect((await runPipeline(productsDef, productDeps())).counts).toMatchObject({ read: 30, created: 0, unchanged: 30 });
    await f.shop.update('products', [{ products_model: 'P-7', products_price: 99 }]);
    const third = await runPipeline(productsDef, productDeps());
    // P-7 was delivered before: its new version is an update, not a creation.
    expect(third.counts).toMatchObject({ read: 30, created: 0, updated: 1, unchanged: 29 });
    expect(db.prepare('SELECT price FROM erp_products WHERE model = ?').get('P-7')).toEqual({ price: 99 });
  });

  it('back-fills an id range ({start}:{end}) with its own checkpoint, leaving the incremental state alone', async () => {
    const summary = await runPipeline(productsDef, productDeps(), { mode: 'backfill', range: { from: 5, to: 12 } });
    expect(summary.counts).toMatchObject({ read: 8, created: 8 });
    expect((db.prepare('SELECT id FROM erp_products ORDER BY id').all() as { id: number }[]).map((r) => r.id)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await f.state.cursors.get('products-out', 'backfill:5..12')).toMatchObject({ value: 12, boundary: { finished: true } });
    expect(await f.state.cursors.get('products-out')).toBeUndefined();
    const again = await runPipeline(productsDef, productDeps(), { mode: 'backfill', range: { from: 5, to: 12 } });
    expect(again.counts.read).toBe(0);
  });
});

describe('pull of orders by purchase date', () => {
  const ORDERS_OUT = `
name: shop-orders
direction: shop-to-erp
source: { resource: orders }
target: { erp: erp_orders }
key: orders_id
fields:
  id: orders_id
  purchased: date_purchased
  external_id: { from: external_reference.external_id, required: true }
`;
  it('back-fills a date range with date_from/date_to and dead-letters a record the mapping refuses', async () => {
    const out = await mappingFile(f.dir, 'orders-out', ORDERS_OUT);
    const file = join(f.dir, 'erp-orders.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE erp_orders (id INTEGER PRIMARY KEY, purchased TEXT, external_id TEXT)');
    const order = (day: string, ext?: string) => ({
      customers_id: 0,
      auto_stock: false,
      date_purchased: `${day} 12:00:00`,
      billing: { firstname: 'A', lastname: 'B', street_address: 'S 1', postcode: '1', city: 'C', country_iso_code_2: 'DE' },
      products: [{ products_model: 'X-1', quantity: 1, products_price: 1 }],
      ...(ext ? { external_reference: { source: 'erp', external_id: ext } } : {}),
    });
    for (const [day, ext] of [['2026-01-01', 'E1'], ['2026-01-02', 'E2'], ['2026-01-03', undefined], ['2026-01-04', 'E4']] as const) {
      const r = await f.shop.create('orders', [order(day, ext)]);
      expect(r.outcomes[0]!.ok, JSON.stringify(r.outcomes[0]!.error)).toBe(true);
    }
    const summary = await runPipeline(
      { name: 'orders-out', direction: 'pull', sink: { connection: 'erp' }, mapping: 'orders-out.yaml', resource: 'orders' },
      { state: f.state, shop: f.shop, mapping: out, sink: () => createSink({ kind: 'sqlite', path: file }, { table: 'erp_orders', key: 'id' }, { logger: silentLogger, baseDir: '/' }) },
      { mode: 'backfill', range: { from: '2026-01-02', to: '2026-01-03' } },
    );
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 2, created: 1, deadLettered: 1 } });
    expect((db.prepare('SELECT external_id FROM erp_orders').all() as { external_id: string }[]).map((r) => r.external_id)).toEqual(['E2']);
    expect(await f.state.deadLetters.list({ pipeline: 'orders-out' })).toHaveLength(1);
    expect(await f.state.cursors.get('orders-out')).toBeUndefined();
    db.close();
  });
});
