/**
 * Risky moments, drawn whole. A bug of the pull, cursor or state path shows only when several
 * things meet in one run: orders two days apart and a sink write that fails; batches in flight
 * when the process dies; a state that refuses the run's end. Single commands drawn one at a time
 * meet like that once in hundreds of histories (measured: the kept mutations cursor-ahead and
 * pull-cursor-despite-sink-failure went unfound in 83 random histories that had every command
 * needed), so the generator also draws these sequences as one step, each part with random
 * arguments, among the single commands.
 *
 * A scenario is not a step of its own: its parts run one by one through `Sim.step` (each
 * checked, logged and saved as itself, a part the model refuses is skipped), so a kept history
 * is flat and replays without this file, and shrinking drops a whole scenario at a time.
 */
import fc from 'fast-check';
import type { Model } from '../model.js';
import type { Outcome, Sim } from '../sim.js';
import { CATALOG } from '../model.js';
import { SimCommand } from './base.js';
import { BeginLongTransaction, BulkWrite, CommitLate, ErpBooks, Tick, UpdateProduct } from './erp.js';
import { CliSync, Sync } from './runs.js';
import { CustomerBuys, SetFaults, ShopOrder } from './shop.js';
import { CliFault, ErpFault, StateFault, StateRestart, TimePasses } from './infra.js';
import { ErpProcessesChanges, ShopAddsTracking, ShopCancels, ShopChangesAddress, ShopSetsStatus } from './follow.js';
import type { FaultError } from '../faults.js';
import type { LinkAction } from '../link.js';

/** A sequence of commands drawn as one. */
export class Scenario extends SimCommand {
  readonly name = 'Scenario';
  constructor(
    readonly kind: string,
    readonly parts: readonly SimCommand[],
  ) {
    super({ kind, parts: parts.map(String).join('; ') });
  }
  protected act(): Promise<Outcome> {
    throw new Error('a scenario runs its parts, never a step of its own');
  }
  override async run(m: Model, sim: Sim): Promise<void> {
    sim.log.push(`— scenario ${this.kind} —`);
    for (const part of this.parts) if (part.check(m)) await part.run(m, sim);
  }
}

const n = fc.integer({ min: 0, max: CATALOG - 1 });
const price = fc.constantFrom('4.99', '10.00', '12.50', '99.90', '0.50');
const sinkFault = fc.tuple(
  fc.constantFrom<['write' | 'commit', FaultError]>(['write', 'ioerr'], ['write', 'busy'], ['commit', 'ioerr'], ['commit', 'lost-ack']),
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom(1, 2, 50),
);

/**
 * Orders placed minutes or days apart (the orders delta filter is day-granular), then a sink write
 * or commit that fails during the pull, and one or two pulls: whatever failed must arrive once.
 */
const ordersUnderSinkFault = fc
  .tuple(fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 15, 1500, 3000)), { minLength: 1, maxLength: 3 }), sinkFault, fc.integer({ min: 1, max: 2 }))
  .map(([orders, [[on, error], after, lasting], pulls]) => {
    const parts: SimCommand[] = [];
    for (const [lines, gap] of orders) {
      parts.push(new ShopOrder(lines, false));
      if (gap > 0) parts.push(new TimePasses(gap));
    }
    // The pull's ceiling is the shop's clock less 10 minutes: the last order must be older than that to be read.
    parts.push(new TimePasses(15), new ErpFault(on, error, after, lasting));
    for (let i = 0; i < pulls; i++) parts.push(new Sync('orders'));
    return new Scenario('orders-under-sink-fault', parts);
  });

/**
 * Rows written minutes apart, mostly further apart than the 5-minute lookback (so a run's batches
 * carry cursor positions the lookback does not cover), perhaps
 * synced once and changed again, then a CLI run killed at its n-th shop request: before the shop
 * got it, after, or with that batch held back until later batches settled.
 */
const pushKilledInFlight = fc
  .tuple(n, fc.integer({ min: 2, max: 8 }), fc.constantFrom(0, 6, 8, 12), fc.integer({ min: 3, max: 12 }), fc.boolean(), fc.tuple(n, price), fc.integer({ min: 1, max: 2 }), fc.constantFrom<LinkAction>('kill', 'kill-after', 'hold-kill', 'hold-kill'))
  .map(([from, count, minutes, more, syncedFirst, [changed, newPrice], atRequest, action]) => {
    const parts: SimCommand[] = [new BulkWrite(from, count, 1 + (from % 90))];
    if (syncedFirst) parts.push(new Sync('products'), new UpdateProduct(changed, 'price', newPrice));
    if (minutes > 0) parts.push(new Tick(minutes));
    parts.push(new BulkWrite((from + count + 3) % CATALOG, more, 1 + (more % 90)), new CliFault(atRequest, action));
    return new Scenario('push-killed-in-flight', parts);
  });

/** The state refuses writes (a disk error, a full disk) from the n-th write on, while a run goes. */
const stateFaultInRun = fc
  .tuple(fc.constantFrom('ioerr' as const, 'full' as const), fc.integer({ min: 0, max: 12 }), fc.constantFrom(1, 3, 1000), fc.constantFrom('products' as const, 'orders' as const, 'files' as const), n)
  .map(([error, after, lasting, pipeline, row]) => {
    const work: SimCommand = pipeline === 'orders' ? new ShopOrder(1, false) : new BulkWrite(row, 4, 1 + (row % 90));
    const parts: SimCommand[] = [work, ...(pipeline === 'orders' ? [new TimePasses(15)] : []), new StateFault(error, after, lasting), new Sync(pipeline), new Sync(pipeline)];
    return new Scenario('state-fault-in-run', parts);
  });

