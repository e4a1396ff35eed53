/**
 * What happens at the shop: staff edit a product there (the pipeline does not know), customers
 * place orders, and the shop misbehaves (fault profiles of the sandbox, in force until the next).
 */
import { skuOf, type Model } from '../model.js';
import type { Outcome, Sim } from '../sim.js';
import { IMPORT_NAME_LIMIT, NO_FAULTS, type FaultSettings } from '../world.js';
import { SimCommand } from './base.js';

/**
 * The sandbox's fault profiles the histories draw from (src/sandbox/faults.ts). Rates apply
 * deterministically from the moment a profile is put in force, and the checks after every step
 * lift and restore it: each run meets its first fault after 1/rate requests.
 */
export const FAULT_PROFILES: Readonly<Record<string, FaultSettings>> = {
  off: NO_FAULTS,
  /** More than 3 requests in a second are answered 429 with Retry-After: 1. */
  storm429: { ...NO_FAULTS, rate_limit_per_second: 3 },
  /** Every second request is answered 503 before it takes effect. */
  burst503: { ...NO_FAULTS, error_rate: 0.5, error_status: 503 },
  /** Every second request takes effect and its answer is lost (the connection is destroyed). */
  lost: { ...NO_FAULTS, reset_after_write_rate: 0.5 },
  /** Every third connection is reset before the request takes effect. */
  reset: { ...NO_FAULTS, reset_rate: 0.34 },
  /** 20 to 60 ms on every request. */
  latency: { ...NO_FAULTS, latency_ms: 20, latency_jitter_ms: 40 },
  /** All of it at once, at lower rates. */
  mixed: { ...NO_FAULTS, rate_limit_per_second: 5, error_rate: 0.2, reset_rate: 0.15, reset_after_write_rate: 0.25, latency_ms: 5, latency_jitter_ms: 20 },
};

/** The shop starts (or stops) misbehaving. */
export class SetFaults extends SimCommand {
  readonly name = 'SetFaults';
  constructor(readonly profile: string) {
    super({ profile });
  }
  override check(m: Readonly<Model>): boolean {
    return m.faults !== this.profile;
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    await sim.world.setFaults(FAULT_PROFILES[this.profile]!);
    m.faults = this.profile;
    return { kind: 'world' };
  }
}

/** Shop staff change a product's price or name in the shop's admin. */
export class ShopEdit extends SimCommand {
  readonly name = 'ShopEdit';
  constructor(readonly n: number, readonly field: 'price' | 'name') {
    super({ n, field });
  }
  override check(m: Readonly<Model>): boolean {
    return m.products.has(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const sku = skuOf(this.n);
    const found = (await sim.world.shopProducts()).find((p) => p.products_model === sku);
    if (!found) return { kind: 'world', note: 'not in the shop yet' };
    const value = this.field === 'price' ? 777.77 : 'Im Shop geändert';
    const change = this.field === 'price' ? { products_price: value } : { languages: { de: { products_name: value } } };
    const res = await sim.world.unfaulted(() => sim.world.staff.update('products', [{ products_id: found.products_id, ...change }]));
    if (!res.outcomes.every((o) => o.ok)) throw new Error(`the shop refused the staff's edit: ${JSON.stringify(res.outcomes)}`);
    m.tolerate(sku, this.field, value);
    m.coverage.shopEdits++;
    return { kind: 'world' };
  }
}

/**
 * A customer orders in the shop; a name longer than the ERP's import table takes makes a row it
 * refuses. The shop books the order's stock as it takes it (the spec's default: `auto_stock` not
 * sent, booked without a stock check, so an article may go below 0); the ERP books it later (ErpBooks).
 */
export class ShopOrder extends SimCommand {
  readonly name = 'ShopOrder';
  constructor(readonly lines: number, readonly longName: boolean) {
    super({ lines, longName });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const lastname = this.longName ? 'Hohenzollern-Sigmaringen' : `Kunde ${m.orders.length + 1}`;
    const order = {
      customers_id: 0,
      tax_flag: 0,
      billing: { firstname: 'Erika', lastname, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: Array.from({ length: this.lines }, (_, i) => ({ products_model: skuOf(i), products_name: `Artikel ${i}`, quantity: i + 1, products_price: 10 })),
    };
    const listed = await listedModels(sim);
    const res = await sim.world.unfaulted(() => sim.world.staff.create('orders', [order]));
    const placed = res.outcomes[0];
    if (!placed?.ok) throw new Error(`the shop refused the customer's order: ${JSON.stringify(placed)}`);
    const name = `Erika ${lastname}`;
    const ordersId = Number(placed.data!.orders_id);
    m.orders.push({ ordersId, name, lines: this.lines });
    // A line of an article the shop does not list is a manual item: the shop books nothing for it (src/reservations/refresh.ts).
    m.reservations.set(ordersId, { ordersId, lines: order.products.filter((p) => listed.has(p.products_model)).map((p) => ({ sku: p.products_model, qty: p.quantity })), booked: false });
    m.coverage.shopOrders++;
    m.coverage.bookingOrders++;
    if (name.length > IMPORT_NAME_LIMIT) m.coverage.refusedOrders++;
    return { kind: 'world', note: `order ${String(placed.data!.orders_id)}` };
  }
}

/**
 * A customer buys `qty` of one article, with the shop's stock check (`auto_stock: true`): the shop
 * books the order's stock on create, or refuses the order (STOCK_INSUFFICIENT) when it shows too
 * little, which is the promise of issue 43 seen from the customer: the shop sells only what it shows.
 */
export class CustomerBuys extends SimCommand {
  readonly name = 'CustomerBuys';
  constructor(readonly n: number, readonly qty: number) {
    super({ n, qty });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const sku = skuOf(this.n);
    if (!(await listedModels(sim)).has(sku)) return { kind: 'world', note: `the shop does not list ${sku}` };
    const order = {
      customers_id: 0,
      auto_stock: true,
      tax_flag: 0,
      billing: { firstname: 'Kim', lastname: `Kauf ${m.orders.length + 1}`, street_address: 'Hauptstr. 2', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: [{ products_model: sku, products_name: `Artikel ${this.n}`, quantity: this.qty, products_price: 10 }],
    };
    const res = await sim.world.unfaulted(() => sim.world.staff.create('orders', [order]));
    const placed = res.outcomes[0];
    if (!placed?.ok) {
      if (JSON.stringify(placed).includes('STOCK_INSUFFICIENT')) {
        m.coverage.soldOut++;
        return { kind: 'world', note: `sold out: the shop refused ${this.qty} × ${sku}` };
      }
      throw new Error(`the shop refused the customer's order: ${JSON.stringify(placed)}`);
    }
    const ordersId = Number(placed.data!.orders_id);
    const name = `Kim Kauf ${m.orders.length + 1}`;
    m.orders.push({ ordersId, name, lines: 1 });
    m.reservations.set(ordersId, { ordersId, lines: [{ sku, qty: this.qty }], booked: false });
    m.coverage.shopOrders++;
    m.coverage.bookingOrders++;
    return { kind: 'world', note: `order ${ordersId}: ${this.qty} × ${sku}` };
  }
}

/** The articles the shop lists now (an order line of another is a manual item, booking nothing). */
async function listedModels(sim: Sim): Promise<Set<string>> {
  return new Set((await sim.world.shopProducts()).map((p) => String(p.products_model)));
}
