/**
 * The way back (issue 44): the shipped ERP → shop order-status push on the sandbox over HTTP never
 * re-opens an order the shop cancelled, reports a status both sides changed with the three values
 * instead of flipping it (unless erp-wins), and sends what only the ERP changed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadConfig, parseConfigText } from '../../src/config/index.js';
import { runDoctor } from '../../src/ops/doctor.js';
import { shopStatusWarnings } from '../../src/follow/guardCheck.js';
import { shopStatusWarning } from '../../src/follow/shopStatus.js';
import type { FollowedRecord } from '../../src/follow/types.js';
import { createLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { nextAutoRetry } from '../../src/pipeline/waitingLetters.js';
import type { StateStore } from '../../src/state/index.js';
import { forEachBackend } from '../state/backends.js';
import { clientFor, pushFixture, setFaults, sqliteSource, tempDir, type PushFixture } from '../pipeline/support.js';

const SOURCE = { query: 'SELECT * FROM auftrag_status ORDER BY Geaendert', cursor: 'Geaendert', key: 'Vorgang' };
const MAPPING = path.resolve('mappings/order-status.yaml');
// Shop statuses (sandbox): 1 pending, 2 processing, 3 shipped, 4 cancelled. ERP: OFFEN 1, IN_ARBEIT 2, VERSANDT 3.
const def = (shopStatus?: Record<string, unknown>) => ({ name: 'order-status', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'order-status.yaml', resource: 'orders', options: { maxAttempts: 1 }, ...(shopStatus ? { shopStatus } : {}) });

let f: PushFixture;
let orderId: number;
let logs: Record<string, unknown>[];
/** The push's state: a SQLite file or a PostgreSQL schema (forEachBackend). */
let state: StateStore;
const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  }),
});

