/**
 * The shop's side of an order after checkout (issue 44): its staff or payment module sets a status
 * (with a comment), cancels it, adds a tracking entry or a return label (`is_retoure`), changes the
 * delivery address; customers placed some orders days ago (date_purchased in the past); the ERP
 * marks the change rows it acted on. Each command picks one of the orders the sim's customers
 * placed and records in the model what the shop did and whether the ERP had the order then.
 */
import { FOLLOW, STATUS, isFinal, statusKind, tolerateReleases, type FollowedOrder, type ShopChange } from '../follow.js';
import { reservedFigure, stampOf, type Model, type ShopOrder } from '../model.js';
import type { Outcome, Sim } from '../sim.js';
import { IMPORT_NAME_LIMIT } from '../world.js';
import { SimCommand, type Args } from './base.js';

const world = (note?: string): Outcome => ({ kind: 'world', ...(note ? { note } : {}) });

/** The shop's clock (the sandbox runs in this process; a ClockStep moved this process's clock and the shop's back by as much). */
function shopNow(sim: Sim): number {
  return Date.now() - sim.world.clockOffsetMs;
}

/** One order as the shop holds it now, faults lifted. */
async function readOrder(sim: Sim, id: number): Promise<Record<string, unknown> | undefined> {
  return sim.world.unfaulted(async () => {
    for await (const o of sim.world.staff.exportAll('orders', { filters: { orders_id: id } })) if (Number(o.orders_id) === id) return o;
    return undefined;
  });
}

/** Something the shop does to one of the customers' orders: the `pick`-th of those it may act on. */
abstract class OrderAction extends SimCommand {
  constructor(
    readonly pick: number,
    args: Args,
  ) {
    super({ pick, ...args });
  }
  override check(m: Readonly<Model>): boolean {
    return m.orders.length > 0;
  }
  /** Whether this action may be done to an order whose shop status is final (a status change may not: the follow stopped). */
  protected abstract readonly onFinal: boolean;
  protected abstract change(m: Model, sim: Sim, o: FollowedOrder): Promise<{ payload: Record<string, unknown>; change: Omit<ShopChange, 'ordersId' | 'atMs' | 'afterDelivery' | 'afterFinal'>; note: string }>;

  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const may = (o: ShopOrder) => this.onFinal || !isFinal(m.follow.orders.get(o.ordersId)?.status ?? STATUS.pending);
    // A negative pick names an order by its place from the newest (a scenario's own order); a positive one, among those it may change.
    const candidates = this.pick < 0 ? [m.orders.at(this.pick)].filter((o): o is ShopOrder => o !== undefined && may(o)) : m.orders.filter(may);
    if (candidates.length === 0) return world('no order it may change');
    const order = candidates[Math.abs(this.pick) % candidates.length]!;
    const fo = await followed(m, sim, order);
    const { payload, change, note } = await this.change(m, sim, fo);
    // Whether the ERP has the order now: before its first delivery a change is part of what that delivery carries.
    const afterDelivery = sim.world.erp.prepare('SELECT 1 FROM shop_orders WHERE orders_id = ?').get(fo.ordersId) !== undefined;
    const res = await sim.world.unfaulted(() => sim.world.staff.update('orders', [{ orders_id: fo.ordersId, ...payload }]));
    if (!res.outcomes.every((o) => o.ok)) throw new Error(`the shop refused the staff's change of order ${fo.ordersId}: ${JSON.stringify(res.outcomes)}`);
    fo.changes.push({ ordersId: fo.ordersId, ...change, atMs: shopNow(sim), afterDelivery, afterFinal: isFinal(fo.status) });
    if (change.status !== undefined) fo.status = change.status;
    return world(`order ${fo.ordersId} ${note}${afterDelivery ? '' : ' (not in the ERP yet)'}`);
  }
}

