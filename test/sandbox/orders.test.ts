/**
 * Orders in the sandbox, rule by rule.
 *
 * | rule | spec line |
 * |---|---|
 * | totals modes auto, recalc, verbatim | shop-api.md:530-536 |
 * | tax_flag derived from the customer group | :538 |
 * | tax_flag table (net, gross, tax-free) | :540-544 |
 * | language_id resolution | :548 |
 * | drift check, TOTAL_DRIFT warning or rejection | :550, :683 |
 * | convenience 1: billing from the customer, delivery falls back to billing | :554 |
 * | convenience 2: items by model only; PRODUCT_MODEL_NOT_FOUND | :555 |
 * | convenience 3: default attributes incl. display attributes with signed surcharge | :556 |
 * | convenience 4: compute_shipping best effort | :557 |
 * | convenience 5: confirmation with SEND_EXTRA_ORDER_EMAILS_TO | :558 |
 * | convenience 6: category and customer discount in recalc | :559 |
 * | convenience 7: additional_address stored three ways | :560 |
 * | convenience 8: ot_tax titles per rate | :561 |
 * | external_reference deduplication (race-free) | :249, :684 |
 * | auto_stock, STOCK_INSUFFICIENT, stock booking on create | :247, :528, :683 |
 * | tracking with aliases | :250 |
 * | append-only status history | :251, :528 |
 * | order error envelope and codes | :664-686 |
 * | unknown fields warn UNKNOWN_FIELD | :16 |
 * | export filters date_from/date_to on the purchase date | :528 |
 * | date_to on the purchase datetime includes the whole boundary day | :528 |
 */
import { describe, expect, it } from 'vitest';
import { openShop, useShop } from './harness.js';

const shop = useShop();

const post = (data: unknown[]) => shop.api('POST', '/import/json/orders', { data });
const put = (data: unknown[]) => shop.api('PUT', '/import/json/orders', { type: 'orders', data });
const order = async (id: number) => (await shop.all('orders', { orders_id: id }))[0];

