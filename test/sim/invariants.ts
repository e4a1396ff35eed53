/**
 * The promises every history is held to, one named function each, checked after every step and
 * at quiescence. Each returns what it found broken (nothing when the promise held). They read the
 * model, the step's outcome and the observation only: never shopsync's own bookkeeping as the
 * truth, except where the promise is about that bookkeeping (letters, cursor, runs).
 */
import { processAlive, type RunRecord } from '../../src/state/index.js';
import { DEFAULT_LOOKBACK_MS, msOf, projectionOf, validPrice, type Model, type Projection } from './model.js';
import type { Observation, Outcome, Snapshot } from './sim.js';
import { IMPORT_NAME_LIMIT } from './world.js';
import { cancelledBeforeStockRunIsReleased, cancelledOrderStockIsReleased, changeRowsAreNeverRewritten, followedChangesReachErpOnce, followedChangesSurviveStateLoss, followPassDueAfterClockStepBack } from './followInvariants.js';

/** What an invariant sees. */
export interface Seen {
  readonly m: Model;
  readonly o: Outcome;
  readonly obs: Observation;
}

/** A broken promise. */
export interface Violation {
  readonly invariant: string;
  readonly details: string;
}

type Invariant = (s: Seen) => string[];

const FIELDS = ['price', 'quantity', 'name'] as const;

/** A shop product as the projection's fields. */
function shopView(p: Record<string, unknown>): Projection & { status: number } {
  const de = (p.languages as Record<string, Record<string, unknown>> | undefined)?.de;
  return { products_model: String(p.products_model), price: Number(p.products_price), quantity: Number(p.products_quantity), name: String(de?.products_name ?? ''), status: Number(p.products_status) };
}

function byModel(obs: Observation): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const p of obs.products) {
    const key = String(p.products_model);
    out.set(key, [...(out.get(key) ?? []), p]);
  }
  return out;
}

/** How the shop's copy differs from the projection (tolerated values aside); undefined when it matches. */
function drift(m: Model, want: Projection, shop: Record<string, unknown> | undefined): string | undefined {
  if (!shop) return 'not in the shop';
  const have = shopView(shop);
  const tolerated = m.tolerated.get(want.products_model);
  // The shop's own booking may take an article below 0 (an order without a stock check); a reserved push never sends below 0
  // and leaves such a figure alone when it would send 0 again: that oversell is the shop's, and shows no more than ERP − unbooked.
  const oversoldByShop = (f: (typeof FIELDS)[number]) => f === 'quantity' && want.quantity === 0 && have.quantity < 0;
  const off = FIELDS.filter((f) => have[f] !== want[f] && !tolerated?.get(f)?.has(have[f]) && !oversoldByShop(f));
  if (have.status !== 1) off.push('status' as never);
  return off.length === 0 ? undefined : off.map((f) => `${f} ${JSON.stringify(have[f as keyof typeof have])} ≠ ${JSON.stringify(want[f as keyof Projection] ?? 1)}`).join(', ');
}

/** The run a completed push step left, when it completed: in-process, by the CLI (not killed) or a repair. */
export function completedPush(s: Seen): { status: string; before: Snapshot } | undefined {
  const { o } = s;
  if (o.kind === 'run' && o.pipeline === 'products') return { status: o.summary.status, before: o.before };
  if (o.kind === 'repair') return { status: o.status, before: o.before };
  if (o.kind === 'cli' && !o.exit.killed) {
    const run = runsOf(s.obs, o.exit.pid).at(-1);
    return run ? { status: run.status, before: o.before } : undefined;
  }
  return undefined;
}

function runsOf(obs: Observation, pid: number): RunRecord[] {
  return obs.runs.filter((r) => r.pid === pid);
}

export const settled = (status: string) => status === 'succeeded' || status === 'partial';

/** After a push run that ended succeeded (or partial: every record settled), every committed row the mapping takes is in the shop as the mapping makes it. */
export function shopHoldsTheProjection(s: Seen): string[] {
  const done = completedPush(s);
  if (!done || !settled(done.status)) return [];
  const shop = byModel(s.obs);
  return done.before.deliverable.flatMap(({ row, projection }) => {
    const d = drift(s.m, projection, shop.get(row.sku)?.[0]);
    return d ? [`${row.sku} (stamped ${row.stamp}) after a ${done.status} run: ${d}`] : [];
  });
}

