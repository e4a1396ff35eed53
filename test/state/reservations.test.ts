/**
 * The reservation ledger and the stock sent per field on both backends: lines are recorded once and
 * keep the times shopsync set, booked/released lines no longer count, and stock sent is per field.
 */
import { expect, it } from 'vitest';
import type { ReservationLine } from '../../src/reservations/types.js';
import { forEachBackend } from './backends.js';

const line = (ordersId: number, pos: number, article: string, quantity: number, extra: Partial<ReservationLine> = {}): ReservationLine => ({
  shop: 'main',
  ordersId,
  pos,
  article,
  quantity,
  placedAt: '2026-12-01T10:00:00.000Z',
  seenAt: `2026-12-01T10:0${pos}:00.000Z`,
  ...extra,
});

forEachBackend('reservations', (backend) => {
  it('counts a recorded line as unbooked until the ERP booked it, and a second read keeps its delivery time', async () => {
    const { reservations } = await backend.open();
    await reservations.record([line(7, 1, 'ART-1', 3), line(7, 2, 'ART-2', 1, { sku: 'ART-2-RED' }), line(8, 1, 'ART-1', 2)]);
    expect(await reservations.unbookedUnits('main')).toBe(6);
    await reservations.delivered('main', [7], '2026-12-01T11:00:00.000Z');
    await reservations.record([line(7, 1, 'ART-1', 3)]);
    const art1 = await reservations.unbooked('main', ['ART-1']);
    expect(art1.map((l) => [l.ordersId, l.quantity, l.deliveredAt])).toEqual([
      [7, 3, '2026-12-01T11:00:00.000Z'],
      [8, 2, undefined],
    ]);
    expect((await reservations.unbooked('main', ['ART-2']))[0]?.sku).toBe('ART-2-RED');
    await reservations.markBooked('main', [7], '2026-12-01T12:00:00.000Z');
    expect(await reservations.unbookedUnits('main')).toBe(2);
    await reservations.release('main', [8], '2026-12-01T12:00:00.000Z');
    expect(await reservations.unbooked('main')).toEqual([]);
    expect(await reservations.oldestUnbooked('main')).toBeUndefined();
    expect(await reservations.unbookedUnits('other')).toBe(0);
  });

  it('gives a line the delivery time of its order even when the orders pull delivered it before the line was read', async () => {
    const { reservations } = await backend.open();
    await reservations.delivered('main', [11], '2026-12-01T09:00:00.000Z');
    await reservations.record([line(11, 1, 'ART-1', 2), line(12, 1, 'ART-1', 1)]);
    const lines = await reservations.unbooked('main', ['ART-1']);
    expect(lines.map((l) => [l.ordersId, l.deliveredAt])).toEqual([
      [11, '2026-12-01T09:00:00.000Z'],
      [12, undefined],
    ]);
  });

  it('keeps an order released before its lines were read released once they are recorded, and names lines released lately', async () => {
    const { reservations } = await backend.open();
    await reservations.release('main', [21], '2026-12-01T09:00:00.000Z');
    await reservations.record([line(21, 1, 'ART-1', 2), line(22, 1, 'ART-1', 1)]);
    expect((await reservations.unbooked('main', ['ART-1'])).map((l) => l.ordersId)).toEqual([22]);
    await reservations.release('main', [22], '2026-12-01T13:00:00.000Z');
    expect((await reservations.released('main', '2026-12-01T12:00:00.000Z')).map((l) => l.ordersId)).toEqual([22]);
    expect((await reservations.released('main', '2026-12-01T08:00:00.000Z')).map((l) => l.ordersId)).toEqual([21, 22]);
    expect(await reservations.released('other', '2026-12-01T08:00:00.000Z')).toEqual([]);
  });

  it('names the oldest unbooked line and keeps the read cursor per shop', async () => {
    const { reservations } = await backend.open();
    await reservations.record([line(9, 2, 'ART-1', 1), line(10, 1, 'ART-3', 4)]);
    expect((await reservations.oldestUnbooked('main'))?.ordersId).toBe(10);
    expect(await reservations.cursor('main')).toBeUndefined();
    await reservations.setCursor('main', '2026-11-30');
    await reservations.setCursor('main', '2026-12-01');
    expect(await reservations.cursor('main')).toBe('2026-12-01');
  });

  it('remembers the last stock sent per record and field', async () => {
    const { stockSent } = await backend.open();
    const at = '2026-12-01T10:00:00.000Z';
    await stockSent.put([
      { pipeline: 'stock', recordKey: 'ART-1', field: 'products_quantity', erp: '10', reserved: '3', sent: '7', at },
      { pipeline: 'stock', recordKey: 'ART-2', field: 'products_quantity', erp: '5', reserved: '0', sent: '5', at },
    ]);
    await stockSent.put([{ pipeline: 'stock', recordKey: 'ART-1', field: 'products_quantity', erp: '15', reserved: '3', sent: '12', at }]);
    expect((await stockSent.of('stock', 'ART-1')).map((r) => r.sent)).toEqual(['12']);
    const many = await stockSent.get('stock', ['ART-1', 'ART-2', 'ART-9']);
    expect([...many.keys()].sort()).toEqual(['ART-1', 'ART-2']);
    expect(await stockSent.of('other', 'ART-1')).toEqual([]);
  });
});