/** The model's record of an order the shop changes, read from the shop the first time (its placement day and status). */
async function followed(m: Model, sim: Sim, order: ShopOrder): Promise<FollowedOrder> {
  const known = m.follow.orders.get(order.ordersId);
  if (known) return known;
  const shop = await readOrder(sim, order.ordersId);
  if (!shop) throw new Error(`order ${order.ordersId} the customer placed is not in the shop`);
  const fo: FollowedOrder = { ordersId: order.ordersId, refused: order.name.length > IMPORT_NAME_LIMIT, placedDay: String(shop.date_purchased).slice(0, 10), status: Number(shop.orders_status), changes: [], cancelledBeforeFirstPull: false };
  m.follow.orders.set(order.ordersId, fo);
  return fo;
}

const ACTORS = { staff: 'Shop-Team', payment: 'Zahlungsmodul' } as const;

/** The shop's staff or its payment module sets an order's status, with a comment; on an order already final, it is a comment on its status. */
export class ShopSetsStatus extends OrderAction {
  readonly name = 'ShopSetsStatus';
  protected readonly onFinal = true;
  constructor(pick: number, readonly status: number, readonly by: keyof typeof ACTORS) {
    super(pick, { status, by });
  }
  protected async change(m: Model, _sim: Sim, o: FollowedOrder) {
    const status = isFinal(o.status) ? o.status : this.status;
    const comment = `${ACTORS[this.by]} ${m.follow.next()}: Status ${status}`;
    const kind = statusKind(status, o.status);
    m.coverage.shopStatusChanges++;
    if (kind === 'return') m.coverage.returnEntries++;
    return { payload: { orders_status: status, comments: comment }, change: { kind, status, comment }, note: `${o.status} → ${status} (${kind})` };
  }
}

/** The shop cancels an order (its staff, or the customer in the account): status cancelled, with a comment. */
export class ShopCancels extends OrderAction {
  readonly name = 'ShopCancels';
  protected readonly onFinal = false;
  constructor(pick: number) {
    super(pick, {});
  }
  protected async change(m: Model, sim: Sim, o: FollowedOrder) {
    const status = FOLLOW.cancelled[0];
    const comment = `Storno ${m.follow.next()}`;
    if (sim.world.erp.prepare('SELECT 1 FROM shop_orders WHERE orders_id = ?').get(o.ordersId) === undefined) o.cancelledBeforeFirstPull = true;
    const r = m.reservations.get(o.ordersId);
    if (r) r.cancelled = true;
    m.coverage.cancellations++;
    return { payload: { orders_status: status, comments: comment }, change: { kind: statusKind(status, o.status), status, comment }, note: `cancelled (was ${o.status})` };
  }
}

/** The shop adds a tracking entry to an order: a parcel on its way, or a return label (`is_retoure: true`). */
export class ShopAddsTracking extends OrderAction {
  readonly name = 'ShopAddsTracking';
  protected readonly onFinal = true;
  constructor(pick: number, readonly retoure: boolean) {
    super(pick, { retoure });
  }
  protected async change(m: Model, _sim: Sim, o: FollowedOrder) {
    const code = `SIM${o.ordersId}X${m.follow.next()}`;
    if (this.retoure) m.coverage.returnEntries++;
    else m.coverage.trackingEntries++;
    return { payload: { tracking: [{ service_provider: 'DHL', code, is_retoure: this.retoure }] }, change: { kind: this.retoure ? ('return' as const) : ('tracking' as const), code }, note: `${this.retoure ? 'return label' : 'tracking'} ${code}` };
  }
}

/** The customer moves: the shop's staff change the order's delivery address. */
export class ShopChangesAddress extends OrderAction {
  readonly name = 'ShopChangesAddress';
  protected readonly onFinal = true;
  constructor(pick: number) {
    super(pick, {});
  }
  protected async change(m: Model) {
    const street = `Neue Str. ${m.follow.next()}`;
    m.coverage.addressChanges++;
    return { payload: { delivery: { street_address: street } }, change: { kind: 'address' as const, field: 'delivery' }, note: `delivers to ${street}` };
  }
}