/** A clerk's transaction stamps a row and stays open while a run reads past it; it commits after. */
const lateCommitRace = fc
  .tuple(n, price, n, price, fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 3 })))
  .map(([late, latePrice, other, otherPrice, killAt]) => {
    const run: SimCommand = killAt === null ? new Sync('products') : new CliFault(killAt, 'kill-after');
    return new Scenario('late-commit-race', [new BulkWrite(Math.min(late, other), 3, 7), new BeginLongTransaction(late, latePrice), new UpdateProduct(other, 'price', otherPrice), run, new CommitLate(), new Sync('products')]);
  });

/** A one-off CLI sync whose requests wait behind the shop's 429s: it must end with the truth, not exit 0 early. */
const oneOffUnderStorm = fc
  .tuple(n, fc.integer({ min: 6, max: 16 }), fc.constantFrom('storm429', 'burst503', 'lost'))
  .map(([from, count, profile]) => new Scenario('one-off-under-storm', [new BulkWrite(from, count, 3), new SetFaults(profile), new CliSync(null), new SetFaults('off')]));

/** A PostgreSQL state server restarts while a CLI run is at its n-th request, and between runs (a SQLite state skips those parts). */
const stateServerRestarts = fc
  .tuple(n, fc.integer({ min: 4, max: 16 }), fc.integer({ min: 1, max: 4 }), fc.tuple(n, price))
  .map(([from, count, atRequest, [changed, newPrice]]) =>
    new Scenario('state-server-restarts', [new BulkWrite(from, count, 5), new CliFault(atRequest, 'restart-state'), new StateRestart(), new UpdateProduct(changed, 'price', newPrice), new Sync('products')]),
  );

/**
 * Issue 43's must-show as a drawn moment: articles pushed, a customer buys one (the shop books it),
 * the ERP changes that article's price or receives goods before it has booked the order, a stock
 * run (or the order placed only after the orders pull, right before the stock run), then the pull
 * delivers the order, the ERP books it, and a last stock run: the shop must never show more than
 * ERP − unbooked, and must not take back what it sold.
 */
const soldBeforeBooked = fc
  .tuple(n, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.oneof(fc.tuple(fc.constant('price' as const), price), fc.tuple(fc.constant('qty' as const), fc.integer({ min: 0, max: 30 }).map(String))), fc.boolean())
  .map(([i, count, qty, [field, value], afterPull]) => {
    const buy = new CustomerBuys(i, qty);
    const pull = [new TimePasses(15), new Sync('orders')];
    const parts: SimCommand[] = [new BulkWrite(i, count, 1 + (i % 90)), new UpdateProduct(i, 'qty', String(5 + qty * 2)), new Sync('products')];
    parts.push(...(afterPull ? [...pull, buy] : [buy]), new UpdateProduct(i, field, value), new Sync('products'));
    parts.push(...pull, new ErpBooks(0), new Sync('products'));
    return new Scenario('sold-before-booked', parts);
  });

/**
 * Issue 44's must-show as a drawn moment: a customer buys (the shop books the stock), the order is
 * pulled on day 0 (or not yet: cancelled before its first pull), days pass and a newer order moves
 * the orders window past it, then the shop changes it where no delta read looks any more (a
 * status by its payment module, a tracking entry or a return label, a new delivery address) and
 * cancels it, perhaps under a sink fault; two pulls: each change must reach the ERP's change table
 * once, the ERP's status be the shop's, and a stock run no longer subtract the cancelled order.
 */
const cancelledAfterWindow = fc
  .tuple(n, fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.constantFrom(1500, 3000), fc.subarray(['status', 'tracking', 'return', 'address'] as const), fc.option(sinkFault, { nil: undefined }))
  .map(([i, qty, pulledFirst, minutes, before, fault]) => {
    const parts: SimCommand[] = [new BulkWrite(i, 1, 3), new UpdateProduct(i, 'qty', String(4 + qty)), new Sync('products'), new CustomerBuys(i, qty)];
    const pull = [new TimePasses(15), new Sync('orders')];
    if (pulledFirst) parts.push(...pull, new TimePasses(minutes), new ShopOrder(1, false), ...pull);
    // A negative pick counts from the newest order placed: the one bought above.
    const pick = pulledFirst ? -2 : -1;
    for (const what of before) parts.push(what === 'status' ? new ShopSetsStatus(pick, 2, 'payment') : what === 'address' ? new ShopChangesAddress(pick) : new ShopAddsTracking(pick, what === 'return'));
    parts.push(new ShopCancels(pick));
    if (fault) parts.push(new ErpFault(fault[0][0], fault[0][1], fault[1], fault[2]));
    parts.push(...pull, new Sync('orders'), new ErpProcessesChanges(), new Sync('products'));
    return new Scenario('cancelled-after-window', parts);
  });

/** Every scenario the generator draws, each with the same weight. */
export const SCENARIOS: readonly fc.Arbitrary<SimCommand>[] = [ordersUnderSinkFault, pushKilledInFlight, stateFaultInRun, lateCommitRace, oneOffUnderStorm, stateServerRestarts, soldBeforeBooked, cancelledAfterWindow];
