/**
 * `stock-unbooked-stuck:<pipeline>` (code STOCK_UNBOOKED_STUCK, issue 43): a shop order has waited
 * longer than the stock push's `reservations.alertAfter` for the ERP to book it. While it waits,
 * every stock push subtracts it, so nothing oversells; but the ERP's import of shop orders is
 * probably stuck, and the goods wait with it. Resolved once no order is that old any more (booked,
 * or released). Age counts from when shopsync first read the order: the shop's order time has no zone.
 */
import type { Config } from '../config/schema.js';
import type { ReservationLine } from '../reservations/types.js';
import type { StateStore } from '../state/index.js';
import type { Incidents } from './incidents.js';

/** A stock push with `reservations:`, as the alert watches it. */
export interface ReservationLane {
  readonly pipeline: string;
  readonly shop: string;
  /** `reservations.alertAfter` in ms. */
  readonly alertAfterMs: number;
  /** How the ERP says it booked an order: the message names what to check. */
  readonly booked: 'query' | 'changedAfter';
  /** Pull pipelines of the same shop's orders, which carry them to the ERP. */
  readonly ordersPulls?: readonly string[];
}

/** The stable code the messages carry. */
export const STOCK_UNBOOKED_STUCK = 'STOCK_UNBOOKED_STUCK';

/** Orders listed by name in one message; the rest are counted. */
const LISTED = 20;

const hours = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`);

/** Lines grouped by order, oldest first. */
function byOrder(lines: readonly ReservationLine[]): { ordersId: number; lines: ReservationLine[]; seenAt: number }[] {
  const orders = new Map<number, ReservationLine[]>();
  for (const l of lines) orders.set(l.ordersId, [...(orders.get(l.ordersId) ?? []), l]);
  return [...orders].map(([ordersId, ls]) => ({ ordersId, lines: ls, seenAt: Math.min(...ls.map((l) => Date.parse(l.seenAt))) })).sort((a, b) => a.seenAt - b.seenAt || a.ordersId - b.ordersId);
}

function orderLine(o: { ordersId: number; lines: ReservationLine[] }): string {
  const first = o.lines[0]!;
  const items = o.lines.map((l) => `${l.article}${l.sku ? ` / ${l.sku}` : ''} × ${l.quantity}`).join(', ');
  const reached = first.deliveredAt ? `reached the ERP ${first.deliveredAt}` : 'not delivered to the ERP by the orders pull yet';
  return `order ${o.ordersId} (${items}; placed ${first.placedAt}, read ${first.seenAt}, ${reached})`;
}

function howToCheck(lane: ReservationLane, undelivered: boolean): string {
  const pull = lane.ordersPulls?.length ? lane.ordersPulls.join(', ') : 'the orders pull';
  const steps = [
    ...(undelivered ? [`some never reached the ERP: check ${pull} (its last runs and dead letters on the dashboard, \`shopsync status\`)`] : []),
    lane.booked === 'query'
      ? `check the ERP's import of shop orders (its job or staging table) and run the pipeline's reservations.booked.query for these orders: it should answer them once they are booked`
      : `check the ERP's import of shop orders: with booked: { changedAfter: true } an order counts as booked once the ERP changes the article's stock record after the order reached it`,
    `the dashboard's record page of each article lists its unbooked orders; an order cancelled in the shop can be released`,
  ];
  return steps.join('; ');
}

/** Open or resolve each lane's incident from the ledger now. */
export async function checkStockUnbooked(incidents: Incidents, state: StateStore, lanes: readonly ReservationLane[], now: number, whereOf: (pipeline: string, shop: string) => string): Promise<void> {
  const byShop = new Map<string, ReservationLine[]>();
  for (const lane of lanes) {
    let lines = byShop.get(lane.shop);
    if (!lines) byShop.set(lane.shop, (lines = await state.reservations.unbooked(lane.shop)));
    const stuck = byOrder(lines).filter((o) => now - o.seenAt > lane.alertAfterMs);
    const scope = { pipeline: lane.pipeline, shop: lane.shop };
    const where = whereOf(lane.pipeline, lane.shop);
    const limit = hours(lane.alertAfterMs);
    if (stuck.length === 0) {
      await incidents.resolve('stock-unbooked-stuck', scope, `${lane.pipeline}: the ERP books the shop's orders again`, `${where}: no shop order has waited longer than reservations.alertAfter ${limit} for the ERP to book it.`);
      continue;
    }
    const listed = stuck.slice(0, LISTED).map(orderLine).join('; ');
    const more = stuck.length > LISTED ? ` and ${stuck.length - LISTED} more` : '';
    const units = stuck.reduce((n, o) => n + o.lines.reduce((m, l) => m + l.quantity, 0), 0);
    const undelivered = stuck.some((o) => o.lines.some((l) => l.deliveredAt === undefined));
    await incidents.fire(
      'stock-unbooked-stuck',
      scope,
      `${lane.pipeline}: ${stuck.length} shop order(s) unbooked by the ERP for more than ${limit}`,
      `[${STOCK_UNBOOKED_STUCK}] ${where}: ${stuck.length} shop order(s) (${units} unit(s)) have waited more than reservations.alertAfter ${limit} for the ERP to book them: ${listed}${more}. The ERP's import of shop orders looks stuck. The stock push keeps subtracting them, so the shop does not oversell, but the goods are not on their way. To check: ${howToCheck(lane, undelivered)}.`,
    );
  }
}

/** The stock pushes of a config that have `reservations:`, with the orders pulls of their shops. */
export function reservationLanesOf(config: Pick<Config, 'pipelines'>): ReservationLane[] {
  return config.pipelines
    .filter((p) => p.reservations)
    .map((p) => ({
      pipeline: p.name,
      shop: p.shop,
      alertAfterMs: p.reservations!.alertAfter,
      booked: 'query' in p.reservations!.booked ? ('query' as const) : ('changedAfter' as const),
      ordersPulls: config.pipelines.filter((q) => q.direction === 'pull' && q.resource === 'orders' && q.shop === p.shop).map((q) => q.name),
    }));
}
