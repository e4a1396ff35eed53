/**
 * Stock an order books and a deleted order gives back. The spec: "Stock booking happens
 * automatically on create"; SKU data (model, ean, quantity) belongs to the single value in
 * `options{}` and to the combination in `option_groups[]`, so an item with attributes books the
 * product's quantity and the quantity of the SKU it names. What was booked is kept per order
 * (`order_stock_bookings`), so a delete restocks exactly that, also after the catalog changed.
 */
import type { SandboxContext } from '../../handler.js';
import { phpFloat, round4 } from '../../kit.js';
import { orderError } from './errors.js';

type Entry = Record<string, unknown>;

/** One quantity an order takes: the product's, or a SKU's (`valueId` in options{}, `detailId` in option_groups[]). */
interface Booking {
  readonly productId: number;
  readonly optionId: number;
  readonly valueId: number;
  readonly detailId: number;
  quantity: number;
}

/** Create the bookings table (the handler's `init`). */
export function initStockBookings(ctx: SandboxContext): void {
  ctx.db.exec(
    'CREATE TABLE IF NOT EXISTS order_stock_bookings (orders_id INTEGER NOT NULL, products_id INTEGER NOT NULL, option_id INTEGER NOT NULL, value_id INTEGER NOT NULL, detail_id INTEGER NOT NULL, quantity REAL NOT NULL)',
  );
}

/** A SKU is maintained when it has its own model or EAN (value 0 / empty SKU data: nothing kept). */
function maintained(sku: Entry): boolean {
  return (typeof sku.model === 'string' && sku.model !== '') || (typeof sku.ean === 'string' && sku.ean !== '');
}

function pairKey(optionId: unknown, valueId: unknown): string {
  return `${String(optionId)}:${String(valueId)}`;
}

/** The SKU an item's attributes name: a single option value, else the combination of all of them. */
function skuBookings(product: Entry, item: Entry): Omit<Booking, 'quantity'>[] {
  const productId = product.products_id as number;
  const attributes = ((item.attributes as Entry[] | undefined) ?? []).map((a) => pairKey(a.option_id, a.value_id));
  if (attributes.length === 0) return [];
  const out: Omit<Booking, 'quantity'>[] = [];
  const options = (product.options as Record<string, Entry> | undefined) ?? {};
  for (const option of Object.values(options)) {
    for (const value of (option.values as Entry[] | undefined) ?? []) {
      if (attributes.includes(pairKey(option.options_id, value.options_values_id)) && maintained(value)) {
        out.push({ productId, optionId: option.options_id as number, valueId: value.options_values_id as number, detailId: 0 });
      }
    }
  }
  for (const group of (product.option_groups as Entry[] | undefined) ?? []) {
    for (const combination of (group.combinations as Entry[] | undefined) ?? []) {
      const pairs = ((combination.values as Entry[] | undefined) ?? []).map((v) => pairKey(v.options_id, v.options_values_id));
      if ((combination.detail_id as number) > 0 && maintained(combination) && pairs.length > 0 && pairs.every((p) => attributes.includes(p))) {
        out.push({ productId, optionId: 0, valueId: 0, detailId: combination.detail_id as number });
      }
    }
  }
  return out;
}

function bookingKey(b: Omit<Booking, 'quantity'>): string {
  return `${b.productId}/${b.optionId}/${b.valueId}/${b.detailId}`;
}

/** The SKU record a booking names inside its product (undefined for the product's own quantity). */
function skuOf(product: Entry, b: Omit<Booking, 'quantity'>): Entry | undefined {
  if (b.detailId > 0) {
    for (const group of (product.option_groups as Entry[] | undefined) ?? []) {
      const hit = ((group.combinations as Entry[] | undefined) ?? []).find((c) => c.detail_id === b.detailId);
      if (hit) return hit;
    }
    return undefined;
  }
  if (b.valueId > 0) {
    const option = ((product.options as Record<string, Entry> | undefined) ?? {})[String(b.optionId)];
    return ((option?.values as Entry[] | undefined) ?? []).find((v) => v.options_values_id === b.valueId);
  }
  return undefined;
}

