/**
 * Issue 44's promise, "every change of a followed order reaches the ERP once", held to what the
 * sim recorded of the shop's side (follow.ts) and what the ERP's tables hold: the change table
 * (one row per change, appended), the import table's status and the status each order was first
 * inserted with. shopsync's followed rows are never the truth here.
 */
import { STATUS, changeKey, type FollowedOrder } from './follow.js';
import type { Observation, Outcome } from './sim.js';
import { reservedFigure, type Model } from './model.js';
import { completedPush, settled } from './invariants.js';

interface Seen {
  readonly m: Model;
  readonly o: Outcome;
  readonly obs: Observation;
}

const settledOrdersSync = (o: Outcome) => o.kind === 'run' && o.pipeline === 'orders' && (o.summary.status === 'succeeded' || o.summary.status === 'partial');

function count<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of items) out.set(key(t), (out.get(key(t)) ?? 0) + 1);
  return out;
}

/** A state write lost or an ERP commit whose answer was lost: the state may not know an order the ERP has (and so not its snapshot). */
const stateMayHaveLost = (obs: Observation) => obs.stateFaults + obs.lostAcks > 0;

/**
 * What the ERP lacks of the changes an order must have delivered by now: after a settled orders
 * sync, every change the shop made after the ERP had the order, while the follow surely still read
 * it (younger than maxAgeDays) and before its status was final; an address block changed more
 * than once between two reads may arrive as one change.
 */
function missing(m: Model, obs: Observation, fo: FollowedOrder): string[] {
  if (!m.follow.surelyFollowed(fo)) return [];
  const rows = count(obs.changes.get(fo.ordersId) ?? [], changeKey);
  const must = count(
    fo.changes.filter((c) => c.afterDelivery && !c.afterFinal),
    changeKey,
  );
  const out: string[] = [];
  for (const [key, n] of must) {
    const want = key.startsWith('address ') ? 1 : n;
    const have = rows.get(key) ?? 0;
    if (have < want) out.push(`order ${fo.ordersId}: the shop's change "${key}" is ${have === 0 ? 'not' : `${have} times, not ${want} times`} in the ERP's change table after a settled orders run (ERP has ${describeRows(obs, fo.ordersId)})`);
  }
  return out;
}

/** Change rows the shop did not make as often as the ERP's table holds them (after the ERP had the order). */
function duplicates(s: Seen): string[] {
  const out: string[] = [];
  for (const fo of s.m.follow.orders.values()) {
    if (fo.refused) continue;
    const made = count(
      fo.changes.filter((c) => c.afterDelivery),
      changeKey,
    );
    for (const [key, n] of count(s.obs.changes.get(fo.ordersId) ?? [], changeKey)) {
      const k = made.get(key) ?? 0;
      if (n > k) out.push(`order ${fo.ordersId}: "${key}" is in the ERP's change table ${n} times, the shop made it ${k} times after the ERP had the order (rows: ${describeRows(s.obs, fo.ordersId)})`);
    }
  }
  return out;
}

/** The ERP's status of an order differs from the shop's (after a settled orders run). */
function statusDiffers(obs: Observation, fo: FollowedOrder): string[] {
  const status = Number(obs.orders.find((o) => Number(o.orders_id) === fo.ordersId)?.orders_status);
  return obs.erpStatus.get(fo.ordersId) === status ? [] : [`order ${fo.ordersId}: the ERP's status is ${obs.erpStatus.get(fo.ordersId)}, the shop's ${status}, after a settled orders run`];
}

function describeRows(obs: Observation, id: number): string {
  const rows = obs.changes.get(id) ?? [];
  return rows.length === 0 ? 'no change of it' : rows.map((r) => `#${r.seq} ${changeKey(r)}`).join('; ');
}

/**
 * Every change of a followed order reaches the ERP once: no change row twice or made up (each row
 * is one the shop made after the ERP had the order, at most as often as it made it); after a
 * settled orders sync, every change that must have been read is there, the ERP's status is the
 * shop's, and an order cancelled before its first pull was first inserted as cancelled.
 */
