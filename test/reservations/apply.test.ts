/** Reservations applied to payloads, and stock figures that travel only when they changed. */
import { describe, expect, it } from 'vitest';
import { applyReservations } from '../../src/reservations/apply.js';
import { dropUnchangedStock } from '../../src/reservations/sent.js';
import { getResource } from '../../src/shop/registry/index.js';
import type { ReservationLine } from '../../src/reservations/types.js';

const stock = getResource('products').stock!;
const line = (ordersId: number, quantity: number, sku?: string): ReservationLine => ({ shop: 'main', ordersId, pos: 1, article: 'ART-1', quantity, placedAt: '2026-12-01T10:00:00', seenAt: '2026-12-01T10:00:01.000Z', ...(sku ? { sku } : {}) });

describe('applying reservations', () => {
  it('takes every unbooked line of the article off its total and the SKU lines off their SKU', () => {
    const payload = { products_model: 'ART-1', products_quantity: 10, options: [{ model: 'ART-1-M', quantity: '6', values: [] }, { model: 'ART-1-L', quantity: 4, values: [] }] };
    const out = applyReservations(payload, stock, [line(7, 3, 'ART-1-M'), line(8, 1)], { subtract: true });
    expect(out.payload.products_quantity).toBe(6);
    expect(out.payload.options).toEqual([{ model: 'ART-1-M', quantity: '3', values: [] }, { model: 'ART-1-L', quantity: 4, values: [] }]);
    expect(out.figures.find((f) => f.field === 'products_quantity')).toMatchObject({ erp: 10, reserved: 4, sent: 6, orders: [7, 8] });
    expect(out.warnings).toEqual([]);
  });

  it('sends 0 and warns STOCK_OVERSOLD when the unbooked orders take more than the ERP has', () => {
    const out = applyReservations({ products_model: 'ART-1', products_quantity: 2 }, stock, [line(7, 3)], { subtract: true });
    expect(out.payload.products_quantity).toBe(0);
    expect(out.warnings.map((w) => w.code)).toEqual(['STOCK_OVERSOLD']);
  });

  it('reduces only the storages[] row of the warehouse the shop sells from, and none when the pipeline names none', () => {
    const payload = { products_model: 'ART-1', storages: [{ storages_id: 1, products_quantity: 5 }, { storages_id: 3, products_quantity: 5 }] };
    expect(applyReservations(payload, stock, [line(7, 2)], { subtract: true, warehouse: 1 }).payload.storages).toEqual([{ storages_id: 1, products_quantity: 3 }, { storages_id: 3, products_quantity: 5 }]);
    expect(applyReservations(payload, stock, [line(7, 2)], { subtract: true }).payload.storages).toEqual(payload.storages);
  });

  it('leaves the figures alone with stock: available, a negative ERP figure too', () => {
    const out = applyReservations({ products_model: 'ART-1', products_quantity: -2 }, stock, [line(7, 3)], { subtract: false });
    expect(out.payload.products_quantity).toBe(-2);
  });
});

describe('stock travels on its own', () => {
  it('drops the total and storage rows equal to the last sent, keeps SKU quantities, and remembers what goes out', () => {
    const payload = { products_model: 'ART-1', products_price: 11, products_quantity: 7, storages: [{ storages_id: 1, products_quantity: 5, products_safe_quantity: 1 }], options: [{ model: 'M', quantity: 2, values: [] }] };
    const { figures } = applyReservations(payload, stock, [], { subtract: true });
    const at = '2026-12-01T10:00:00.000Z';
    const last = ['products_quantity', 'storages[1/0].products_quantity', 'options[M].quantity'].map((field) => {
      const sent = field === 'products_quantity' ? '7' : field.startsWith('storages') ? '5' : '2';
      return { pipeline: 'stock', recordKey: 'ART-1', field, erp: sent, reserved: '0', sent, at };
    });
    const out = dropUnchangedStock(payload, stock, figures, last, { pipeline: 'stock', recordKey: 'ART-1', at });
    expect(out.payload).toEqual({ products_model: 'ART-1', products_price: 11, storages: [{ storages_id: 1, products_safe_quantity: 1 }], options: [{ model: 'M', quantity: 2, values: [] }] });
    expect(out.remember.map((r) => r.field)).toEqual(['options[M].quantity']);
  });

  it('sends a figure equal to the last one sent when the ERP figure and the reserved units behind it changed (the shop booked those orders since)', () => {
    const at = '2026-12-01T10:00:00.000Z';
    // Sent 4 (ERP 4, nothing reserved); an order of 3 came in, the shop shows 1; the ERP now says 7.
    const { figures } = applyReservations({ products_model: 'ART-1', products_quantity: 7 }, stock, [line(9, 3)], { subtract: true });
    const last = [{ pipeline: 'stock', recordKey: 'ART-1', field: 'products_quantity', erp: '4', reserved: '0', sent: '4', at }];
    const out = dropUnchangedStock({ products_model: 'ART-1', products_quantity: 4 }, stock, figures, last, { pipeline: 'stock', recordKey: 'ART-1', at });
    expect(out.payload.products_quantity).toBe(4);
    expect(out.remember).toEqual([expect.objectContaining({ field: 'products_quantity', erp: '7', reserved: '3', sent: '4' })]);
  });
});