beforeEach(async () => {
  logs = [];
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE auftrag_status (Vorgang TEXT PRIMARY KEY, ShopBestellNr TEXT, Status TEXT, Kommentar TEXT, Kunde_benachrichtigen TEXT, Datum TEXT, Versender TEXT, Sendungsnummer TEXT, Geaendert TEXT NOT NULL)`);
  const o = await f.shop.create('orders', [{ customers_id: 0, tax_flag: 0, external_reference: { source: 'test', external_id: 'O-1' }, billing: { firstname: 'A', lastname: 'B', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' }, products: [{ products_id: 0, products_name: 'Manuell', quantity: 1, products_price: '10.00', products_tax: 19 }] }]);
  expect(o.outcomes[0]!.error).toBeUndefined();
  orderId = o.outcomes[0]!.data!.orders_id as number;
});
afterEach(async () => {
  await f.close();
});

const event = (vorgang: string, status: string, comment: string, at: string) =>
  f.erp.prepare('INSERT OR REPLACE INTO auftrag_status VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(vorgang, String(orderId), status, comment, 'N', '01.12.2026 10:00:00', null, null, at);
const deps = async () => ({ state: state, shop: f.shop, mapping: await loadMapping(MAPPING), source: sqliteSource(f.erpFile, SOURCE), logger });
const run = async (shopStatus?: Record<string, unknown>) => runPipeline(def(shopStatus), await deps());
const shopOrder = async () => (await f.shop.exportOne('orders', orderId))!;
const setShopStatus = async (status: number) => expect((await f.shop.update('orders', [{ orders_id: orderId, orders_status: status }])).outcomes[0]!.error).toBeUndefined();
/** What the ERP was last told of the order: the row a following pull keeps. */
const told = async (status: number) => {
  const row: FollowedRecord = { pipeline: 'orders-in', shop: 'default', key: String(orderId), placedDay: '2026-12-01', status, cancelled: false, snapshot: { status, history: 1, tracking: [], addresses: {}, items: 'i' }, changes: [], firstAt: '2026-12-01T10:00:00.000Z' };
  await state.write((tx) => tx.followed.put(row));
};

forEachBackend('order-status push guard', (backend) => {
  beforeEach(async () => {
    state = await backend.open();
  });


  it('never re-opens an order the shop cancelled after the ERP read it: letter ORDER_CANCELLED_IN_SHOP, the shop still cancelled, status_history unchanged; not retried by syncs, retried by hand with fresh data', async () => {
    await told(1);
    await setShopStatus(4);
    const before = await shopOrder();
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    const first = await run({ cancelled: [4] });
    expect(first).toMatchObject({ status: 'partial', counts: { updated: 0, deadLettered: 1 } });
    // The shop was read (1 request); nothing was written.
    expect(first.counts.requests).toBe(1);
    const after = await shopOrder();
    expect(after.orders_status).toBe(4);
    expect(after.status_history).toEqual(before.status_history);
    const letter = (await state.deadLetters.list({ pipeline: 'order-status' }))[0]!;
    expect(letter.code).toBe('ORDER_CANCELLED_IN_SHOP');
    expect(letter.reason).toContain(`order ${orderId} is cancelled in the shop (status 4)`);
    expect(letter.reason).toContain('the ERP sends status 3');
    expect(letter.reason).toMatch(/Cancel the order in the ERP.*re-open the order in the shop first.*dlq retry/);
    expect(nextAutoRetry(letter)).toBeUndefined();

    // The next sync reads nothing new and leaves the letter alone.
    await run({ cancelled: [4] });
    expect((await state.deadLetters.list({ pipeline: 'order-status' }))[0]!.attempts).toBe(1);
    // A retry by hand reads the shop again: still cancelled, still refused.
    const retried = await retryDeadLetters(def({ cancelled: [4] }), await deps());
    expect(retried.counts).toMatchObject({ deadLettered: 1, updated: 0 });
    expect((await shopOrder()).orders_status).toBe(4);
    // Re-opened in the shop, the retry sends the ERP's status and the letter is gone.
    await setShopStatus(1);
    await told(1);
    expect((await retryDeadLetters(def({ cancelled: [4] }), await deps())).counts).toMatchObject({ updated: 1, deadLettered: 0 });
    expect((await shopOrder()).orders_status).toBe(3);
    expect(await state.deadLetters.list({ pipeline: 'order-status' })).toEqual([]);
  });

  it('sends nothing blind when the shop cannot be read: the run stops before the record, and the next one refuses it', async () => {
    await setShopStatus(4);
    const before = await shopOrder();
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    // Every second request fails; a request now takes the passing turn, so the guard's read is the one that fails (no client retry).
    const once = clientFor(f.sandbox, { retry: { retries: 0 } });
    await setFaults(f.sandbox, { error_rate: 0.5, error_status: 503 });
    await once.exportOne('orders', orderId);
    const failed = await runPipeline(def({ cancelled: [4] }), { ...(await deps()), shop: once });
    await setFaults(f.sandbox, { error_rate: 0 });
    await once.close();
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('503');
    expect(failed.counts.updated).toBe(0);
    expect(await shopOrder()).toEqual(before);
    expect(await run({ cancelled: [4] })).toMatchObject({ counts: { updated: 0, deadLettered: 1 } });
    expect((await state.deadLetters.list({ pipeline: 'order-status' }))[0]!.code).toBe('ORDER_CANCELLED_IN_SHOP');
    expect(await shopOrder()).toEqual(before);
  });

  it('reads the shop again when a read failed and attempts are left: refused in the same run, never sent', async () => {
    await setShopStatus(4);
    const before = await shopOrder();
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    const once = clientFor(f.sandbox, { retry: { retries: 0 } });
    await setFaults(f.sandbox, { error_rate: 0.5, error_status: 503 });
    await once.exportOne('orders', orderId);
    const summary = await runPipeline({ ...def({ cancelled: [4] }), options: { maxAttempts: 3 } }, { ...(await deps()), shop: once });
    await setFaults(f.sandbox, { error_rate: 0 });
    await once.close();
    expect(summary.counts).toMatchObject({ updated: 0, deadLettered: 1 });
    expect((await state.deadLetters.list({ pipeline: 'order-status' }))[0]!.code).toBe('ORDER_CANCELLED_IN_SHOP');
    expect(await shopOrder()).toEqual(before);
  });

  it('shows the refusal in a dry run (preview), from the shop as it is now, without writing', async () => {
    await setShopStatus(4);
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    const preview = await runPipeline(def({ cancelled: [4] }), await deps(), { mode: 'dry-run' });
    expect(preview.plan!.map((p) => [p.action, p.reason?.slice(0, 25)])).toEqual([['fail', '[ORDER_CANCELLED_IN_SHOP]']]);
    expect((await shopOrder()).orders_status).toBe(4);
    expect(await state.deadLetters.list({ pipeline: 'order-status' })).toEqual([]);
  });

  it('reports a status both sides changed with the three values and does not flip it', async () => {
    await told(1);
    await setShopStatus(2);
    const before = await shopOrder();
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    expect(await run({ cancelled: [4] })).toMatchObject({ status: 'partial', counts: { updated: 0, deadLettered: 1 } });
    const after = await shopOrder();
    expect(after.orders_status).toBe(2);
    expect(after.status_history).toEqual(before.status_history);
    const letter = (await state.deadLetters.list({ pipeline: 'order-status' }))[0]!;
    expect(letter.code).toBe('ORDER_STATUS_CONFLICT');
    expect(letter.reason).toContain(`order ${orderId}: the ERP was told status 1, the shop now has 2, the ERP sends 3`);
    const [dead] = (await state.events.list({ pipeline: 'order-status' })).filter((e) => e.outcome === 'dead-lettered');
    expect(dead!.error!.details).toEqual({ order: String(orderId), erpWasTold: 1, shopNow: 2, erpSends: 3 });
    expect(nextAutoRetry(letter)).toBeUndefined();
    // The ERP decides again, now knowing the shop's change: its changed row goes out and resolves the letter.
    event('V-1', 'IN_ARBEIT', 'Wie im Shop', '2026-12-01 12:00:00');
    expect(await run({ cancelled: [4] })).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect((await shopOrder()).orders_status).toBe(2);
    expect(await state.deadLetters.list({ pipeline: 'order-status' })).toEqual([]);
  });

  it('sends the ERP status over the shop change with conflicts: erp-wins, with a warning naming what it overwrote', async () => {
    await told(1);
    await setShopStatus(2);
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    const summary = await run({ cancelled: [4], conflicts: 'erp-wins' });
    expect(summary).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0, warnings: 1 } });
    expect((await shopOrder()).orders_status).toBe(3);
    const [sent] = (await state.events.list({ pipeline: 'order-status' })).filter((e) => e.outcome === 'updated');
    expect(sent!.warnings.map((w) => w.code)).toEqual(['ORDER_STATUS_CONFLICT_ERP_WINS']);
  });

  it("gives an order the shop did not change the ERP's status, and the ERP's next status too (its own write is no conflict)", async () => {
    await told(1);
    event('V-1', 'IN_ARBEIT', 'In Arbeit', '2026-12-01 10:00:00');
    // Without stored payloads, the entry bookkeeping alone tells the ERP's own write (below).
    const noPayloads = { ...def({ cancelled: [4] }), options: { maxAttempts: 1, storePayloads: false } };
    const first = await runPipeline(noPayloads, await deps());
    expect(first).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    // One read of the shop's order, one write.
    expect(first.counts.requests).toBe(2);
    expect((await shopOrder()).orders_status).toBe(2);
    // The ERP was still told 1 (no follow pass since), but 2 is the ERP's own entry: 3 goes out.
    event('V-2', 'VERSANDT', 'Versendet', '2026-12-01 11:00:00');
    const second = await runPipeline(noPayloads, await deps());
    expect(second).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect((await shopOrder()).orders_status).toBe(3);
  });

  it('knows its own write from its last delivered payload when the mapping sends only orders_status (no entries to recognise)', async () => {
    const file = path.join(tempDir('guard-mapping-'), 'status-only.yaml');
    writeFileSync(file, `name: status-only
direction: erp-to-shop
target: { resource: orders, operation: update }
key: Vorgang
shop_key: orders_id
tables:
  status: { OFFEN: 1, IN_ARBEIT: 2, VERSANDT: 3, STORNIERT: 4 }
fields:
  orders_id: { from: ShopBestellNr, type: integer, required: true }
  orders_status: { from: Status, lookup: { table: status } }
`);
    const only = async () => runPipeline(def({ cancelled: [4] }), { ...(await deps()), mapping: await loadMapping(file) });
    await told(1);
    event('V-1', 'IN_ARBEIT', '', '2026-12-01 10:00:00');
    expect(await only()).toMatchObject({ status: 'succeeded', counts: { updated: 1 } });
    event('V-2', 'VERSANDT', '', '2026-12-01 11:00:00');
    expect(await only()).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect((await shopOrder()).orders_status).toBe(3);
    // The shop's own change after that is still a conflict.
    await setShopStatus(5);
    event('V-3', 'OFFEN', '', '2026-12-01 12:00:00');
    expect(await only()).toMatchObject({ counts: { updated: 0, deadLettered: 1 } });
    expect((await state.deadLetters.list({ pipeline: 'order-status' }))[0]!.reason).toContain('the ERP was told status 1, the shop now has 5, the ERP sends 1');
  });

  it('without shopStatus warns SHOP_STATUS_GUARD_MISSING in the run log and still reports a conflict of a followed order', async () => {
    await told(1);
    await setShopStatus(2);
    event('V-1', 'VERSANDT', 'Versendet', '2026-12-01 10:00:00');
    expect(await run()).toMatchObject({ counts: { updated: 0, deadLettered: 1 } });
    expect(logs.filter((l) => l.code === 'SHOP_STATUS_GUARD_MISSING')).toHaveLength(1);
    expect((await state.deadLetters.list({ pipeline: 'order-status' }))[0]!.code).toBe('ORDER_STATUS_CONFLICT');
    // Without a cancelled list a cancelled order is not recognised: the cancel rule needs one.
    await setShopStatus(4);
    await told(4);
    event('V-2', 'VERSANDT', 'Versendet', '2026-12-01 11:00:00');
    expect(await run()).toMatchObject({ counts: { updated: 1 } });
  });
});

describe('shopStatus config', () => {
  const config = (pull: string, push = '') => `
shop: { baseUrl: https://shop.example.com/api, token: tok-123456 }
connections: { erp: { kind: sqlite, path: erp.db } }
pipelines:
  - name: orders-in
    direction: pull
    resource: orders
    mapping: ${path.resolve('mappings/orders-to-erp.yaml')}
    sink: { connection: erp, table: shop_orders, key: orders_id }
${pull}
  - name: order-status
    direction: push
    resource: orders
    mapping: ${MAPPING}
    source: { connection: erp, query: SELECT * FROM auftrag_status, cursor: Geaendert, key: Vorgang }
${push}
`;
  const load = (text: string) => parseConfigText(text, path.join(tempDir('guard-config-'), 'shopsync.yaml'), { env: {} });

  it("takes the default from the shop's following pull of orders: its cancelled statuses, conflicts reported", async () => {
    const loaded = load(config('    follow: { until: [3, 4], cancelled: [4] }'));
    expect(loaded.config.pipelines.find((p) => p.name === 'order-status')!.shopStatus).toEqual({ cancelled: [4], conflicts: 'report' });
    expect(await shopStatusWarnings(loaded)).toEqual([]);
  });

  it('keeps a shopStatus written on the push', () => {
    const loaded = load(config('    follow: { until: [3, 4], cancelled: [4] }', '    shopStatus: { cancelled: [4, 6], conflicts: erp-wins }'));
    expect(loaded.config.pipelines.find((p) => p.name === 'order-status')!.shopStatus).toEqual({ cancelled: [4, 6], conflicts: 'erp-wins' });
  });

  it('warns SHOP_STATUS_GUARD_MISSING with neither', async () => {
    const loaded = load(config(''));
    expect(loaded.config.pipelines.find((p) => p.name === 'order-status')!.shopStatus).toBeUndefined();
    const warnings = await shopStatusWarnings(loaded);
    expect(warnings.map((w) => [w.pipeline, w.code])).toEqual([['order-status', 'SHOP_STATUS_GUARD_MISSING']]);
    expect(warnings[0]!.message).toContain('shopStatus: { cancelled:');
  });

  it('says SHOP_STATUS_GUARD_MISSING in `shopsync mappings check` of the config, and nothing once the pull follows orders', async () => {
    const check = async (text: string) => {
      const file = path.join(tempDir('guard-cli-'), 'shopsync.yaml');
      writeFileSync(file, text);
      const out = new PassThrough();
      let stdout = '';
      out.on('data', (c: Buffer) => (stdout += c.toString()));
      const code = await main(['node', 'shopsync', 'mappings', 'check', MAPPING, '-c', file], { stdout: out as unknown as NodeJS.WriteStream, stderr: new PassThrough() as unknown as NodeJS.WriteStream, env: {} });
      return { code, stdout };
    };
    const without = await check(config(''));
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/^warning \[SHOP_STATUS_GUARD_MISSING\] pipeline order-status \(.*order-status\.yaml\): .*shopStatus: \{ cancelled: \[4\] \}/m);
    const followed = await check(config('    follow: { until: [3, 4], cancelled: [4] }'));
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain('order-status.yaml (order-status)');
    expect(followed.stdout).not.toContain('SHOP_STATUS_GUARD_MISSING');
  });

  it('says SHOP_STATUS_GUARD_MISSING in doctor as a warning (the check stays ok), and nothing once the pull follows orders', async () => {
    const doctor = async (pull: string) => {
      const dir = tempDir('guard-doctor-');
      const file = path.join(dir, 'shopsync.yaml');
      // The shop is unreachable on purpose: this reads one check.
      writeFileSync(file, config(pull).replace('https://shop.example.com/api', 'http://127.0.0.1:9/api') + `state:\n  path: ${path.join(dir, 'state.db')}\n`);
      return (await runDoctor(await loadConfig(file, { env: {} }))).filter((c) => c.name === 'pipeline order-status: shop status guard');
    };
    const [check] = await doctor('');
    expect(check).toMatchObject({ ok: true, pipeline: 'order-status' });
    expect(check!.detail).toContain('[SHOP_STATUS_GUARD_MISSING]');
    expect(await doctor('    follow: { until: [3, 4], cancelled: [4] }')).toEqual([]);
  });

  it('leaves pushes that change no status of an existing order alone: a create-only orders mapping, a mapping without status fields', () => {
    const push = { name: 'p', direction: 'push' as const, shop: 'default', resource: 'orders' };
    expect(shopStatusWarning(push, { targets: ['orders_status', 'tracking'], operation: 'create' })).toBeUndefined();
    expect(shopStatusWarning(push, { targets: ['tracking'], operation: 'update' })).toBeUndefined();
    expect(shopStatusWarning(push, { targets: ['status_history'], operation: 'update' })?.code).toBe('SHOP_STATUS_GUARD_MISSING');
  });

  it('refuses shopStatus on a pull', () => {
    expect(() => load(config('    shopStatus: { cancelled: [4] }'))).toThrow(/shopStatus belongs to a push pipeline/);
  });
});
