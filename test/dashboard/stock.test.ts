/**
 * Issue 43, must-do 5: the record page of a stock pipeline's article shows the ERP figure, the shop
 * orders the ERP has not booked (with their numbers and quantities) and what was sent, through the
 * real dashboard server on a real SQLite state, every value escaped.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import type { DashboardPipeline } from '../../src/dashboard/types.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import type { ReservationLine } from '../../src/reservations/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

const XSS = '<img src=x onerror=alert(1)>';
const HOUR = 3_600_000;

let app: FastifyInstance | undefined;
let state: StateStore;
let dir: string;

beforeEach(async () => {
  dir = tempDir('shopsync-dashboard-stock-');
  state = await openState(`${dir}/state.sqlite`);
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await state.close();
  removeDir(dir);
});

async function serve(pipelines: DashboardPipeline[]): Promise<string> {
  app = Fastify();
  await registerDashboard(app, { state, events: new SyncEvents(), pipelines, runNow: async () => {}, retryDeadLetters: async () => {}, dropDeadLetters: async () => {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return listeningUrl(app.server);
}

const stockPush: DashboardPipeline = { name: 'stock', resource: 'products', direction: 'push', reservations: { alertAfterMs: 24 * HOUR }, nextRun: () => undefined };

function line(ordersId: number, article: string, quantity: number, seenAgoMs: number, extra: Partial<ReservationLine> = {}): ReservationLine {
  const seen = new Date(Date.now() - seenAgoMs).toISOString();
  return { shop: 'default', ordersId, pos: 1, article, quantity, placedAt: seen.slice(0, 19), seenAt: seen, ...extra };
}

describe('the record page of a stock article', () => {
  it('shows the ERP figure, the unbooked orders with their numbers and quantities, and what was sent', async () => {
    await state.reservations.record([line(4711, 'ART-1004', 2, HOUR), line(4712, 'ART-1004', 1, 2 * HOUR, { deliveredAt: new Date().toISOString() }), line(4713, 'OTHER-1', 5, HOUR)]);
    await state.stockSent.put([{ pipeline: 'stock', recordKey: 'ART-1004', field: 'products_quantity', erp: '10', reserved: '3', sent: '7', at: new Date().toISOString() }]);
    const base = await serve([stockPush]);

    const res = await fetch(`${base}/records?q=ART-1004`);
    const body = await res.text();
    expect(res.status).toBe(200);
    const section = body.slice(body.indexOf('<section class="panel stock"'), body.indexOf('</section>'));
    expect(section).toContain('data-pipeline="stock"');
    expect(section).toMatch(/data-erp-figure>10</);
    expect(section).toMatch(/data-units>3</);
    expect(section).toMatch(/data-may-show>7</);
    expect(section).toContain('data-order="4711"');
    expect(section).toContain('data-order="4712"');
    expect(section).not.toContain('data-order="4713"');
    expect(section).toMatch(/data-order="4711".*?data-quantity>2</s);
    expect(section).toMatch(/data-field="products_quantity".*?data-erp>10<.*?data-reserved>3<.*?data-sent>7</s);
    expect(section).toContain('not yet');
  });

  it('marks an order unbooked longer than the pipeline\'s alertAfter as stuck', async () => {
    await state.reservations.record([line(5001, 'ART-2', 1, 30 * HOUR), line(5002, 'ART-2', 1, HOUR)]);
    const base = await serve([stockPush]);
    const body = await (await fetch(`${base}/records?q=ART-2`)).text();
    expect(body).toMatch(/<tr data-order="5001" class="bad">/);
    expect(body).toMatch(/<tr data-order="5002">/);
    expect(body).toContain('stuck: more than 24 h 00 min');
  });

  it('shows no stock section for a record no stock push knows', async () => {
    const base = await serve([stockPush]);
    const body = await (await fetch(`${base}/records?q=NOTHING-1`)).text();
    expect(body).not.toContain('<section class="panel stock"');
  });

  it('escapes article, SKU, field and figures that carry markup', async () => {
    await state.reservations.record([line(6001, XSS, 1, HOUR, { sku: XSS, placedAt: XSS })]);
    await state.stockSent.put([{ pipeline: 'stock', recordKey: XSS, field: XSS, erp: XSS, reserved: '1', sent: XSS, at: new Date().toISOString() }]);
    const base = await serve([stockPush]);
    const body = await (await fetch(`${base}/records?q=${encodeURIComponent(XSS)}`)).text();
    expect(body).toContain('data-order="6001"');
    expect(body).not.toContain(XSS);
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
