/**
 * How a shop's budget (`requests` per `intervalMs`) is cut into slots for a shared fixed-window
 * limiter, so that no window of `intervalMs` — wherever it starts — holds more than `requests`
 * request starts, whichever replicas made them.
 *
 * A store-backed limiter (rate-limiter-flexible) counts points in fixed windows that open at the
 * first consume after the last one expired. With `requests` points per `intervalMs` two full
 * windows can meet at their border: up to twice the rate within one second, which a shop counting
 * by the second answers with 429. Small slots bound that overshoot: with `b` points per slot of
 * `D` ms, a window of `W` ms sees at most `b · ceil(W / D)` starts from slots opening inside it
 * plus `b − 1` from the slot it began in (whose first start lies before it). Choosing
 * `ceil(W / D) = k = floor((requests − b + 1) / b)` keeps that at `requests` or below.
 * With `b = 1` (rates below 2 per `MIN_SLOT_MS`, 100 a second) requests are spaced about `W / requests` apart;
 * beyond, `b` grows so that slots stay at least MIN_SLOT_MS long (each replica waiting for a slot
 * asks the store once per slot) and up to `b − 1` requests per window (about 5 %) are given up.
 *
 * The guarantee holds for the times the store stamps, which is not when requests reach the shop:
 * a replica's way from its stamp to the shop (the store's answer, a busy event loop, its network
 * path) varies. The k slots of a window therefore span `W` plus ARRIVAL_SLACK (50 ms, or 5 % of a
 * short window): requests may arrive that much unevenly before a shop counting by the window
 * sees more than `requests` — at the price of about 5 % of a one-second budget.
 */

/** Slots are at least this long once a shop allows more than one request per slot. */
export const MIN_SLOT_MS = 20;
/** Unevenness of arrival a window absorbs (ms), at most this share of the window. */
export const ARRIVAL_SLACK_MS = 50;
const ARRIVAL_SLACK_SHARE = 0.05;

/** Points per slot and slot length of a shared budget. */
export interface SharedBudget {
  /** Requests allowed per `intervalMs` in the configuration. */
  readonly requests: number;
  readonly intervalMs: number;
  /** Requests one slot admits. */
  readonly pointsPerSlot: number;
  /** Slot length in whole milliseconds that survive the store's seconds (`(ms / 1000) * 1000 === ms`). */
  readonly slotMs: number;
  /** Requests per second the slots admit at most, steadily. */
  readonly requestsPerSecond: number;
}

/** Cut `requests` per `intervalMs` into slots that never let any window of `intervalMs` exceed `requests`. */
export function sharedBudget(requests: number, intervalMs: number): SharedBudget {
  if (!Number.isInteger(requests) || requests < 1) throw new RangeError(`Expected \`requests\` to be a whole number from 1 and up, got \`${requests}\``);
  if (!Number.isInteger(intervalMs) || intervalMs < 1) throw new RangeError(`Expected \`intervalMs\` to be a whole number from 1 and up, got \`${intervalMs}\``);
  const pointsPerSlot = Math.max(1, Math.floor((requests * MIN_SLOT_MS) / intervalMs));
  const slotsPerInterval = Math.max(1, Math.floor((requests - pointsPerSlot + 1) / pointsPerSlot));
  // Rounding the slot up keeps ceil(W / D) at or below slotsPerInterval.
  const slack = Math.min(ARRIVAL_SLACK_MS, intervalMs * ARRIVAL_SLACK_SHARE);
  const slotMs = storeMs((intervalMs + slack) / slotsPerInterval);
  return { requests, intervalMs, pointsPerSlot, slotMs, requestsPerSecond: Math.round(((pointsPerSlot * 1000) / slotMs) * 100) / 100 };
}

/**
 * The least whole number of milliseconds at or above `ms` that the store's seconds give back
 * exactly. rate-limiter-flexible takes durations in seconds and multiplies by 1000; 1234 / 1000 *
 * 1000 is 1234.0000000000002 in floating point, and a fractional expiry is refused by a BIGINT column.
 */
export function storeMs(ms: number): number {
  let whole = Math.max(1, Math.ceil(ms));
  while ((whole / 1000) * 1000 !== whole) whole++;
  return whole;
}