describe('totals and tax', () => {
  it('computes net totals with tax added for tax_flag 0', async () => {
    const res = await post([{ customers_id: 4, tax_flag: 0, products: [{ products_id: 9, quantity: 2, products_price: '10.00', products_tax: '19' }, { products_id: 19, quantity: 1, products_price: 10, products_tax: 7 }], totals: { shipping: 5 } }]);
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ ot_subtotal: 30, ot_tax: 4.5, ot_total: 39.5, tax_flag: 0, totals_mode: 'auto' });
    const o = await order(res.body.data[0].orders_id);
    expect(o.totals.filter((t: { class: string }) => t.class === 'ot_tax').map((t: { title: string; value: number }) => [t.title, t.value])).toEqual([['zzgl. MwSt. 19%', 3.8], ['zzgl. MwSt. 7%', 0.7]]);
  });

  it('computes gross totals with informative tax for tax_flag 1 and no tax for tax_flag 2', async () => {
    const gross = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 1, products_price: 11.9 }, { products_id: 19, quantity: 1, products_price: 10.7 }], totals: { shipping: 4.9 } }]);
    expect(gross.body.data[0]).toMatchObject({ tax_flag: 1, ot_subtotal: 22.6, ot_tax: 2.6, ot_total: 27.5 });
    const titles = (await order(gross.body.data[0].orders_id)).totals.filter((t: { class: string }) => t.class === 'ot_tax').map((t: { title: string }) => t.title);
    expect(titles).toEqual(['inkl. MwSt. 19%', 'inkl. MwSt. 7%']);
    const free = await post([{ customers_id: 6, products: [{ products_id: 9, quantity: 3, products_price: 10 }], totals: { shipping: 15 } }]);
    expect(free.body.data[0]).toMatchObject({ tax_flag: 2, ot_subtotal: 30, ot_tax: 0, ot_total: 45 });
  });

  it('derives tax_flag from the customer group and DISPLAY_PRICE_WITH_TAX', async () => {
    const flags = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 1 }] }, { customers_id: 4, products: [{ products_id: 9, quantity: 1 }] }, { customers_id: 6, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(flags.body.data.map((d: { tax_flag: number }) => d.tax_flag)).toEqual([1, 0, 2]);
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/settings', { DISPLAY_PRICE_WITH_TAX: 'false' });
      const res = await other.api('POST', '/import/json/orders', { data: [{ customers_id: 1, products: [{ products_id: 9, quantity: 1 }] }] });
      expect(res.body.data[0].tax_flag).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('writes plain tax titles when MODULE_ORDER_TOTAL_PREFIX is off', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/settings', { MODULE_ORDER_TOTAL_PREFIX: 'false' });
      const res = await other.api('POST', '/import/json/orders', { data: [{ customers_id: 4, products: [{ products_id: 9, quantity: 1 }] }] });
      const o = (await other.api('GET', `/export/json/orders?orders_id=${res.body.data[0].orders_id}`)).body.data[0];
      expect(o.totals.find((t: { class: string }) => t.class === 'ot_tax').title).toBe('MwSt. 19%');
    } finally {
      await other.close();
    }
  });

  it('takes sent totals in auto and verbatim mode and recomputes prices in recalc mode', async () => {
    const auto = await post([{ customers_id: 4, products: [{ products_id: 9, quantity: 1, products_price: 10 }], totals: { subtotal: 10, tax: 1.9, total: 99 } }]);
    expect(auto.body.data[0]).toMatchObject({ ot_total: 99, totals_mode: 'auto' });
    const verbatim = await post([{ customers_id: 4, totals_mode: 'verbatim', products: [{ products_id: 9, quantity: 1, products_price: 10 }], totals: { subtotal: 12, shipping: 0, tax: 2, total: 14 } }]);
    expect(verbatim.body.data[0]).toMatchObject({ ot_subtotal: 12, ot_tax: 2, ot_total: 14, totals_mode: 'verbatim' });
    const noTotal = await post([{ customers_id: 4, totals_mode: 'verbatim', products: [{ products_id: 9, quantity: 1 }] }]);
    expect(noTotal.status).toBe(400);
    // Product 9: net 9.90, merchant group price 8.415 (group 3); customer 4 is in group 3 with 5 % group discount.
    const recalc = await post([{ customers_id: 4, totals_mode: 'recalc', products: [{ products_id: 9, quantity: 2, products_price: 1 }, { products_id: 0, products_name: 'Manual fee', quantity: 1, products_price: 3, products_tax: 19 }], totals: { shipping: 0 } }]);
    const o = await order(recalc.body.data[0].orders_id);
    expect(o.products[0].products_price).toBeCloseTo(8.415 * 0.95, 3);
    expect(o.products[0]).toMatchObject({ products_tax: 19, products_ek_price: 5.445, products_ean: expect.any(String) });
    expect(o.products[1]).toMatchObject({ products_id: 0, products_price: 3 });
    expect(recalc.body.data[0].ot_subtotal).toBe(18.99);
  });

  it('applies the category and customer discount in recalc, the cheaper price winning, with inheritance', async () => {
    // Customer 4: 10 % on category 5 (kitchen), subcategories; product 15 (chef knife, 59.00 net, group price 50.15).
    const res = await post([{ customers_id: 4, totals_mode: 'recalc', products: [{ products_id: 15, quantity: 1 }], totals: { shipping: 0 } }]);
    expect((await order(res.body.data[0].orders_id)).products[0].products_price).toBe(45.135);
    // Customer 5: 7.5 % on category 1 (electronics) inherited by audio (2) for product 1 (89.90, group price 76.415).
    const inherited = await post([{ customers_id: 5, totals_mode: 'recalc', products: [{ products_id: 1, quantity: 1 }] }]);
    expect((await order(inherited.body.data[0].orders_id)).products[0].products_price).toBe(70.6839);
  });

  it('warns CATEGORY_DISCOUNT_UNAVAILABLE when a discount category is gone, and keeps the order', async () => {
    const other = await openShop();
    try {
      await other.client.update('customers', [{ customers_id: 1, discounts: [{ category_id: 7, value: 20 }] }]);
      await other.client.delete('categories', 7);
      const res = await other.api('POST', '/import/json/orders', { data: [{ customers_id: 1, totals_mode: 'recalc', products: [{ products_id: 9, quantity: 1 }] }] });
      expect(res.status).toBe(200);
      expect(res.body.warnings.map((w: { code: string }) => w.code)).toContain('CATEGORY_DISCOUNT_UNAVAILABLE');
    } finally {
      await other.close();
    }
  });

  it('checks the drift: a warning, or TOTAL_DRIFT 422 with strict_totals', async () => {
    const lenient = await post([{ customers_id: 4, products: [{ products_id: 9, quantity: 1, products_price: 10 }], expected_total: '12.00' }]);
    expect(lenient.status).toBe(200);
    expect(lenient.body.warnings[0]).toMatchObject({ code: 'TOTAL_DRIFT', details: { expected: '12.00', calculated: '11.90' } });
    const exact = await post([{ customers_id: 4, products: [{ products_id: 9, quantity: 1, products_price: 10 }], expected_total: '11.90', strict_totals: true }]);
    expect(exact.status).toBe(200);
    const strict = await post([{ customers_id: 4, products: [{ products_id: 9, quantity: 1, products_price: 10 }], expected_total: '12.00', strict_totals: true }]);
    expect(strict.status).toBe(422);
    expect(strict.body).toMatchObject({ success: false, api_version: expect.any(String), error: { code: 'TOTAL_DRIFT', details: { index: 0, expected: '12.00', calculated: '11.90', tolerance: 0.01 } } });
  });
});

