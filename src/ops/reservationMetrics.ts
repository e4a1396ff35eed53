/**
 * What /metrics shows of reservations (issue 43), read from the state's ledger when scraped: the
 * units each stock push subtracts now, and per shop the orders the ERP has not booked and how long
 * the oldest has waited (since shopsync first read it: the shop's order time has no zone).
 */
import type { ReservationStore } from '../reservations/types.js';

/** Per shop, what the ledger holds unbooked. */
export interface UnbookedFigures {
  readonly units: number;
  readonly orders: number;
  /** Age of the oldest unbooked line in seconds; 0 when none. */
  readonly oldestSeconds: number;
}

/** The figures by shop, of the shops that have a pipeline with `reservations:`. */
export async function unbookedFigures(state: { readonly reservations: ReservationStore }, shops: readonly string[], now: Date = new Date()): Promise<Record<string, UnbookedFigures>> {
  const out: Record<string, UnbookedFigures> = {};
  for (const shop of new Set(shops)) {
    const lines = await state.reservations.unbooked(shop);
    const oldest = lines.reduce((min, l) => Math.min(min, Date.parse(l.seenAt)), Number.POSITIVE_INFINITY);
    out[shop] = {
      units: lines.reduce((n, l) => n + l.quantity, 0),
      orders: new Set(lines.map((l) => l.ordersId)).size,
      oldestSeconds: Number.isFinite(oldest) ? Math.max(0, Math.floor((now.getTime() - oldest) / 1000)) : 0,
    };
  }
  return out;
}
