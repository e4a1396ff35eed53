/**
 * Every command, how the generator draws it (with a weight per profile) and how a saved history
 * is read back. A new command is a class in one of the files beside this one, an arbitrary in
 * `commandArbitrary`, and an entry in `COMMANDS`.
 */
import fc from 'fast-check';
import { CATALOG } from '../model.js';
import type { Args, SimCommand } from './base.js';
import { BadRow, BeginLongTransaction, BulkWrite, DropFile, ErpBooks, FILE_RANGES, CommitLate, DeleteProduct, InsertProduct, SkewedWrite, Tick, UpdateProduct } from './erp.js';
import { Backfill, ChangeMapping, CliSync, Reconcile, RetryDeadLetters, SetRateMode, Sync } from './runs.js';
import { CustomerBuys, FAULT_PROFILES, SetFaults, ShopEdit, ShopOrder } from './shop.js';
import { ClockStep, CliFault, ErpFault, StateFault, StateRestart, TimePasses } from './infra.js';
import { SCENARIOS } from './scenarios.js';
import { ErpProcessesChanges, ShopAddsTracking, ShopCancels, ShopChangesAddress, ShopOrderPlacedEarlier, ShopSetsStatus } from './follow.js';
import type { FaultError } from '../faults.js';
import type { LinkAction } from '../link.js';

export { SimCommand } from './base.js';
export { Sync } from './runs.js';
export { SetFaults } from './shop.js';

/** How often each kind of step is drawn, relative to the others. */
export interface Weights {
  readonly erp: number;
  readonly lateAndSkew: number;
  /** Minutes passing in the ERP between writes, so a run reads rows stamped further apart than the lookback. */
  readonly time: number;
  readonly badRows: number;
  readonly shop: number;
  /** Customers buying with the shop's stock check, and the ERP booking their orders later (issue 43). */
  readonly stock: number;
  /** The shop changing orders after checkout (issue 44): statuses, cancellations, tracking and return labels, addresses; late orders. */
  readonly follow: number;
  readonly files: number;
  readonly faults: number;
  readonly sync: number;
  readonly cli: number;
  readonly kill: number;
  readonly repairs: number;
  /** ERP and state faults, clock steps. */
  readonly infra: number;
  /** CLI processes killed or frozen at their n-th shop request. */
  readonly cliFaults: number;
  /** Risky moments drawn whole (scenarios.ts): all of them together, each an equal share. */
  readonly scenarios: number;
}

/** The weights of the long exploration; the short profile draws CLI processes less (each costs a node start). */
export const LONG_WEIGHTS: Weights = { erp: 10, lateAndSkew: 4, time: 2.5, badRows: 2, shop: 3, stock: 4, follow: 4, files: 3, faults: 4, sync: 8, cli: 1, kill: 1, repairs: 2, infra: 6, cliFaults: 2.5, scenarios: 10 };
export const SHORT_WEIGHTS: Weights = { ...LONG_WEIGHTS, cli: 0.4, kill: 0.4, cliFaults: 1, scenarios: 2 };

const n = fc.integer({ min: 0, max: CATALOG - 1 });
/** Which of the orders the customers placed a shop-side change picks (modulo their number). */
const pickN = fc.integer({ min: 0, max: 7 });
/**
 * Wall-clock steps drawn, back and forward. A step back used to stall the shop client: its pacing
 * was booked on Date.now(), so after a step back of 90 minutes a run that was paced before waited
 * 90 minutes (found by this simulation; the client now paces on the monotonic clock, monotonicNow).
 */
const CLOCK_STEPS_MINUTES = [-90, -10, -1, 1, 10, 90, 1500] as const;
const price = fc.constantFrom('4.99', '10.00', '12.50', '99.90', '0.50');

