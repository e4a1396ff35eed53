/**
 * Orders after checkout (issue 44) on the sandbox over HTTP: an orders pull with `follow:` reads the
 * orders it delivered again until they are done, and delivers each change once, as a row of
 * erp_order_changes (the shipped mapping's `Aenderungen`, appended) beside the updated order.
 * Orders are placed 3 days ago, and a newer one today moves the delta cursor past their day, so
 * only the follow pass reads them again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../state/backends.js';
import { followWorld, shopDate, type FollowWorld } from './support.js';

/** The run's follow log line. */
const followedLine = (w: FollowWorld) => w.logs.filter((l) => l.followed !== undefined).at(-1)?.followed as Record<string, unknown> | undefined;

/** An order 3 days ago and one today, both delivered; the sandbox's request count starts afresh. */
async function delivered(w: FollowWorld): Promise<number> {
  const id = await w.place('E-OLD', 3);
  await w.place('E-NEW', 0);
  expect((await w.run()).counts).toMatchObject({ created: 2, failed: 0 });
  await w.traffic();
  return id;
}

describe.each([
  { backend: 'sqlite' as const, available: true },
  { backend: 'postgres' as const, available: postgresAvailable },
])('orders after checkout: follow (state on $backend)', ({ backend, available }) => {
  let w: FollowWorld;
  beforeEach(async (ctx) => {
    if (!available) ctx.skip();
    w = await followWorld(backend);
  });
  afterEach(async () => {
    await w?.close();
  });

  it('delivers an order cancelled in the shop three days after it was placed as cancelled, once: one change row, the order\'s Status 4, and nothing more on the next run', async () => {
    const id = await delivered(w);
    expect(w.order(id)).toMatchObject({ Status: 1 });
    // A run before anything changed reads it (by its day) and delivers nothing.
    expect((await w.run()).counts).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect(w.changes()).toEqual([]);

    await w.update(id, { orders_status: 4, comments: 'Kunde hat storniert' });
    const run = await w.run();
    expect(run.counts).toMatchObject({ updated: 1, failed: 0, deadLettered: 0 });
    expect(w.order(id)).toMatchObject({ Status: 4 });
    expect(w.changes(id)).toEqual([
      expect.objectContaining({ Shop_BestellNr: id, Nr: 1, Art: 'cancelled', Status: 4, Vorher: 1, Kommentar: 'Kunde hat storniert', Verarbeitet: null }),
    ]);
    expect(followedLine(w)).toMatchObject({ open: 1, changed: 1, done: 1 });

    // The ERP marks it processed; further runs add nothing and leave the mark.
    w.erp.prepare('UPDATE erp_order_changes SET "Verarbeitet" = ? WHERE "Shop_BestellNr" = ?').run('2026-12-02', id);
    expect((await w.run()).counts).toMatchObject({ created: 0, updated: 0 });
    expect(w.changes(id)).toEqual([expect.objectContaining({ Nr: 1, Art: 'cancelled', Verarbeitet: '2026-12-02' })]);
    const row = (await w.state.followed.get('orders-in', [String(id)])).get(String(id));
    expect(row).toMatchObject({ status: 4, cancelled: true, doneReason: 'final', changes: [expect.objectContaining({ seq: 1, kind: 'cancelled' })] });
  });

  it('delivers a return tracking entry (is_retoure) as a return, after the shipment\'s own tracking', async () => {
    const id = await delivered(w);
    await w.update(id, { orders_status: 3, tracking: [{ code: 'PKG-1', service_provider: 'DHL' }] });
    expect((await w.run()).counts).toMatchObject({ updated: 1 });
    await w.update(id, { tracking: [{ code: 'RET-1', service_provider: 'DHL', is_retoure: true }] });
    expect((await w.run()).counts).toMatchObject({ updated: 1 });
    expect(w.changes(id).map((c) => [c.Nr, c.Art, c.Status ?? null, c.Sendung ?? null, c.Versender ?? null])).toEqual([
      [1, 'status', 3, null, null],
      [2, 'tracking', null, 'PKG-1', 'DHL'],
      [3, 'return', null, 'RET-1', 'DHL'],
    ]);
    // Shipped is not final: the order stays followed for the return until its age limit.
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))?.doneAt).toBeUndefined();
  });

  it('delivers a changed delivery address and a comment on the same status as their own changes', async () => {
    const id = await delivered(w);
    await w.update(id, { delivery: { firstname: 'Erika', lastname: 'Neu', street_address: 'Elbchaussee 5', postcode: '22763', city: 'Hamburg', country_iso_code_2: 'DE' } });
    await w.update(id, { comments: 'Bitte klingeln' });
    expect((await w.run()).counts).toMatchObject({ updated: 1 });
    expect(w.order(id)).toMatchObject({ LI_Ort: 'Hamburg', Status: 1 });
    expect(w.changes(id).map((c) => [c.Nr, c.Art, c.Feld ?? null, c.Kommentar ?? null])).toEqual([
      [1, 'comment', null, 'Bitte klingeln'],
      [2, 'address', 'delivery', null],
    ]);
  });

  it('delivers an order cancelled before its first pull once, as cancelled, with no change rows', async () => {
    const id = await w.place('E-GONE', 3);
    await w.update(id, { orders_status: 4, comments: 'storniert vor dem Import' });
    await w.place('E-NEW', 0);
    expect((await w.run()).counts).toMatchObject({ created: 2 });
    expect(w.order(id)).toMatchObject({ Status: 4 });
    expect(w.changes(id)).toEqual([]);
    expect((await w.run()).counts).toMatchObject({ created: 0, updated: 0 });
    expect(w.changes()).toEqual([]);
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))).toMatchObject({ doneReason: 'final', changes: [] });
  });

  it('stops following an order at its final status: no more requests for it', async () => {
    const id = await delivered(w);
    // Open: the delta's one page and one request for the order's day.
    let run = await w.run();
    expect(run.counts.requests).toBe(2);
    expect(await w.traffic()).toBe(2);
    await w.update(id, { orders_status: 4 });
    await w.traffic();
    run = await w.run();
    expect(run.counts).toMatchObject({ updated: 1, requests: 2 });
    expect(await w.traffic()).toBe(2);
    // Done: the run reads the delta only, as the shop counts it.
    run = await w.run();
    expect(run.counts.requests).toBe(1);
    expect(await w.traffic()).toBe(1);
    expect(followedLine(w)).toMatchObject({ open: 0, read: 0, requests: 0 });
  });

  it('adopts, on its first pass, the orders delivered before follow was on, and delivers their later changes', async () => {
    const id = await w.place('E-OLD', 3);
    await w.place('E-NEW', 0);
    expect((await w.run(false)).counts).toMatchObject({ created: 2 });
    expect((await w.state.followed.get('orders-in', [String(id)])).size).toBe(0);
    await w.traffic();

    // The delta reads today; the first pass reads each of the 14 days before in pages.
    const first = await w.run();
    expect(first.counts).toMatchObject({ created: 0, updated: 0, requests: 15 });
    expect(await w.traffic()).toBe(15);
    // Adopted: the old order by the pass, today's by the delta.
    expect(followedLine(w)).toMatchObject({ first: true, adopted: 2, days: { pages: 14, ids: 0 } });
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))).toMatchObject({ status: 1, changes: [] });
    expect((await w.state.followed.summary('orders-in')).open).toBe(2);

    await w.update(id, { orders_status: 4 });
    expect((await w.run()).counts).toMatchObject({ updated: 1 });
    expect(w.changes(id)).toEqual([expect.objectContaining({ Nr: 1, Art: 'cancelled', Status: 4 })]);
  });

  it('releases the reservation of an order cancelled in the shop', async () => {
    const id = await delivered(w);
    const shop = w.state.shop;
    // The stock push's ledger read the order's line (src/reservations/refresh.ts records them so).
    await w.state.reservations.record([{ shop, ordersId: id, pos: 1, article: 'X-1', quantity: 1, placedAt: shopDate(3).replace(' ', 'T'), seenAt: new Date().toISOString() }]);
    expect((await w.state.reservations.unbooked(shop)).map((l) => l.ordersId)).toEqual([id]);
    await w.run();
    expect((await w.state.reservations.unbooked(shop)).map((l) => l.ordersId)).toEqual([id]);
    await w.update(id, { orders_status: 4 });
    await w.run();
    expect(await w.state.reservations.unbooked(shop)).toEqual([]);
  });

  it('reports an order deleted in the shop as a warning and no longer follows it', async () => {
    const id = await delivered(w);
    await w.f.shop.delete('orders', id);
    await w.traffic();
    const run = await w.run();
    expect(run.counts.warnings).toBe(1);
    expect(w.logs.some((l) => l.level === 40 && String(l.msg).includes('no longer returns') && (l.keys as string[]).includes(String(id)))).toBe(true);
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))).toMatchObject({ doneReason: 'deleted' });
    await w.traffic();
    expect((await w.run()).counts).toMatchObject({ requests: 1, warnings: 0 });
    expect(await w.traffic()).toBe(1);
  });

  it('follows a done order again when a day read sees it move out of its final status', async () => {
    const id = await delivered(w);
    // Another open order of the same day keeps the day read in pages, so the done one is seen too.
    await w.place('E-SAME-DAY', 3);
    await w.update(id, { orders_status: 4 });
    await w.run();
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))).toMatchObject({ doneReason: 'final' });
    await w.update(id, { orders_status: 2, comments: 'Storno zurückgenommen' });
    expect((await w.run()).counts).toMatchObject({ updated: 1 });
    expect(w.changes(id).map((c) => [c.Nr, c.Art, c.Vorher, c.Status])).toEqual([[1, 'cancelled', 1, 4], [2, 'status', 4, 2]]);
    const row = (await w.state.followed.get('orders-in', [String(id)])).get(String(id));
    expect(row).toMatchObject({ status: 2, cancelled: false });
    expect(row?.doneAt).toBeUndefined();
  });

  it('passes only when the last pass is older than every: a run in between reads new orders only', async () => {
    const id = await delivered(w);
    // The first run's pass was just now: with every 1h, this run makes the delta's request only.
    expect((await w.run({ every: '1h' })).counts.requests).toBe(1);
    await w.update(id, { orders_status: 4 });
    expect((await w.run({ every: '1h' })).counts).toMatchObject({ updated: 0, requests: 1 });
    expect(w.changes()).toEqual([]);
    // Due again (every 0s): the cancellation arrives.
    expect((await w.run()).counts).toMatchObject({ updated: 1, requests: 2 });
    expect(w.changes(id)).toEqual([expect.objectContaining({ Art: 'cancelled' })]);
  });

  it('passes when the last pass lies in the future (the clock was stepped back) instead of waiting for the clock to catch up', async () => {
    const id = await delivered(w);
    await w.update(id, { orders_status: 4 });
    // As a pass stored by a clock running a day ahead, then set right.
    await w.state.cursors.set('orders-in', 'follow', { value: new Date(Date.now() + 86_400_000).toISOString(), key: null });
    expect((await w.run({ every: '1h' })).counts).toMatchObject({ updated: 1, requests: 2 });
    expect(w.changes(id)).toEqual([expect.objectContaining({ Art: 'cancelled' })]);
    // The pass stored now's time: the next run within the hour reads new orders only.
    expect((await w.run({ every: '1h' })).counts.requests).toBe(1);
  });

  it('no longer follows an order placed before maxAgeDays, whatever its status', async () => {
    const id = await w.place('E-ANCIENT', 20);
    await w.place('E-NEW', 0);
    await w.run();
    expect((await w.state.followed.get('orders-in', [String(id)])).get(String(id))).toMatchObject({ doneReason: 'age' });
    await w.update(id, { orders_status: 4 });
    await w.traffic();
    expect((await w.run()).counts).toMatchObject({ updated: 0, requests: 1 });
    expect(await w.traffic()).toBe(1);
  });

  /** 251 orders of one day 3 days ago, 250 of them cancelled before the first pull: two pages, or one request by id. Answers the open one. */
  async function manyOneOpen(): Promise<number> {
    const day = shopDate(3);
    const orders = Array.from({ length: 251 }, (_, i) => ({
      customers_id: 0, auto_stock: false, date_purchased: day, ...(i > 0 ? { orders_status: 4 } : {}),
      billing: { firstname: 'Erika', lastname: `M${i}`, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: [{ products_model: 'X-1', quantity: 1, products_price: 10 }],
      external_reference: { source: 'test', external_id: `MANY-${i}` },
    }));
    const created = await w.f.shop.create('orders', orders);
    expect(created.outcomes.every((o) => o.ok)).toBe(true);
    return Number(created.outcomes[0]!.data!.orders_id);
  }

  it('reports an open order the by-id read no longer finds as deleted', async () => {
    const open = await manyOneOpen();
    await w.place('E-NEW', 0);
    await w.run();
    await w.f.shop.delete('orders', open);
    const run = await w.run();
    expect(followedLine(w)).toMatchObject({ days: { pages: 0, ids: 1 }, deleted: 1 });
    expect(run.counts.warnings).toBe(1);
    expect((await w.state.followed.get('orders-in', [String(open)])).get(String(open))).toMatchObject({ doneReason: 'deleted' });
  });

  it('reads a day with many orders and one open by id, a day with few in pages', async () => {
    const open = await manyOneOpen();
    const few = await w.place('E-FEW', 5);
    await w.place('E-NEW', 0);
    expect((await w.run()).counts).toMatchObject({ created: 253, failed: 0 });
    await w.traffic();

    const run = await w.run();
    expect(followedLine(w)).toMatchObject({ open: 2, days: { pages: 1, ids: 1 }, requests: 2 });
    // The delta's page, the few day's page, the open order by id.
    expect(run.counts.requests).toBe(3);
    expect(await w.traffic()).toBe(3);
    await w.update(open, { orders_status: 4 });
    await w.update(few, { orders_status: 2 });
    expect((await w.run()).counts).toMatchObject({ updated: 2 });
    expect(w.changes().map((c) => [c.Shop_BestellNr, c.Art])).toEqual([[open, 'cancelled'], [few, 'status']].sort((a, b) => Number(a[0]) - Number(b[0])));
  });
});
