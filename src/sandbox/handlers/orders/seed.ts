/** Demo orders, created through the same code path as API orders, with fixed dates. */
import type { SandboxContext } from '../../handler.js';
import { createOrder } from './create.js';
import type { OrderWarning } from './errors.js';

const ORDERS: readonly [string, Record<string, unknown>][] = [
  ['2026-02-02 10:15:00', { customers_id: 1, payment_method: 'paypal', shipping_method: 'DHL Paket', products: [{ products_id: 1, quantity: 1 }, { products_id: 9, quantity: 2 }], totals: { shipping: 4.9 }, orders_status: 3, tracking: [{ service_provider: 'DHL', code: '00340434161094042557', link: 'https://www.dhl.de/track?code=00340434161094042557' }] }],
  ['2026-02-03 14:40:00', { customers_id: 2, payment_method: 'invoice', products: [{ products_model: 'DEMO-1015', quantity: 1 }, { products_model: 'DEMO-1019', quantity: 3 }], compute_shipping: true, orders_status: 2 }],
  ['2026-02-05 09:05:00', { customers_id: 4, payment_method: 'invoice', products: [{ products_id: 24, quantity: 5 }, { products_id: 25, quantity: 5 }], totals_mode: 'recalc', totals: { shipping: 0 }, orders_status: 2 }],
  ['2026-02-07 18:30:00', { customers_id: 6, payment_method: 'prepayment', products: [{ products_id: 3, quantity: 1 }], compute_shipping: true, orders_status: 1 }],
  ['2026-02-09 11:00:00', { customers_id: 3, payment_method: 'creditcard', products: [{ products_id: 2, quantity: 2 }], compute_shipping: true, orders_status: 4, comments: 'Cancelled by the customer' }],
  ['2026-02-11 16:20:00', { customers_id: 0, payment_method: 'paypal', billing: { firstname: 'Gustav', lastname: 'Gast', street_address: 'Uferweg 3', postcode: '24103', city: 'Kiel', country_iso_code_2: 'DE', email_address: 'gustav@example.net' }, products: [{ products_id: 33, quantity: 1 }], totals: { shipping: 4.9 }, orders_status: 1, external_reference: { source: 'marketplace', external_id: 'MP-2026-0001', marketplace_id: 1 } }],
  ['2026-02-12 08:45:00', { customers_id: 5, payment_method: 'invoice', tax_flag: 0, products: [{ products_id: 11, quantity: 10 }, { products_id: 14, quantity: 20 }], totals_mode: 'recalc', totals: { shipping: 9.5 }, orders_status: 1 }],
];

/** Load the demo orders. */
export function seedOrders(ctx: SandboxContext): void {
  const warnings: OrderWarning[] = [];
  ORDERS.forEach(([date, payload], index) => {
    createOrder(ctx, { ...payload, date_purchased: date, auto_stock: false }, index, warnings, date);
  });
}