export function followedChangesReachErpOnce(s: Seen): string[] {
  // Held to followedChangesSurviveStateLoss instead (known broken): a lost commit answer renumbers the changes.
  const out: string[] = stateMayHaveLost(s.obs) ? [] : duplicates(s);
  // Rows of orders the shop never changed after checkout are made up.
  for (const [id, rows] of s.obs.changes) if (!s.m.follow.orders.has(id)) out.push(`order ${id}: the ERP's change table has ${rows.map((r) => `#${r.seq} ${changeKey(r)}`).join('; ')}, the shop never changed it`);
  if (!settledOrdersSync(s.o)) return out;
  for (const fo of s.m.follow.orders.values()) {
    if (fo.refused || !s.obs.imported.has(fo.ordersId)) continue;
    if (fo.cancelledBeforeFirstPull && s.obs.firstStatus.get(fo.ordersId) !== STATUS.cancelled) out.push(`order ${fo.ordersId} was cancelled before its first pull, but the ERP first got it with status ${s.obs.firstStatus.get(fo.ordersId)}`);
    if (!s.m.follow.surelyFollowed(fo)) continue;
    // Held to followPassDueAfterClockStepBack instead (known broken): a clock stepped back skips the pass.
    if (s.m.follow.clockBehind) continue;
    if (!stateMayHaveLost(s.obs)) out.push(...missing(s.m, s.obs, fo));
    out.push(...statusDiffers(s.obs, fo));
  }
  return out;
}

/**
 * The same promise after the state lost a write or an ERP commit's answer was lost: a change the
 * shop made after the ERP had the order still arrives, once (the state may not know what the ERP
 * committed: neither that it has the order, nor which changes under which seq).
 */
export function followedChangesSurviveStateLoss(s: Seen): string[] {
  if (!stateMayHaveLost(s.obs)) return [];
  const out = duplicates(s);
  if (!settledOrdersSync(s.o) || s.m.follow.clockBehind) return out;
  return [...out, ...[...s.m.follow.orders.values()].filter((fo) => !fo.refused && s.obs.imported.has(fo.ordersId)).flatMap((fo) => missing(s.m, s.obs, fo))];
}

/**
 * The same promise for a run that started with shopsync's wall clock behind an earlier run's (NTP
 * stepped it back): `every: 0s` means every run, so its follow pass still reads the followed orders.
 */
export function followPassDueAfterClockStepBack(s: Seen): string[] {
  if (!settledOrdersSync(s.o) || !s.m.follow.clockBehind || stateMayHaveLost(s.obs)) return [];
  return [...s.m.follow.orders.values()].filter((fo) => !fo.refused && s.obs.imported.has(fo.ordersId) && s.m.follow.surelyFollowed(fo)).flatMap((fo) => [...missing(s.m, s.obs, fo), ...statusDiffers(s.obs, fo)]);
}

/** A change row the ERP got is never rewritten or deleted (append: the ERP's own processed mark stays). */
export function changeRowsAreNeverRewritten(s: Seen): string[] {
  return s.obs.changeRewrites.map((r) => `the ERP's change table row ${r}`);
}

function stillSubtracted(s: Seen, which: 'released' | 'unledgered', why: string): string[] {
  const done = completedPush(s);
  if (!done || !settled(done.status)) return [];
  const shop = new Map(s.obs.products.map((p) => [String(p.products_model), Number(p.products_quantity)] as const));
  const out: string[] = [];
  for (const { row, projection } of done.before.deliverable) {
    const units = done.before[which].get(row.sku);
    if (!units) continue;
    const subtracted = reservedFigure(Number(row.qty), (done.before.unbooked.get(row.sku) ?? 0) + units);
    const have = shop.get(row.sku);
    if (have === subtracted && have !== projection.quantity) out.push(`${row.sku}: the shop shows ${have}, the ERP's ${row.qty} less ${units} units of cancelled orders whose cancellation reached the ERP${why} (want ${projection.quantity})`);
  }
  return out;
}

/**
 * A cancellation that reached the ERP releases the order's stock: after a stock run that settled,
 * no article shows the ERP's figure less the lines of a cancelled order a settled pull delivered
 * (shopsync released them; the model no longer counts them as unbooked).
 */
export function cancelledOrderStockIsReleased(s: Seen): string[] {
  return stillSubtracted(s, 'released', '');
}

/** The same for an order cancelled and delivered before any stock run had read it into its ledger. */
export function cancelledBeforeStockRunIsReleased(s: Seen): string[] {
  return stillSubtracted(s, 'unledgered', ' before any stock run had read the order');
}
