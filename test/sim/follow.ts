/**
 * Orders after checkout (issue 44), as the model sees them: what the shop's staff and payment
 * module did to the orders the sim's customers placed (a status, a cancellation, a tracking entry,
 * a return label, a new delivery address), when, and whether the ERP had the order then. The
 * invariant (followInvariants.ts) holds the ERP's change table to this record of the shop's side,
 * never to shopsync's followed rows.
 */
import type { FollowChangeKind } from '../../src/follow/types.js';
import { reservedFigure, type Model } from './model.js';

/** The orders pull's `follow:` block in the sim's config (world.ts): every run follows, until cancelled or returned, 3 days. */
export const FOLLOW = { every: '0s', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 3 } as const;

/** The sandbox's order statuses (src/sandbox/seed/reference.ts): 1 pending, 2 processing, 3 shipped, 4 cancelled, 5 returned. */
export const STATUS = { pending: 1, processing: 2, shipped: 3, cancelled: 4, returned: 5 } as const;

export const DAY_MS = 86_400_000;
/** Around an order's age limit, shopsync's day and the model's may differ by a run's length: no promise there. */
const AGE_MARGIN_MS = 3_600_000;

/** One thing the shop did to an order after checkout. */
export interface ShopChange {
  readonly ordersId: number;
  /** The change's kind as the follow must name it (src/follow/types.ts). */
  readonly kind: FollowChangeKind;
  readonly status?: number;
  readonly comment?: string;
  readonly code?: string;
  /** Address changes: the block. */
  readonly field?: string;
  /** True shop time (ms) it was made. */
  readonly atMs: number;
  /** The ERP's import table held the order when the shop made it: it must arrive as a change (before, the first delivery carries it). */
  readonly afterDelivery: boolean;
  /** The order's status was already final (`until`) in the shop: a follow may have stopped, so it may arrive, or not. */
  readonly afterFinal: boolean;
}

/** An order the shop changed after checkout. */
export interface FollowedOrder {
  readonly ordersId: number;
  /** Its billing name is longer than the import table takes: never delivered, nothing to follow. */
  readonly refused: boolean;
  /** YYYY-MM-DD of date_purchased (the shop's clock, UTC). */
  readonly placedDay: string;
  /** The shop's status now. */
  status: number;
  readonly changes: ShopChange[];
  /** Cancelled while the ERP did not have it yet: the first row the ERP gets must already be cancelled. */
  cancelledBeforeFirstPull: boolean;
}

/** What the model knows of the shop's side of following. */
export class FollowModel {
  readonly orders = new Map<number, FollowedOrder>();
  /** The latest clock (shopsync's, ms) an orders run started at: an order placed days before that may have aged out. */
  latestRunClockMs = 0;
  /** The last orders run started with shopsync's clock behind an earlier run's (a ClockStep back): its follow pass may have been taken for not due. */
  clockBehind = false;
  /** Orders runs started (any outcome): a backdated order placed after one would be outside the delta window. */
  runs = 0;
  /** Counter that makes every comment, tracking code and street the sim writes unique. */
  private counter = 0;

  next(): number {
    return ++this.counter;
  }

  /** Whether the follow surely still reads the order (it has not reached the age limit at any orders run so far). */
  surelyFollowed(o: FollowedOrder): boolean {
    const limit = Date.parse(`${o.placedDay}T00:00:00Z`) + (FOLLOW.maxAgeDays + 1) * DAY_MS;
    return this.latestRunClockMs < limit - AGE_MARGIN_MS;
  }
}

/** The kind of a new status_history entry, by its status and the status before it. */
export function statusKind(status: number, before: number): FollowChangeKind {
  if (status === before) return 'comment';
  if ((FOLLOW.cancelled as readonly number[]).includes(status)) return 'cancelled';
  if ((FOLLOW.returned as readonly number[]).includes(status)) return 'return';
  return 'status';
}

export function isFinal(status: number): boolean {
  return (FOLLOW.until as readonly number[]).includes(status);
}

/** A row of the ERP's change table (world.ts, shop_order_changes). */
export interface ChangeRow {
  readonly orders_id: number;
  readonly seq: number;
  readonly kind: string;
  readonly status: number | null;
  readonly comment: string | null;
  readonly code: string | null;
  readonly field: string | null;
}

/** What identifies a change in the ERP's table: the content the shop made, not shopsync's seq. */
export function changeKey(c: { kind: string; status?: number | null; comment?: string | null; code?: string | null; field?: string | null }): string {
  switch (c.kind) {
    case 'tracking':
      return `tracking ${c.code ?? ''}`;
    case 'address':
      return `address ${c.field ?? ''}`;
    case 'return':
      // A return is a returned status (with its comment) or a return label (with its code).
      return c.code ? `return label ${c.code}` : `return ${c.status ?? ''} ${c.comment ?? ''}`;
    default:
      return `${c.kind} ${c.status ?? ''} ${c.comment ?? ''}`;
  }
}

/**
 * The stock figures the shop may show besides the projection because of cancelled orders: a
 * cancellation a pull that did not settle may have delivered (shopsync may have released its
 * lines, or not), and, known broken (invariants.ts KNOWN_BROKEN, cancelledBeforeStockRunIsReleased,
 * which holds it strictly), the lines of an order released before a stock run had them in its
 * ledger, still subtracted (`released`: released after, held strictly by cancelledOrderStockIsReleased). Tolerated again before every
 * run and after a repair (which forgets tolerated values); answers the units per article of each.
 */
export function tolerateReleases(m: Model): { unsure: Map<string, number>; released: Map<string, number>; unledgered: Map<string, number> } {
  const unsure = new Map<string, number>();
  const released = new Map<string, number>();
  const unledgered = new Map<string, number>();
  for (const r of m.reservations.values()) {
    if (r.booked) continue;
    const into = r.released ? (r.releasedUnledgered ? unledgered : released) : r.releaseUnsure ? unsure : undefined;
    if (into) for (const l of r.lines) into.set(l.sku, (into.get(l.sku) ?? 0) + l.qty);
  }
  // Some of the orders of an article may be stuck and others not: every figure in between.
  for (const [sku, units] of unsure) {
    const row = m.products.get(sku);
    for (let u = 1; row && u <= units; u++) m.tolerate(sku, 'quantity', reservedFigure(Number(row.qty), m.unbooked(sku) - u));
  }
  for (const [sku, units] of unledgered) {
    const row = m.products.get(sku);
    for (let u = 1; row && u <= units; u++) m.tolerate(sku, 'quantity', reservedFigure(Number(row.qty), m.unbooked(sku) + u));
  }
  return { unsure, released, unledgered };
}