/** The arbitrary every step of a history is drawn from. */
export function commandArbitrary(w: Weights): fc.Arbitrary<SimCommand> {
  const pick = (weight: number, arbitrary: fc.Arbitrary<SimCommand>) => ({ weight: Math.round(weight * 10), arbitrary });
  return fc.oneof(
    pick(w.erp * 0.3, fc.tuple(n, fc.integer({ min: 3, max: 20 }), fc.integer({ min: 1, max: 97 })).map(([from, count, cents]) => new BulkWrite(from, count, cents))),
    pick(w.erp * 0.2, fc.tuple(n, price, fc.integer({ min: 0, max: 9 })).map(([i, p, q]) => new InsertProduct(i, p, q))),
    pick(w.erp * 0.2, fc.tuple(n, price).map(([i, p]) => new UpdateProduct(i, 'price', p))),
    pick(w.erp * 0.15, fc.tuple(n, fc.integer({ min: 0, max: 99 })).map(([i, q]) => new UpdateProduct(i, 'qty', String(q)))),
    pick(w.erp * 0.1, fc.tuple(n, fc.constantFrom('Neu', 'Sommer', 'Winter')).map(([i, s]) => new UpdateProduct(i, 'name', `Artikel ${i} ${s}`))),
    pick(w.erp * 0.15, n.map((i) => new DeleteProduct(i))),
    pick(w.lateAndSkew * 0.4, fc.tuple(n, price).map(([i, p]) => new BeginLongTransaction(i, p))),
    pick(w.lateAndSkew * 0.3, fc.constant(null).map(() => new CommitLate())),
    pick(w.lateAndSkew * 0.3, fc.tuple(n, price).map(([i, p]) => new SkewedWrite(i, p))),
    pick(w.time, fc.integer({ min: 1, max: 6 }).map((minutes) => new Tick(minutes))),
    pick(w.badRows, fc.tuple(n, fc.constantFrom('price-text' as const, 'no-key' as const)).map(([i, k]) => new BadRow(i, k))),
    pick(w.shop * 0.4, fc.tuple(n, fc.constantFrom('price' as const, 'name' as const)).map(([i, f]) => new ShopEdit(i, f))),
    pick(w.shop * 0.6, fc.tuple(fc.integer({ min: 1, max: 3 }), fc.boolean()).map(([lines, long]) => new ShopOrder(lines, long))),
    pick(w.stock * 0.6, fc.tuple(n, fc.integer({ min: 1, max: 4 })).map(([i, qty]) => new CustomerBuys(i, qty))),
    pick(w.stock * 0.4, fc.integer({ min: 0, max: 5 }).map((k) => new ErpBooks(k))),
    pick(w.follow * 0.3, fc.tuple(pickN, fc.constantFrom(1, 2, 2, 3, 5), fc.constantFrom('staff' as const, 'payment' as const)).map(([k, status, by]) => new ShopSetsStatus(k, status, by))),
    pick(w.follow * 0.25, pickN.map((k) => new ShopCancels(k))),
    pick(w.follow * 0.2, fc.tuple(pickN, fc.boolean()).map(([k, retoure]) => new ShopAddsTracking(k, retoure))),
    pick(w.follow * 0.1, pickN.map((k) => new ShopChangesAddress(k))),
    pick(w.follow * 0.1, fc.tuple(fc.constantFrom(1, 2, 5), fc.integer({ min: 1, max: 2 })).map(([days, lines]) => new ShopOrderPlacedEarlier(days, lines))),
    pick(w.follow * 0.05, fc.constant(null).map(() => new ErpProcessesChanges())),
    pick(w.faults, fc.constantFrom(...Object.keys(FAULT_PROFILES)).map((p) => new SetFaults(p))),
    pick(w.files, fc.tuple(fc.constantFrom(...Object.keys(FILE_RANGES)), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 97 }), fc.boolean()).map(([f, count, cents, bad]) => new DropFile(f, count, cents, bad && cents % 3 === 0))),
    pick(w.sync * 0.55, fc.constant(null).map(() => new Sync('products'))),
    pick(w.sync * 0.25, fc.constant(null).map(() => new Sync('files'))),
    pick(w.sync * 0.2, fc.constant(null).map(() => new Sync('orders'))),
    pick(w.cli, fc.constant(null).map(() => new CliSync(null))),
    pick(w.kill, fc.integer({ min: 0, max: 250 }).map((ms) => new CliSync(ms))),
    pick(w.repairs * 0.4, fc.constantFrom('products' as const, 'files' as const, 'orders' as const).map((p) => new RetryDeadLetters(p))),
    pick(w.repairs * 0.3, fc.constant(null).map(() => new Reconcile())),
    pick(w.repairs * 0.3, fc.integer({ min: 1, max: 30 }).map((minutes) => new Backfill(minutes))),
    pick(w.repairs * 0.3, fc.constant(null).map(() => new ChangeMapping())),
    pick(w.faults * 0.3, fc.constantFrom('adaptive' as const, 'fixed' as const).map((mode) => new SetRateMode(mode))),
    pick(w.infra * 0.3, fc.tuple(fc.constantFrom<[ 'read' | 'write' | 'commit', FaultError]>(['read', 'busy'], ['read', 'ioerr'], ['write', 'busy'], ['write', 'ioerr'], ['commit', 'ioerr'], ['commit', 'lost-ack']), fc.integer({ min: 0, max: 8 }), fc.constantFrom(1, 2, 50)).map(([[on, error], after, lasting]) => new ErpFault(on, error, after, lasting))),
    pick(w.infra * 0.25, fc.tuple(fc.constantFrom('ioerr' as const, 'full' as const), fc.integer({ min: 0, max: 30 }), fc.constantFrom(1, 3, 1000)).map(([error, after, lasting]) => new StateFault(error, after, lasting))),
    pick(w.infra * 0.1, fc.constantFrom(...CLOCK_STEPS_MINUTES).map((minutes) => new ClockStep(minutes))),
    pick(w.infra * 0.1, fc.constant(null).map(() => new StateRestart())),
    pick(w.infra * 0.15, fc.constant(null).map(() => new Sync('orders'))),
    pick(w.infra * 0.2, fc.constantFrom(15, 1500, 3000).map((minutes) => new TimePasses(minutes))),
    pick(w.cliFaults, fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom<LinkAction>('kill', 'kill-after', 'hold-kill', 'hold-kill', 'freeze', 'restart-state')).map(([n, action]) => new CliFault(n, action))),
    ...SCENARIOS.map((scenario) => pick(w.scenarios / SCENARIOS.length, scenario)),
  );
}