/** After a sync that ended succeeded or partial, every committed row the mapping or the source refuses has an open dead letter with a reason. */
export function refusedRowsHaveLetters(s: Seen): string[] {
  const done = s.o.kind === 'repair' ? undefined : completedPush(s);
  return done && settled(done.status) ? lettersOfRefused(s, done.before, true) : [];
}

/** After a repair that ended succeeded or partial, every committed row the mapping refuses has an open dead letter (docs/catalog.md, "Repair": "records the mapping refuses become dead letters"). */
export function repairLettersRefusedRows(s: Seen): string[] {
  const { o } = s;
  return o.kind === 'repair' && settled(o.status) ? lettersOfRefused(s, o.before, false).map((d) => `after a reconcile --repair that ended ${o.status}: ${d}`) : [];
}

/** Refused rows of a snapshot without an open letter with a reason (rows without a key too, when `keyless`). */
function lettersOfRefused(s: Seen, before: Snapshot, keyless: boolean): string[] {
  const letters = s.obs.letters.filter((l) => l.pipeline === 'products');
  const out: string[] = [];
  for (const row of before.refused) {
    const letter = letters.find((l) => l.erpKey === row.sku);
    if (!letter || letter.reason.trim() === '') out.push(`${row.sku} (price ${JSON.stringify(row.price)}) has ${letter ? 'a letter without a reason' : 'no dead letter'}`);
  }
  for (const stamp of keyless ? before.keyless : []) {
    if (!letters.some((l) => l.code === 'SOURCE_KEY_MISSING' && l.erpKey.includes(stamp) && l.reason.trim() !== '')) out.push(`the row without a key stamped ${stamp} has no dead letter with a reason`);
  }
  return out;
}

/** The cursor never stands past a committed row that has not been delivered: every row neither in the shop as the model says nor lettered lies within the next read (after the cursor less the lookback). */
export function cursorWithinReach(s: Seen): string[] {
  const value = s.obs.cursor?.value;
  if (typeof value !== 'string' || Number.isNaN(msOf(value))) return [];
  const reach = msOf(value) - DEFAULT_LOOKBACK_MS;
  const shop = byModel(s.obs);
  const lettered = new Set(s.obs.letters.filter((l) => l.pipeline === 'products').map((l) => l.erpKey));
  const out: string[] = [];
  for (const row of s.m.products.values()) {
    if (msOf(row.stamp) >= reach) continue;
    const missing = validPrice(row.price) ? drift(s.m, s.m.projectionOf(row), shop.get(row.sku)?.[0]) : undefined;
    const undelivered = validPrice(row.price) ? missing !== undefined : !lettered.has(row.sku);
    if (undelivered) out.push(`${row.sku} stamped ${row.stamp} is ${validPrice(row.price) ? `not delivered (${missing})` : 'refused but not lettered'}, and the cursor stands at ${value}: the next read starts after ${new Date(reach).toISOString()}`);
  }
  for (const stamp of s.m.keyless) {
    if (msOf(stamp) < reach && ![...lettered].some((k) => k.includes(stamp))) out.push(`the row without a key stamped ${stamp} is not lettered and lies before the cursor ${value} less the lookback`);
  }
  return out;
}

/** A file delivery is an arrival, not a name: after a run of the files pipeline that settled, every row of the latest picked-up delivery of each article is in the shop as the mapping makes it, or lettered with a reason when refused. */
export function fileDeliveriesArrive(s: Seen): string[] {
  const { o } = s;
  if (o.kind !== 'run' || o.pipeline !== 'files' || !settled(o.summary.status)) return [];
  const shop = byModel(s.obs);
  const letters = s.obs.letters.filter((l) => l.pipeline === 'files');
  const out: string[] = [];
  for (const { row, projection } of s.m.deliverableFiles()) {
    const d = drift(s.m, projection, shop.get(row.sku)?.[0]);
    if (d) out.push(`${row.sku} of a delivery picked up: ${d}`);
  }
  for (const row of s.m.fileRows.values()) {
    if (validPrice(row.price)) continue;
    const letter = letters.find((l) => l.erpKey === row.sku);
    if (!letter || letter.reason.trim() === '') out.push(`${row.sku} (price ${JSON.stringify(row.price)} in a delivery) has no dead letter with a reason`);
  }
  return out;
}