/**
 * An order placed days ago reaches the shop only now (date_purchased in the past: a marketplace's
 * late import), before any orders pull ran, so the first pull's window takes it; its lines are
 * manual items (articles the shop does not list: no stock booked, none reserved).
 */
export class ShopOrderPlacedEarlier extends SimCommand {
  readonly name = 'ShopOrderPlacedEarlier';
  constructor(readonly daysAgo: number, readonly lines: number) {
    super({ daysAgo, lines });
  }
  override check(m: Readonly<Model>): boolean {
    return m.follow.runs === 0;
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const lastname = `Alt ${m.orders.length + 1}`;
    const order = {
      customers_id: 0,
      tax_flag: 0,
      date_purchased: stampOf(shopNow(sim) - this.daysAgo * 86_400_000),
      billing: { firstname: 'Otto', lastname, street_address: 'Altweg 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: Array.from({ length: this.lines }, (_, i) => ({ products_model: `ALT-${i}`, products_name: `Altartikel ${i}`, quantity: i + 1, products_price: 10 })),
    };
    const res = await sim.world.unfaulted(() => sim.world.staff.create('orders', [order]));
    const placed = res.outcomes[0];
    if (!placed?.ok) throw new Error(`the shop refused the late order: ${JSON.stringify(placed)}`);
    const ordersId = Number(placed.data!.orders_id);
    m.orders.push({ ordersId, name: `Otto ${lastname}`, lines: this.lines });
    m.reservations.set(ordersId, { ordersId, lines: [], booked: false });
    m.coverage.shopOrders++;
    m.coverage.backdatedOrders++;
    return world(`order ${ordersId} placed ${order.date_purchased}`);
  }
}

/** The ERP acts on the change rows the pull appended and marks them processed (a column of its own the pull must leave alone). */
export class ErpProcessesChanges extends SimCommand {
  readonly name = 'ErpProcessesChanges';
  protected async act(_m: Model, sim: Sim): Promise<Outcome> {
    const r = sim.world.erp.prepare('UPDATE shop_order_changes SET processed = 1 WHERE processed = 0').run();
    return world(`${r.changes} change rows processed`);
  }
}

/** A stock run that settled read the shop's orders into its ledger at its start: every order placed before it (`placed`, their ids). */
export function ledgered(m: Model, placed: ReadonlySet<number>): void {
  for (const id of placed) {
    const r = m.reservations.get(id);
    if (r) r.ledgered = true;
  }
}

/** An orders run is about to start: shopsync's clock (for the age limit) and that a run happened (late orders are no longer drawn). */
export function beforeOrdersRun(m: Model): void {
  m.follow.runs++;
  m.follow.clockBehind = Date.now() < m.follow.latestRunClockMs;
  m.follow.latestRunClockMs = Math.max(m.follow.latestRunClockMs, Date.now());
}

/**
 * An orders run ended: a cancellation it must have delivered (the order followed, or delivered for
 * the first time) released the order's lines when the run settled; otherwise it may have, or not
 * (Sim.snapshot tolerates both figures then).
 */
export function afterOrdersRun(m: Model, settled: boolean): void {
  for (const r of m.reservations.values()) {
    if (!r.cancelled || r.released || r.booked) continue;
    const fo = m.follow.orders.get(r.ordersId);
    if (!fo || fo.refused) continue;
    if (settled && (fo.cancelledBeforeFirstPull || m.follow.surelyFollowed(fo))) {
      // Until the next stock run sends the article again, the shop shows what the last one sent (with these lines subtracted);
      // cancelledOrderStockIsReleased holds that next run to the released figure.
      for (const l of r.lines) {
        const row = m.products.get(l.sku);
        if (row) m.tolerate(l.sku, 'quantity', reservedFigure(Number(row.qty), m.unbooked(l.sku)));
      }
      r.released = true;
      r.releasedUnledgered = !r.ledgered;
    } else r.releaseUnsure = true;
  }
  // The promises checked after every step (cursorWithinReach) see the released figure at once.
  tolerateReleases(m);
}