type Build = (a: Args) => SimCommand;

/** How each command is rebuilt from a regression file. */
export const COMMANDS: Readonly<Record<string, Build>> = {
  InsertProduct: (a) => new InsertProduct(Number(a.n), String(a.price), Number(a.qty)),
  BulkWrite: (a) => new BulkWrite(Number(a.from), Number(a.count), Number(a.cents)),
  UpdateProduct: (a) => new UpdateProduct(Number(a.n), a.field as 'price' | 'qty' | 'name', String(a.value)),
  DeleteProduct: (a) => new DeleteProduct(Number(a.n)),
  BadRow: (a) => new BadRow(Number(a.n), a.kind as 'price-text' | 'no-key'),
  BeginLongTransaction: (a) => new BeginLongTransaction(Number(a.n), String(a.price)),
  CommitLate: () => new CommitLate(),
  SkewedWrite: (a) => new SkewedWrite(Number(a.n), String(a.price)),
  Tick: (a) => new Tick(Number(a.minutes)),
  ShopEdit: (a) => new ShopEdit(Number(a.n), a.field as 'price' | 'name'),
  ShopOrder: (a) => new ShopOrder(Number(a.lines), Boolean(a.longName)),
  CustomerBuys: (a) => new CustomerBuys(Number(a.n), Number(a.qty)),
  ErpBooks: (a) => new ErpBooks(Number(a.pick)),
  SetFaults: (a) => new SetFaults(String(a.profile)),
  DropFile: (a) => new DropFile(String(a.file), Number(a.count), Number(a.cents), Boolean(a.bad)),
  Sync: (a) => new Sync(a.pipeline as 'products' | 'files' | 'orders'),
  CliSync: (a) => new CliSync(a.killAfterMs === null ? null : Number(a.killAfterMs)),
  RetryDeadLetters: (a) => new RetryDeadLetters(a.pipeline as 'products' | 'files' | 'orders'),
  Reconcile: () => new Reconcile(),
  Backfill: (a) => new Backfill(Number(a.minutesBack)),
  ChangeMapping: () => new ChangeMapping(),
  SetRateMode: (a) => new SetRateMode(a.mode as 'adaptive' | 'fixed'),
  ErpFault: (a) => new ErpFault(a.on as 'read' | 'write' | 'commit', a.error as FaultError, Number(a.after), Number(a.lasting)),
  StateFault: (a) => new StateFault(a.error as 'ioerr' | 'full', Number(a.after), Number(a.lasting)),
  ClockStep: (a) => new ClockStep(Number(a.minutes)),
  TimePasses: (a) => new TimePasses(Number(a.minutes)),
  CliFault: (a) => new CliFault(Number(a.atRequest), a.action as LinkAction),
  StateRestart: () => new StateRestart(),
  ShopSetsStatus: (a) => new ShopSetsStatus(Number(a.pick), Number(a.status), a.by as 'staff' | 'payment'),
  ShopCancels: (a) => new ShopCancels(Number(a.pick)),
  ShopAddsTracking: (a) => new ShopAddsTracking(Number(a.pick), Boolean(a.retoure)),
  ShopChangesAddress: (a) => new ShopChangesAddress(Number(a.pick)),
  ShopOrderPlacedEarlier: (a) => new ShopOrderPlacedEarlier(Number(a.daysAgo), Number(a.lines)),
  ErpProcessesChanges: () => new ErpProcessesChanges(),
};

/** A saved command back as a command. */
export function commandOf(saved: { command: string; args: Args }): SimCommand {
  const build = COMMANDS[saved.command];
  if (!build) throw new Error(`unknown command ${saved.command} in a saved history; known: ${Object.keys(COMMANDS).join(', ')}`);
  return build(saved.args);
}