/** Add `delta` to a booking's quantity (product or SKU) in the stored product. */
function adjust(ctx: SandboxContext, b: Omit<Booking, 'quantity'>, delta: number): void {
  const product = ctx.store.get('products', b.productId);
  if (!product) return;
  if (b.valueId === 0 && b.detailId === 0) product.products_quantity = round4(phpFloat(product.products_quantity) + delta);
  else {
    const sku = skuOf(product, b);
    if (!sku) return;
    sku.quantity = round4(phpFloat(sku.quantity) + delta);
  }
  ctx.store.put('products', b.productId, { ...product, products_last_modified: ctx.timestamp() });
}

/**
 * Book stock for an order's items (unless auto_stock is false); with auto_stock true, refuse the
 * order when the product or the SKU has too little. Returns what was booked, for `recordBookings`.
 */
export function bookStock(ctx: SandboxContext, items: readonly Entry[], autoStock: boolean | undefined, index: number): Booking[] {
  if (autoStock === false) return [];
  const needed = new Map<string, Booking>();
  const add = (b: Omit<Booking, 'quantity'>, quantity: number): void => {
    const known = needed.get(bookingKey(b));
    if (known) known.quantity += quantity;
    else needed.set(bookingKey(b), { ...b, quantity });
  };
  for (const item of items) {
    const productId = item.products_id as number;
    if (productId <= 0) continue;
    const product = ctx.store.get('products', productId);
    if (!product) continue;
    add({ productId, optionId: 0, valueId: 0, detailId: 0 }, item.quantity as number);
    for (const sku of skuBookings(product, item)) add(sku, item.quantity as number);
  }
  if (autoStock === true) {
    for (const b of needed.values()) {
      const product = ctx.store.get('products', b.productId) as Entry;
      const sku = skuOf(product, b);
      const available = phpFloat(sku ? sku.quantity : product.products_quantity);
      if (available < b.quantity) {
        const what = sku ? `SKU ${String(sku.model || sku.ean)} of product ${b.productId}` : `Product ${b.productId}`;
        orderError('STOCK_INSUFFICIENT', `${what} has ${available} in stock, the order needs ${b.quantity}`, index, {
          products_id: b.productId,
          products_model: sku ? sku.model : product.products_model,
          ...(sku ? { options_id: b.optionId, options_values_id: b.valueId, detail_id: b.detailId } : {}),
          requested: b.quantity,
          available,
        });
      }
    }
  }
  for (const b of needed.values()) adjust(ctx, b, -b.quantity);
  return [...needed.values()];
}

/** Keep what an order booked, so its delete can give it back. */
export function recordBookings(ctx: SandboxContext, ordersId: number, bookings: readonly Booking[]): void {
  const insert = ctx.sql('INSERT INTO order_stock_bookings VALUES (?, ?, ?, ?, ?, ?)');
  for (const b of bookings) insert.run(ordersId, b.productId, b.optionId, b.valueId, b.detailId, b.quantity);
}

/** Give back what a deleted order booked (product and SKU quantities); returns how many lines. */
export function restock(ctx: SandboxContext, ordersId: number): number {
  const rows = ctx.sql('SELECT products_id, option_id, value_id, detail_id, quantity FROM order_stock_bookings WHERE orders_id = ?').all(ordersId) as {
    products_id: number;
    option_id: number;
    value_id: number;
    detail_id: number;
    quantity: number;
  }[];
  for (const r of rows) adjust(ctx, { productId: r.products_id, optionId: r.option_id, valueId: r.value_id, detailId: r.detail_id }, r.quantity);
  ctx.sql('DELETE FROM order_stock_bookings WHERE orders_id = ?').run(ordersId);
  return rows.length;
}