/** A backfill that settled delivered every committed row stamped in its range (after `from`, up to `to`) as the mapping makes it, or lettered it. */
export function backfillDeliversItsRange(s: Seen): string[] {
  const { o } = s;
  if (o.kind !== 'run' || !o.range || !settled(o.summary.status)) return [];
  const { from, to } = o.range;
  const shop = byModel(s.obs);
  const lettered = new Set(s.obs.letters.filter((l) => l.pipeline === 'products').map((l) => l.erpKey));
  const inRange = (stamp: string) => stamp > from && stamp <= to;
  const out = o.before.deliverable.filter(({ row }) => inRange(row.stamp)).flatMap(({ row, projection }) => {
    const d = drift(s.m, projection, shop.get(row.sku)?.[0]);
    return d ? [`${row.sku} stamped ${row.stamp}, inside the backfill ${from}..${to}: ${d}`] : [];
  });
  for (const row of o.before.refused) if (inRange(row.stamp) && !lettered.has(row.sku)) out.push(`${row.sku} (refused) stamped ${row.stamp}, inside the backfill ${from}..${to}, has no letter`);
  return out;
}

/**
 * Issue 43, the shop sells only what is there: after a stock run that settled (in-process, by the
 * CLI, or a repair), no article the ERP holds shows more in the shop than the ERP's figure less the
 * units of the shop's orders the ERP has not booked yet, both as they stood when the run started.
 * The model's own count of unbooked orders is the truth here, never shopsync's ledger.
 */
export function shopNeverAboveErpLessUnbooked(s: Seen): string[] {
  const done = completedPush(s);
  if (!done || !settled(done.status)) return [];
  const shop = byModel(s.obs);
  const out: string[] = [];
  for (const { row } of done.before.deliverable) {
    const have = shop.get(row.sku)?.[0];
    if (!have) continue;
    const quantity = Number(have.products_quantity);
    const unbooked = done.before.unbooked.get(row.sku) ?? 0;
    const limit = Math.max(0, Number(row.qty) - unbooked);
    if (quantity > limit) out.push(`${row.sku}: the shop shows ${quantity} after a ${done.status} stock run, above ERP ${row.qty} − unbooked ${unbooked} = ${limit}${unbooked > 0 ? ` (orders ${s.m.unbookedOrders(row.sku).join(', ')} not booked by the ERP)` : ''}`);
  }
  return out;
}

/** No product exists twice in the shop (products_model), and the shop holds none the ERP never had. */
export function shopHasEachProductOnce(s: Seen): string[] {
  const out: string[] = [];
  for (const [model, list] of byModel(s.obs)) {
    if (list.length > 1) out.push(`${model} is in the shop ${list.length} times (ids ${list.map((p) => p.products_id).join(', ')})`);
    if (!s.m.everSku.has(model)) out.push(`the shop holds ${model}, which the ERP never had`);
  }
  return out;
}

/** The shop's orders are exactly those the customers placed: none twice, none made up (a pull never writes to the shop). */
export function ordersAreTheCustomers(s: Seen): string[] {
  const ids = s.obs.orders.map((o) => Number(o.orders_id));
  const placed = new Set(s.m.orders.map((o) => o.ordersId));
  const out: string[] = [];
  if (new Set(ids).size !== ids.length) out.push(`an order id appears twice: ${ids.join(', ')}`);
  for (const id of ids) if (!placed.has(id)) out.push(`order ${id} is in the shop but no customer placed it`);
  if (ids.length !== placed.size) out.push(`${ids.length} orders in the shop, ${placed.size} placed`);
  return out;
}

