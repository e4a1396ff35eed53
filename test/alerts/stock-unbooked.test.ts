/**
 * Issue 43, must-do 5: a shop order unbooked by the ERP for longer than the stock push's
 * `reservations.alertAfter` is an alert (STOCK_UNBOOKED_STUCK) that names the orders and says the
 * ERP's import is stuck and how to check it; it is resolved once they are booked. Real SQLite
 * ledger, real local webhook receiver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsConfigSchema, startAlerts, type AlertMessage, type AlertWatcher, type ReservationLane } from '../../src/alerts/index.js';
import { silentLogger } from '../../src/log.js';
import { SyncEvents } from '../../src/pipeline/index.js';
import type { ReservationLine } from '../../src/reservations/types.js';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

const HOUR = 3_600_000;
let http: Server;
let hooks: AlertMessage[];
let url: string;
let state: StateStore;
let dir: string;
let events: SyncEvents;
let watcher: AlertWatcher | undefined;
let clock: number;

beforeEach(async () => {
  hooks = [];
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hooks.push(JSON.parse(body) as AlertMessage);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
  dir = tempDir('shopsync-alerts-unbooked-');
  state = await openState(`${dir}/state.sqlite`);
  events = new SyncEvents();
  clock = Date.parse('2026-12-02T12:00:00Z');
});
afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await state.close();
  removeDir(dir);
});

const lane: ReservationLane = { pipeline: 'stock', shop: 'default', alertAfterMs: 24 * HOUR, booked: 'query', ordersPulls: ['orders-pull'] };

function start(lanes: readonly ReservationLane[] = [lane]): AlertWatcher {
  watcher = startAlerts(alertsConfigSchema.parse({ webhook: { url, retries: 0 } }), { events, state, scheduled: [], secrets: [], logger: silentLogger, now: () => clock, reservations: lanes });
  if (!watcher) throw new Error('no alert channel configured');
  return watcher;
}

const line = (ordersId: number, article: string, quantity: number, seenAt: string, extra: Partial<ReservationLine> = {}): ReservationLine => ({ shop: 'default', ordersId, pos: 1, article, quantity, placedAt: seenAt.slice(0, 19), seenAt, ...extra });

describe('the STOCK_UNBOOKED_STUCK alert', () => {
  it('fires once when an order stays unbooked longer than alertAfter, naming it, and resolves when the ERP books it', async () => {
    await state.reservations.record([
      line(4711, 'ART-1004', 2, '2026-12-01T10:00:00Z', { deliveredAt: '2026-12-01T10:05:00Z' }),
      line(4712, 'ART-1005', 1, '2026-12-02T11:00:00Z'),
    ]);
    const w = start();
    await w.checkReservations();
    await w.checkReservations();
    expect(await w.incidents.list()).toEqual(['stock-unbooked-stuck:stock']);
    expect(hooks).toHaveLength(1);
    const [fired] = hooks;
    expect(fired?.state).toBe('firing');
    expect(fired?.kind).toBe('stock-unbooked-stuck');
    expect(fired?.title).toBe('stock: 1 shop order(s) unbooked by the ERP for more than 24 h');
    expect(fired?.text).toContain('[STOCK_UNBOOKED_STUCK]');
    expect(fired?.text).toContain('order 4711 (ART-1004 × 2;');
    expect(fired?.text).toContain('reached the ERP 2026-12-01T10:05:00Z');
    expect(fired?.text).not.toContain('4712');
    expect(fired?.text).toContain("The ERP's import of shop orders looks stuck");
    expect(fired?.text).toContain('reservations.booked.query');

    await state.reservations.markBooked('default', [4711], '2026-12-02T12:01:00Z');
    events.emit({ type: 'run-finished', summary: { runId: 2, pipeline: 'stock', mode: 'sync', status: 'succeeded', counts: emptyCounts(), durationMs: 5 } });
    await w.stop();
    expect(await w.incidents.list()).toEqual([]);
    expect(hooks.map((h) => h.state)).toEqual(['firing', 'resolved']);
    expect(hooks[1]?.title).toBe('stock: the ERP books the shop\'s orders again');
  });

  it('says when the orders never reached the ERP and which pull carries them', async () => {
    await state.reservations.record([line(5001, 'ART-1', 3, '2026-11-30T08:00:00Z')]);
    const w = start([{ ...lane, alertAfterMs: 2 * HOUR, booked: 'changedAfter' }]);
    await w.checkReservations();
    expect(hooks[0]?.title).toBe('stock: 1 shop order(s) unbooked by the ERP for more than 2 h');
    expect(hooks[0]?.text).toContain('not delivered to the ERP by the orders pull yet');
    expect(hooks[0]?.text).toContain('check orders-pull');
    expect(hooks[0]?.text).toContain('changedAfter');
  });

  it('stays quiet while every unbooked order is younger than alertAfter, and for released orders', async () => {
    await state.reservations.record([line(6001, 'ART-1', 1, '2026-12-02T09:00:00Z'), line(6002, 'ART-2', 1, '2026-11-01T09:00:00Z')]);
    await state.reservations.release('default', [6002], '2026-11-02T09:00:00Z');
    const w = start();
    await w.checkReservations();
    expect(await w.incidents.list()).toEqual([]);
    expect(hooks).toEqual([]);
  });
});
