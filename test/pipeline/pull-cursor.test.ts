/**
 * The pull's delta cursor against records dated in the future (bad data or a clock skew between
 * shop and ERP): they are delivered, but the cursor never moves past the run's start, so records
 * created afterwards stay visible to the next run.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { deltaCeiling } from '../../src/pipeline/pull.js';
import { parseDefinition } from '../../src/pipeline/run.js';
import { mappingFile, pushFixture, type PushFixture } from './support.js';

let f: PushFixture;
let db: Database.Database;
let sinkFile: string;
beforeEach(async () => {
  f = await pushFixture();
  sinkFile = join(f.dir, 'erp-in.sqlite');
  db = new Database(sinkFile);
});
afterEach(async () => {
  db.close();
  await f.close();
});

/** Move the sandbox's clock (a shop whose clock runs ahead, or records written with a wrong date). */
async function advanceShopClock(seconds: number): Promise<void> {
  const res = await fetch(`${f.sandbox.url}/sandbox/clock`, { method: 'PUT', headers: { authorization: `Bearer ${f.sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ advance_seconds: seconds }) });
  expect(res.ok).toBe(true);
}

const DAY = 86_400;
const today = () => new Date().toISOString().slice(0, 10);
const sink = (table: string) => () => createSink({ kind: 'sqlite', path: sinkFile }, { table, key: 'id' }, { logger: silentLogger, baseDir: '/' });

describe('pull cursor and records dated in the future', () => {
  const ORDERS_OUT = `
name: shop-orders
direction: shop-to-erp
source: { resource: orders }
target: { erp: erp_orders }
key: orders_id
fields:
  id: orders_id
  purchased: date_purchased
  external_id: external_reference.external_id
`;
  const order = (ext: string, purchased?: string) => ({
    customers_id: 0,
    auto_stock: false,
    ...(purchased ? { date_purchased: purchased } : {}),
    billing: { firstname: 'A', lastname: 'B', street_address: 'S 1', postcode: '1', city: 'C', country_iso_code_2: 'DE' },
    products: [{ products_model: 'X-1', quantity: 1, products_price: 1 }],
    external_reference: { source: 'erp', external_id: ext },
  });

  it('still sees orders placed after an order whose purchase date lies in the future', async () => {
    db.exec('CREATE TABLE erp_orders (id INTEGER PRIMARY KEY, purchased TEXT, external_id TEXT)');
    const mapping = await mappingFile(f.dir, 'orders-out', ORDERS_OUT);
    const def = { name: 'orders-out', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'orders-out.yaml', resource: 'orders' };
    const warnings: string[] = [];
    const logger = createLogger({ destination: new Writable({ write: (chunk: Buffer, _e, done) => void (warnings.push(...chunk.toString().split('\n').filter((l) => l.includes('"level":40'))), done()) }) });
    const deps = { state: f.state, shop: f.shop, mapping, sink: sink('erp_orders'), logger };
    const future = new Date(Date.now() + 30 * DAY * 1000).toISOString().slice(0, 10);
    expect((await f.shop.create('orders', [order('E-PAST', '2026-01-05 09:00:00'), order('E-FUTURE', `${future} 12:00:00`)])).outcomes.every((o) => o.ok)).toBe(true);

    const first = await runPipeline(def, deps);
    expect(first.counts).toMatchObject({ read: 2, created: 2 });
    // Delivered, but the cursor stays at or before the run's start.
    expect(String((await f.state.cursors.get('orders-out'))!.value).slice(0, 10) <= today()).toBe(true);
    // The bad date is reported once, when the order is delivered.
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ records: 1, field: 'date_purchased' });

    expect((await f.shop.create('orders', [order('E-TODAY')])).outcomes[0]!.ok).toBe(true);
    const second = await runPipeline(def, deps);
    expect(second.counts).toMatchObject({ created: 1 });
    const externals = (db.prepare('SELECT external_id FROM erp_orders ORDER BY id').all() as { external_id: string }[]).map((r) => r.external_id);
    expect(externals).toEqual(['E-PAST', 'E-FUTURE', 'E-TODAY']);
    // The future order is re-read every run until its day comes, and dropped by its hash.
    const third = await runPipeline(def, deps);
    expect(third.counts).toMatchObject({ created: 0 });
    expect(third.counts.unchanged).toBeGreaterThanOrEqual(2);
    expect(warnings).toHaveLength(1);
  });

  it('still sees subscribers changed after one whose last_modified a fast shop clock put ahead', async () => {
    db.exec('CREATE TABLE erp_subscribers (id INTEGER PRIMARY KEY, email TEXT)');
    const mapping = await mappingFile(f.dir, 'subscribers', 'name: s\ndirection: shop-to-erp\nsource: { resource: newsletter_subscribers }\ntarget: { erp: erp_subscribers }\nkey: subscribe_id\nfields:\n  id: subscribe_id\n  email: subscribe_email\n');
    const def = { name: 'subscribers-in', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'subscribers.yaml', resource: 'newsletter_subscribers' };
    const deps = { state: f.state, shop: f.shop, mapping, sink: sink('erp_subscribers') };
    await advanceShopClock(40 * DAY);
    expect((await f.shop.create('newsletter_subscribers', [{ subscribe_email: 'ahead@example.com' }])).outcomes[0]!.ok).toBe(true);
    await advanceShopClock(-40 * DAY);

    expect((await runPipeline(def, deps)).counts).toMatchObject({ read: 1, created: 1 });
    expect((await f.shop.create('newsletter_subscribers', [{ subscribe_email: 'later@example.com' }])).outcomes[0]!.ok).toBe(true);
    expect((await runPipeline(def, deps)).counts).toMatchObject({ created: 1, unchanged: 1 });
    expect((db.prepare('SELECT email FROM erp_subscribers ORDER BY id').all() as { email: string }[]).map((r) => r.email)).toEqual(['ahead@example.com', 'later@example.com']);
  });

  it('still sees projects changed after one with a future last_modified timestamp', async () => {
    db.exec('CREATE TABLE erp_projects (id INTEGER PRIMARY KEY, name TEXT)');
    const mapping = await mappingFile(f.dir, 'projects', 'name: p\ndirection: shop-to-erp\nsource: { resource: projects }\ntarget: { erp: erp_projects }\nkey: project_id\nfields:\n  id: project_id\n  name: name\n');
    const def = { name: 'projects-in', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'projects.yaml', resource: 'projects', options: { shopTimeZone: 'UTC' } };
    const deps = { state: f.state, shop: f.shop, mapping, sink: sink('erp_projects') };
    await advanceShopClock(3 * DAY);
    expect((await f.shop.create('projects', [{ name: 'Ahead' }])).outcomes[0]!.ok).toBe(true);
    await advanceShopClock(-3 * DAY);

    expect((await runPipeline(def, deps)).counts).toMatchObject({ read: 1, created: 1 });
    expect(String((await f.state.cursors.get('projects-in'))!.value) <= deltaCeiling(new Date(), 'UTC')).toBe(true);
    expect((await f.shop.create('projects', [{ name: 'Later' }])).outcomes[0]!.ok).toBe(true);
    expect((await runPipeline(def, deps)).counts).toMatchObject({ created: 1, unchanged: 1 });
    expect((db.prepare('SELECT name FROM erp_projects ORDER BY id').all() as { name: string }[]).map((r) => r.name)).toEqual(['Ahead', 'Later']);
  });

  it('pulls a cursor stored in the future by an earlier version back to the run start', async () => {
    db.exec('CREATE TABLE erp_subscribers (id INTEGER PRIMARY KEY, email TEXT)');
    const mapping = await mappingFile(f.dir, 'subscribers', 'name: s\ndirection: shop-to-erp\nsource: { resource: newsletter_subscribers }\ntarget: { erp: erp_subscribers }\nkey: subscribe_id\nfields:\n  id: subscribe_id\n  email: subscribe_email\n');
    const def = { name: 'subscribers-in', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'subscribers.yaml', resource: 'newsletter_subscribers' };
    await f.state.cursors.set('subscribers-in', 'incremental', { value: '2099-12-31 00:00:00', key: null });
    expect((await f.shop.create('newsletter_subscribers', [{ subscribe_email: 'now@example.com' }])).outcomes[0]!.ok).toBe(true);
    expect((await runPipeline(def, { state: f.state, shop: f.shop, mapping, sink: sink('erp_subscribers') })).counts).toMatchObject({ read: 1, created: 1 });
    expect(String((await f.state.cursors.get('subscribers-in'))!.value).slice(0, 10) <= today()).toBe(true);
  });
});

describe('delta ceiling', () => {
  const at = new Date('2026-03-04T10:20:30Z');
  it('is the shop wall clock at the run start (less a skew allowance) when the shop time zone is known', () => {
    expect(deltaCeiling(at, 'UTC')).toBe('2026-03-04 10:10:30');
    expect(deltaCeiling(at, 'Europe/Berlin')).toBe('2026-03-04 11:10:30');
    expect(deltaCeiling(at, 'America/New_York')).toBe('2026-03-04 05:10:30');
  });
  it('never lies above a wall-clock time the shop writes later, so the hour repeated in autumn is read', () => {
    // Europe/Berlin, 2026-10-25 01:00 UTC: 03:00 CEST becomes 02:00 CET, and 02:00-03:00 comes again.
    // A cursor stored at 02:45 (first pass) would hide every change stamped 02:00-02:45 (second pass).
    expect(deltaCeiling(new Date('2026-10-25T00:55:00Z'), 'Europe/Berlin') <= '2026-10-25 02:00:00').toBe(true);
    expect(deltaCeiling(new Date('2026-10-25T01:20:00Z'), 'Europe/Berlin')).toBe('2026-10-25 02:10:00');
    // Spring (2026-03-29 01:00 UTC, 02:00 CET becomes 03:00 CEST) and ordinary hours: the wall clock less the allowance.
    expect(deltaCeiling(new Date('2026-03-29T00:50:00Z'), 'Europe/Berlin')).toBe('2026-03-29 01:40:00');
    expect(deltaCeiling(new Date('2026-03-29T01:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29 03:20:00');
  });
  it('assumes the earliest time zone when the shop time zone is unknown', () => {
    expect(deltaCeiling(at)).toBe('2026-03-03 22:10:30');
  });
  it('refuses a shop time zone that is not an IANA name', () => {
    const def = { name: 'p', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'm.yaml', resource: 'orders' };
    expect(parseDefinition({ ...def, options: { shopTimeZone: 'Europe/Berlin' } }).options.shopTimeZone).toBe('Europe/Berlin');
    expect(() => parseDefinition({ ...def, options: { shopTimeZone: 'Mars/Olympus' } })).toThrow(/options\.shopTimeZone: expected an IANA time zone.*Mars\/Olympus/);
  });
});