/** No run is `running` once its process is gone: a run of this process is finished when its step ends, and a dead process's run is marked crashed by the next run of its lane. */
export function noRunLeftRunning(s: Seen): string[] {
  const out: string[] = [];
  for (const r of s.obs.runs.filter((x) => x.status === 'running')) {
    // A run whose end the state refused to record is held to the next promise instead.
    if (r.pid === process.pid && s.m.unfinished.has(r.id)) continue;
    if (r.pid === process.pid) out.push(`run ${r.id} (${r.pipeline} ${r.mode}) of this process is still running after its step`);
    else if (r.pid !== undefined && !processAlive(r.pid) && s.obs.runs.some((later) => later.id > r.id && later.lane === r.lane)) out.push(`run ${r.id} (${r.pipeline}) of the dead process ${r.pid} is still running after run ${s.obs.runs.find((l) => l.id > r.id && l.lane === r.lane)?.id} of its lane started`);
  }
  return out;
}

/** A run whose end the state could not record (a state write error, a full state) is not left `running` once the next run of its lane started: that run finds it and ends it. */
export function unfinishedRunIsEnded(s: Seen): string[] {
  if (s.o.kind === 'threw' && s.m.unfinished.size > 0 && /already running/.test(s.o.error)) return [`a run of ${s.o.pipeline} could not start: ${s.o.error}`];
  return s.obs.runs
    .filter((r) => r.status === 'running' && s.m.unfinished.has(r.id))
    .flatMap((r) => {
      const later = s.obs.runs.find((l) => l.id > r.id && l.lane === r.lane);
      return later ? [`run ${r.id} (${r.pipeline}), whose end the state refused, is still running after run ${later.id} of its lane started`] : [];
    });
}

/** A run tells its caller the status the state recorded for it: an in-process run that returned a summary (the CLI prints it and exits by it) has that status in its run row. */
export function reportedStatusIsRecorded(s: Seen): string[] {
  const { o } = s;
  if (o.kind !== 'run' || o.summary.runId === 0) return [];
  const row = s.obs.runs.find((r) => r.id === o.summary.runId);
  return row?.status === o.summary.status ? [] : [`run ${o.summary.runId} reported ${o.summary.status}, the state holds ${row ? row.status : 'no such run'}`];
}

/** A CLI command that ended by itself exits 0 exactly when every run it started succeeded, and leaves none running (docs/cli.md). */
export function exitCodeAgreesWithStatus(s: Seen): string[] {
  const { o } = s;
  if (o.kind !== 'cli' || o.exit.killed) return [];
  const runs = runsOf(s.obs, o.exit.pid);
  const line = runs.map((r) => `run ${r.id} ${r.status}${r.error ? ` [${String(r.error.code)}]` : ''}`).join(', ') || 'no run';
  const out: string[] = [];
  if (runs.some((r) => r.status === 'running')) out.push(`exit ${o.exit.code} left ${line}`);
  const allSucceeded = runs.length > 0 && runs.every((r) => r.status === 'succeeded');
  if ((o.exit.code === 0) !== allSucceeded) out.push(`exit ${o.exit.code} (signal ${o.exit.signal}) but ${line}\n${o.exit.output.slice(-1500)}`);
  return out;
}

/** No run is ever abandoned (RUN_ABANDONED, exit 5): docs/cli.md calls that a bug. */
export function noRunAbandoned(s: Seen): string[] {
  const out = s.obs.runs.filter((r) => r.error?.code === 'RUN_ABANDONED').map((r) => `run ${r.id} (${r.pipeline}) was abandoned: ${String(r.error?.message)}`);
  if (s.o.kind === 'cli' && s.o.exit.code === 5) out.push(`the CLI exited 5 (abandoned)\n${s.o.exit.output.slice(-1500)}`);
  return out;
}