describe('language and addresses', () => {
  it('resolves language_id from the payload, the customer, DEFAULT_LANGUAGE, then 1', async () => {
    const res = await post([
      { customers_id: 1, language_id: 1, products: [{ products_id: 9, quantity: 1 }] },
      { customers_id: 3, products: [{ products_id: 9, quantity: 1 }] },
      { customers_id: 0, billing: { firstname: 'G', lastname: 'H', street_address: 'S 1', postcode: '1', city: 'C', country_iso_code_2: 'DE' }, products: [{ products_id: 9, quantity: 1 }] },
    ]);
    expect(res.body.data.map((d: { language_id: number }) => d.language_id)).toEqual([1, 1, 2]);
    const o = await order(res.body.data[0].orders_id);
    expect(o.products[0].products_name).toBe('HDMI cable 2 m');
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/settings', { DEFAULT_LANGUAGE: 'fr' });
      const guest = await other.api('POST', '/import/json/orders', { data: [{ billing: { firstname: 'G', lastname: 'H', street_address: 'S 1', postcode: '1', city: 'C', country: 'Germany' }, products: [{ products_id: 9, quantity: 1 }] }] });
      expect(guest.body.data[0].language_id).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('completes billing from the customer (sent fields win) and falls back to billing for delivery', async () => {
    const res = await post([{ customers_id: 4, billing: { company: 'Override AG', additional_address: 'c/o Einkauf' }, delivery: { firstname: 'Only' }, products: [{ products_id: 9, quantity: 1 }] }]);
    const o = await order(res.body.data[0].orders_id);
    expect(o.billing).toMatchObject({ company: 'Override AG', firstname: 'Buchhaltung', street_address: 'Postfach 1020', country_iso_code_2: 'DE' });
    expect(o.delivery).toMatchObject({ company: 'Override AG', firstname: 'Buchhaltung', street_address: 'Postfach 1020' });
    expect(o).toMatchObject({ customers_additional_address: 'c/o Einkauf', billing_additional_address: 'c/o Einkauf', delivery_additional_address: '' });
    const separate = await post([{ customers_id: 1, delivery: { firstname: 'Paul', lastname: 'Paket', street_address: 'Packstation 101', postcode: '10117', city: 'Berlin', country_iso_code_2: 'DE', additional_address: 'Postnummer 123' }, products: [{ products_id: 9, quantity: 1 }] }]);
    const o2 = await order(separate.body.data[0].orders_id);
    expect(o2.delivery).toMatchObject({ street_address: 'Packstation 101', additional_address: 'Postnummer 123' });
    expect(o2.delivery_additional_address).toBe('Postnummer 123');
  });

  it('refuses a guest order without a complete billing address', async () => {
    const res = await post([{ products: [{ products_id: 9, quantity: 1 }], billing: { firstname: 'X' } }]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_PAYLOAD', details: { index: 0, field: 'billing' } });
  });
});

describe('items and convenience', () => {
  it('resolves items by model only and warns PRODUCT_MODEL_NOT_FOUND for unknown models', async () => {
    const res = await post([{ customers_id: 1, products: [{ products_model: 'DEMO-1010', quantity: 1 }, { products_model: 'GONE-1', quantity: 1, products_price: 5 }] }]);
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([expect.objectContaining({ code: 'PRODUCT_MODEL_NOT_FOUND', field: 'products[1].products_model' })]);
    const o = await order(res.body.data[0].orders_id);
    expect(o.products[0]).toMatchObject({ products_id: 10, products_name: 'USB-C-Kabel 1 m' });
    expect(o.products[1]).toMatchObject({ products_id: 0, products_price: 5 });
  });

  it('pulls default attributes, display attributes with their surcharge included', async () => {
    const res = await post([{ customers_id: 4, apply_default_attributes: true, products: [{ products_id: 1, quantity: 1 }, { products_id: 1, quantity: 1, attributes: [{ option_id: 1, value_id: 2 }] }] }]);
    const [withDefaults, own] = (await order(res.body.data[0].orders_id)).products;
    expect(withDefaults.attributes.map((a: { option_id: number; value_id: number }) => [a.option_id, a.value_id])).toEqual([[1, 1], [5, 9]]);
    expect(withDefaults.products_price).toBe(78.915);
    expect(own.attributes.map((a: { value_id: number }) => a.value_id)).toEqual([2]);
    expect(own.products_price).toBe(81.415);
  });

  it('computes shipping best effort and warns when it cannot', async () => {
    const de = await post([{ customers_id: 4, compute_shipping: true, products: [{ products_id: 9, quantity: 1, products_price: 10 }] }]);
    const o = await order(de.body.data[0].orders_id);
    expect(o).toMatchObject({ ot_shipping: 4.9, shipping_method: 'DHL Paket' });
    const us = await post([{ billing: { firstname: 'A', lastname: 'B', street_address: 'C', postcode: '1', city: 'NYC', country_iso_code_2: 'US' }, compute_shipping: true, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(us.body.warnings.map((w: { code: string }) => w.code)).toEqual(['SHIPPING_AUTO_EMPTY']);
    const nowhere = await post([{ billing: { firstname: 'A', lastname: 'B', street_address: 'C', postcode: '1', city: 'X', country: 'Atlantis' }, compute_shipping: true, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(nowhere.body.warnings.map((w: { code: string }) => w.code)).toEqual(['SHIPPING_AUTO_FAILED']);
  });

  it('sends the confirmation with copies to SEND_EXTRA_ORDER_EMAILS_TO', async () => {
    const res = await post([{ customers_id: 2, send_confirmation_email: true, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(res.body.data[0].confirmation_email_sent).toBe(true);
    const mails = (await shop.api('GET', '/sandbox/outbox')).body.data.filter((m: { recordId: number }) => m.recordId === res.body.data[0].orders_id);
    expect(mails).toEqual([expect.objectContaining({ kind: 'order_confirmation', to: ['max.schneider@example.com'], data: expect.objectContaining({ cc: ['orders@demo-shop.example', 'accounting@demo-shop.example'] }) })]);
    const none = await post([{ customers_id: 2, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(none.body.data[0]).not.toHaveProperty('confirmation_email_sent');
  });

  it('warns UNKNOWN_FIELD for fields outside the order interface', async () => {
    const res = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 1 }], gift_message: 'hi' }]);
    expect(res.body.warnings).toEqual([expect.objectContaining({ code: 'UNKNOWN_FIELD', field: 'gift_message' })]);
  });
});

describe('references, stock, tracking and history', () => {
  it('creates one order for two concurrent POSTs with the same external reference', async () => {
    const payload = { customers_id: 1, products: [{ products_id: 9, quantity: 1 }], external_reference: { source: 'ebay', external_id: 'E-1', marketplace_id: 3 } };
    const [a, b] = await Promise.all([post([payload]), post([payload])]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const dup = a.status === 409 ? a : b;
    const created = a.status === 200 ? a : b;
    expect(dup.body.error).toMatchObject({ code: 'DUPLICATE_EXTERNAL_REFERENCE', details: { index: 0, orders_id: created.body.data[0].orders_id, source: 'ebay', external_id: 'E-1' } });
    const viaClient = await shop.client.create('orders', [payload]);
    expect(viaClient.outcomes[0].error?.apiCode).toBe('DUPLICATE_EXTERNAL_REFERENCE');
  });

  it('books stock on create, refuses insufficient stock with auto_stock, and skips booking with auto_stock false', async () => {
    const stock = async () => (await shop.client.exportOne('products', 20))?.products_quantity as number;
    const start = await stock();
    await post([{ customers_id: 1, products: [{ products_id: 20, quantity: 2 }] }]);
    expect(await stock()).toBe(start - 2);
    const refused = await post([{ customers_id: 1, auto_stock: true, products: [{ products_id: 20, quantity: start + 100 }] }]);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'STOCK_INSUFFICIENT', details: { index: 0, products_id: 20, available: start - 2 } });
    await post([{ customers_id: 1, auto_stock: false, products: [{ products_id: 20, quantity: 1 }] }]);
    expect(await stock()).toBe(start - 2);
  });

  it('books the stock of the option value and of the combination an item names, and refuses a short SKU with auto_stock', async () => {
    type Product = { products_quantity: number; options: Record<string, { values: { options_values_id: number; quantity: number }[] }>; option_groups: { combinations: { detail_id: number; quantity: number }[] }[] };
    const product = async (id: number) => (await shop.client.exportOne('products', id)) as unknown as Product;
    const white = (p: Product) => p.options['1'].values.find((v) => v.options_values_id === 2)?.quantity;
    const redSmall = (p: Product) => p.option_groups[0].combinations.find((c) => c.detail_id === 11)?.quantity;
    await shop.client.update('products', [{ products_id: 1, products_quantity: 100 }, { products_id: 2, products_quantity: 100 }]);
    const [p1, p2] = [await product(1), await product(2)];
    const res = await post([{ customers_id: 1, products: [{ products_id: 1, quantity: 2, attributes: [{ option_id: 1, value_id: 2 }] }, { products_id: 2, quantity: 3, attributes: [{ option_id: 2, value_id: 3 }, { option_id: 3, value_id: 5 }] }] }]);
    expect(res.status).toBe(200);
    const [q1, q2] = [await product(1), await product(2)];
    expect([q1.products_quantity, white(q1)]).toEqual([p1.products_quantity - 2, (white(p1) as number) - 2]);
    expect([q2.products_quantity, redSmall(q2)]).toEqual([p2.products_quantity - 3, (redSmall(p2) as number) - 3]);
    const short = await post([{ customers_id: 1, auto_stock: true, products: [{ products_id: 1, quantity: (white(q1) as number) + 1, attributes: [{ option_id: 1, value_id: 2 }] }] }]);
    expect(short.status).toBe(409);
    expect(short.body.error).toMatchObject({ code: 'STOCK_INSUFFICIENT', details: { products_id: 1, options_values_id: 2, available: white(q1) } });
  });

  it('gives back the product and SKU stock an order booked when the order is deleted', async () => {
    const white = async () => {
      const p = (await shop.client.exportOne('products', 1)) as unknown as { products_quantity: number; options: Record<string, { values: { options_values_id: number; quantity: number }[] }> };
      return [p.products_quantity, p.options['1'].values.find((v) => v.options_values_id === 2)?.quantity];
    };
    const before = await white();
    const res = await post([{ customers_id: 1, products: [{ products_id: 1, quantity: 1, attributes: [{ option_id: 1, value_id: 2 }] }] }]);
    expect(await white()).toEqual([(before[0] as number) - 1, (before[1] as number) - 1]);
    await shop.client.delete('orders', res.body.data[0].orders_id);
    expect(await white()).toEqual(before);
  });

  it('rejects the whole request when one order fails, with the error codes and statuses', async () => {
    const before = (await shop.api('GET', '/export/json/orders')).body.pagination.total;
    const customer = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 1 }] }, { customers_id: 999, products: [{ products_id: 9, quantity: 1 }] }]);
    expect(customer.status).toBe(404);
    expect(customer.body.error).toMatchObject({ code: 'CUSTOMER_NOT_FOUND', details: { index: 1 } });
    expect((await shop.api('GET', '/export/json/orders')).body.pagination.total).toBe(before);
    const product = await post([{ customers_id: 1, products: [{ products_id: 9999, quantity: 1 }] }]);
    expect([product.status, product.body.error.code]).toEqual([404, 'PRODUCT_NOT_FOUND']);
    const invalid = await post([{ customers_id: 1, products: [] }]);
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'INVALID_PAYLOAD']);
    const quantity = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 'many' }] }]);
    expect(quantity.body.error.details.field).toBe('products[0].quantity');
  });

  it('stores tracking with aliases and updates an entry by its code', async () => {
    const res = await post([{ customers_id: 1, products: [{ products_id: 9, quantity: 1 }], tracking: [{ method: 'DHL', tracking_number: 'T1', link: 'https://t/1' }] }]);
    const id = res.body.data[0].orders_id;
    await put([{ orders_id: id, tracking: [{ service_provider: 'DHL', code: 'T1', is_retoure: true }, { service_provider: 'UPS', code: 'T2' }] }]);
    const tracking = (await order(id)).tracking;
    expect(tracking.map((t: { service_provider: string; code: string; is_retoure: boolean; link: string }) => [t.service_provider, t.code, t.is_retoure, t.link])).toEqual([['DHL', 'T1', true, 'https://t/1'], ['UPS', 'T2', false, '']]);
  });

  it('keeps the status history append-only and notifies on a status change when asked', async () => {
    const res = await post([{ customers_id: 2, products: [{ products_id: 9, quantity: 1 }], comments: 'created' }]);
    const id = res.body.data[0].orders_id;
    await put([{ orders_id: id, orders_status: 3, comments: 'shipped', customer_notified: true }]);
    await put([{ orders_id: id, status_history: [{ orders_status_id: 5, comments: 'returned', date_added: '2026-03-01 12:00:00' }] }]);
    await put([{ orders_id: id, status_history: [{ orders_status_id: 5, comments: 'returned', date_added: '2026-03-01 12:00:00' }] }]);
    const o = await order(id);
    expect(o.status_history.map((h: { orders_status_id: number; comments: string }) => [h.orders_status_id, h.comments])).toEqual([[1, 'created'], [3, 'shipped'], [5, 'returned'], [5, 'returned']]);
    expect(o.orders_status).toBe(5);
    const mails = (await shop.api('GET', '/sandbox/outbox')).body.data.filter((m: { kind: string; recordId: number }) => m.kind === 'order_status' && m.recordId === id);
    expect(mails).toHaveLength(1);
    expect((await put([{ orders_id: 999999, orders_status: 2 }])).status).toBe(404);
  });

  it('includes an order purchased late on the date_to day', async () => {
    const res = await post([{ customers_id: 2, products: [{ products_id: 9, quantity: 1 }], date_purchased: '2026-01-31 18:00:00' }]);
    const id = res.body.data[0].orders_id;
    expect((await shop.all('orders', { date_to: '2026-01-31' })).map((o) => o.orders_id)).toContain(id);
    expect((await shop.all('orders', { date_from: '2026-01-31', date_to: '2026-01-31' })).map((o) => o.orders_id)).toEqual([id]);
    expect((await shop.all('orders', { date_to: '2026-01-30' })).map((o) => o.orders_id)).not.toContain(id);
  });

  it('filters the export by purchase date and carries date_purchased and last_modified', async () => {
    const feb = await shop.all('orders', { date_from: '2026-02-05', date_to: '2026-02-09' });
    expect(feb.map((o) => o.date_purchased)).toEqual(['2026-02-05 09:05:00', '2026-02-07 18:30:00', '2026-02-09 11:00:00']);
    for (const o of feb) expect(o.last_modified).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await shop.all('orders', { customers_id: 6, orders_status: 1 })).length).toBeGreaterThan(0);
  });
});