/** A run against a shop without faults never fails (a transient fault is the only excuse the simulation allows). */
export function healthyShopNeverFailsARun(s: Seen): string[] {
  const { o } = s;
  if (o.kind === 'run' && !o.before.faultsOn && o.summary.status === 'failed') return [`${o.pipeline} run ${o.summary.runId} failed without a fault: [${o.summary.error?.code}] ${o.summary.error?.message}`];
  if (o.kind === 'cli' && !o.exit.killed && !o.before.faultsOn) {
    // A state server that restarted under the run may fail it, but only by saying so.
    return runsOf(s.obs, o.exit.pid)
      .filter((r) => r.status === 'failed' && !(o.exit.stateRestarted && STATE_LOSS.has(String(r.error?.code))))
      .map((r) => `CLI run ${r.id} failed without a fault${o.exit.stateRestarted ? ' that names the state server\'s restart' : ''}: [${String(r.error?.code)}] ${String(r.error?.message)}`);
  }
  return [];
}

/** What a run that lost its state server mid-way may fail with: its lock's session ended, or the state could not be reached. */
const STATE_LOSS = new Set(['LOCK_LOST', 'STATE_CONNECTION_LOST', 'STATE_UNREACHABLE']);

/** A pull delivers every shop order into the ERP's import table exactly once: with its lines, or as a dead letter with a reason when the table refuses it; never inserted twice. */
export function pullDeliversEachOrderOnce(s: Seen): string[] {
  const out: string[] = [];
  for (const [id, n] of s.obs.inserts) if (n > 1) out.push(`order ${id} was inserted into the import table ${n} times`);
  const { o } = s;
  if (o.kind !== 'run' || o.pipeline !== 'orders' || !settled(o.summary.status)) return out;
  const letters = s.obs.letters.filter((l) => l.pipeline === 'orders');
  for (const order of o.before.orders) {
    if (order.name.length > IMPORT_NAME_LIMIT) {
      const letter = letters.find((l) => l.erpKey === String(order.ordersId));
      if (!letter || letter.reason.trim() === '') out.push(`order ${order.ordersId} (a name the table refuses) has no dead letter with a reason`);
      continue;
    }
    const got = s.obs.imported.get(order.ordersId);
    if (!got) out.push(`order ${order.ordersId} is not in the import table after a ${o.summary.status} pull`);
    else if (got.name !== order.name || got.lines !== order.lines) out.push(`order ${order.ordersId} arrived as ${JSON.stringify(got)}, placed as ${JSON.stringify({ name: order.name, lines: order.lines })}`);
  }
  return out;
}

/** A run's counts are what arrived: a pull's created and updated are the inserts and updates the import table received; a push counted no create the shop lacks, and a push that settled counted every new product as created (or updated, when a lost answer made the create an update). */
export function runCountsMatchWhatArrived(s: Seen): string[] {
  const { o } = s;
  if (o.kind === 'run' && o.pipeline === 'orders') {
    const got = s.obs.receiptsAfter(o.before.receiptSeq);
    const c = o.summary.counts;
    // A commit whose answer was lost wrote rows the run could not count: the table may hold more, never less.
    if (s.obs.lostAcks > o.before.lostAcks) return got.inserts >= c.created && got.updates >= c.updated ? [] : [`with a lost commit answer, the pull counted created ${c.created}, updated ${c.updated}; the table received only ${got.inserts} inserts, ${got.updates} updates`];
    // Held to pullCountsTheTablesSplit instead (known broken): the state lost the seen hashes of rows the sink had committed.
    if (s.obs.stateFaults + s.obs.lostAcks > 0 && got.inserts + got.updates === c.created + c.updated) return [];
    return got.inserts === c.created && got.updates === c.updated ? [] : [`the pull counted created ${c.created}, updated ${c.updated}; the table received ${got.inserts} inserts, ${got.updates} updates`];
  }
  const run = o.kind === 'run' && (o.pipeline === 'products' || o.pipeline === 'files') ? o.summary : o.kind === 'cli' && !o.exit.killed ? runsOf(s.obs, o.exit.pid).at(-1) : undefined;
  if (!run || (o.kind !== 'run' && o.kind !== 'cli')) return [];
  const fresh = [...new Set(s.obs.products.map((p) => String(p.products_model)))].filter((model) => !o.before.shopModels.has(model));
  const { created, updated } = run.counts;
  if (created > fresh.length) return [`the push counted created ${created}, but only ${fresh.length} products are new in the shop (${fresh.join(', ')})`];
  // A run that failed may leave sends unsettled whose creates landed (a lost answer it gave up on): only a settled run accounts for every new product.
  if (settled(run.status) && fresh.length > created + updated) return [`the push ended ${run.status} and counted created ${created}, updated ${updated}, but ${fresh.length} products are new in the shop (${fresh.join(', ')})`];
  if (!o.before.networkFaults && settled(run.status) && created !== fresh.length) return [`without lost answers the push counted created ${created}, but ${fresh.length} products are new in the shop`];
  return [];
}

/** After a state write failed, a pull still counts as created only what the import table inserted: the seen hashes it lost do not turn an update of a row the sink had committed into a create. */
export function pullCountsTheTablesSplit(s: Seen): string[] {
  const { o } = s;
  if (o.kind !== 'run' || o.pipeline !== 'orders' || s.obs.stateFaults + s.obs.lostAcks === 0) return [];
  const got = s.obs.receiptsAfter(o.before.receiptSeq);
  const c = o.summary.counts;
  return got.inserts + got.updates === c.created + c.updated && got.inserts !== c.created ? [`the pull counted created ${c.created}, updated ${c.updated}; the table received ${got.inserts} inserts, ${got.updates} updates`] : [];
}

/**
 * Promises the product is known to break (a bug reported, not fixed yet): explorations leave them
 * out so they find other things; a kept history that breaks one is replayed as an expected failure
 * until the fix lands (then take the name out here).
 */
export const KNOWN_BROKEN: Readonly<Record<string, string>> = {
  pullCountsTheTablesSplit: 'the pull counts created from its seen hashes, not from what the sink did: a state write that failed after the sink committed (or a commit whose answer was lost) makes the next pull count the update as a create (bookkeeping only; found by the simulation, StateFault then a pull)',
};

/** Every invariant, by name: the order they are reported in. */
export const INVARIANTS: Readonly<Record<string, Invariant>> = {
  shopHoldsTheProjection,
  refusedRowsHaveLetters,
  repairLettersRefusedRows,
  cursorWithinReach,
  fileDeliveriesArrive,
  backfillDeliversItsRange,
  shopNeverAboveErpLessUnbooked,
  shopHasEachProductOnce,
  ordersAreTheCustomers,
  noRunLeftRunning,
  unfinishedRunIsEnded,
  reportedStatusIsRecorded,
  exitCodeAgreesWithStatus,
  noRunAbandoned,
  healthyShopNeverFailsARun,
  pullDeliversEachOrderOnce,
  runCountsMatchWhatArrived,
  pullCountsTheTablesSplit,
  followedChangesReachErpOnce,
  followedChangesSurviveStateLoss,
  followPassDueAfterClockStepBack,
  changeRowsAreNeverRewritten,
  cancelledOrderStockIsReleased,
  cancelledBeforeStockRunIsReleased,
};

/** Check every invariant; then forget tolerated shop values the shop no longer shows (they cannot come back). */
export function checkInvariants(m: Model, o: Outcome, obs: Observation, checkKnownBroken: boolean): Violation[] {
  const seen: Seen = { m, o, obs };
  const out = Object.entries(INVARIANTS)
    .filter(([name]) => checkKnownBroken || !(name in KNOWN_BROKEN))
    .flatMap(([invariant, check]) => check(seen).map((details) => ({ invariant, details })));
  const shop = byModel(obs);
  for (const [sku, fields] of m.tolerated) {
    const erpRow = m.products.get(sku);
    const row = erpRow ?? m.fileRows.get(sku);
    const have = shop.get(sku)?.[0];
    if (!row || !have || !validPrice(row.price)) continue;
    const want = erpRow ? m.projectionOf(erpRow) : projectionOf(row, m.mappingVersion);
    const view = shopView(have);
    for (const f of [...fields.keys()]) if (view[f] === want[f]) fields.delete(f);
    if (fields.size === 0) m.tolerated.delete(sku);
  }
  return out;
}
