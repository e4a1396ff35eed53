/**
 * The real side of a history as fast-check sees it: the world, what each step did (its outcome),
 * and after every step an observation of the shop, the ERP and the state that every invariant is
 * checked against. A violation throws, and fast-check shrinks the history that led to it.
 */
import type { RunSummary } from '../../src/pipeline/index.js';
import type { DeadLetter, RunRecord, StoredCursor } from '../../src/state/index.js';
import { checkInvariants } from './invariants.js';
import { STEP_MS, type ErpProduct, type Model, type Projection, type ShopOrder } from './model.js';
import { tolerateReleases, type ChangeRow } from './follow.js';
import type { World } from './world.js';

/** What the model said just before a run started: the run is held to this. */
export interface Snapshot {
  readonly deliverable: readonly { readonly row: ErpProduct; readonly projection: Projection }[];
  readonly refused: readonly ErpProduct[];
  readonly keyless: readonly string[];
  readonly orders: readonly ShopOrder[];
  /** Units per article the shop's orders took and the ERP had not booked when the run started. */
  readonly unbooked: ReadonlyMap<string, number>;
  /** Units per article of cancelled orders whose cancellation a settled pull delivered (shopsync must no longer subtract them). */
  readonly released: ReadonlyMap<string, number>;
  /** The same of cancellations released before any stock run had the order's lines in its ledger. */
  readonly unledgered: ReadonlyMap<string, number>;
  /** Product models in the shop before the run. */
  readonly shopModels: ReadonlySet<string>;
  /** The last receipt of the import table before the run. */
  readonly receiptSeq: number;
  /** Faults that make requests fail (not latency alone) were in force, or an infrastructure fault was armed. */
  readonly faultsOn: boolean;
  /** An infrastructure fault (ERP, state) was armed. */
  readonly infraFaults: boolean;
  /** Commits of the ERP that took effect with their answer lost, before the run (test/sim/faults.ts). */
  readonly lostAcks: number;
  /** Faults that lose a request on the network (resets, lost answers) were in force, or a killed process's requests may still land. */
  readonly networkFaults: boolean;
}

/** A CLI process a step spawned. */
export interface CliExit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly killed: boolean;
  readonly output: string;
  /** The runs the process left in the state, as a history line shows them. */
  runs?: string;
  /** The state server ended the process's sessions during its run (CliFault restart-state). */
  stateRestarted?: boolean;
}

/** What one step did. */
export type Outcome =
  | { readonly kind: 'world'; readonly note?: string }
  | { readonly kind: 'run'; readonly pipeline: string; readonly summary: RunSummary; readonly before: Snapshot; readonly range?: { readonly from: string; readonly to: string } }
  | { readonly kind: 'cli'; readonly pipeline: string; readonly exit: CliExit; readonly before: Snapshot }
  | { readonly kind: 'repair'; readonly status: string; readonly error?: string; readonly before: Snapshot }
  /** A run that threw instead of returning a summary (a state fault at its start or end). */
  | { readonly kind: 'threw'; readonly pipeline: string; readonly error: string; readonly before: Snapshot };

/** The real system's state after a step, read with faults lifted. */
export interface Observation {
  readonly products: readonly Record<string, unknown>[];
  readonly orders: readonly Record<string, unknown>[];
  readonly letters: readonly DeadLetter[];
  readonly cursor: StoredCursor | undefined;
  readonly runs: readonly RunRecord[];
  readonly imported: ReadonlyMap<number, { readonly name: string; readonly lines: number }>;
  /** State writes an infrastructure fault failed, since the world began. */
  readonly stateFaults: number;
  /** ERP commits that took effect with their answer lost, since the world began. */
  readonly lostAcks: number;
  /** Inserts into the import table per order, since the world began. */
  readonly inserts: ReadonlyMap<number, number>;
  /** Receipts of the import table after `seq`, for the counts of one run. */
  receiptsAfter(seq: number): { inserts: number; updates: number };
  /** The ERP's change table (issue 44), by order, in seq order. */
  readonly changes: ReadonlyMap<number, readonly ChangeRow[]>;
  /** The status column of the import table, by order. */
  readonly erpStatus: ReadonlyMap<number, number | null>;
  /** The status each order had when the import table first inserted it. */
  readonly firstStatus: ReadonlyMap<number, number | null>;
  /** Change rows the ERP had that were later rewritten or deleted (they are append-only), with what happened. */
  readonly changeRewrites: readonly string[];
}

/** An invariant that did not hold, with the step and what was seen. */
export class InvariantViolation extends Error {
  constructor(
    readonly invariant: string,
    readonly step: number,
    readonly details: string,
    readonly log: readonly string[],
  ) {
    super(`invariant ${invariant} broken after step ${step}: ${details}`);
    this.name = 'InvariantViolation';
  }
}

/** The real side of one history. */
export class Sim {
  /** One line per step: the command, what it did, and how the run ended. */
  readonly log: string[] = [];
  /** The commands run so far, as a regression file keeps them. */
  readonly executed: { command: string; args: Readonly<Record<string, unknown>> }[] = [];
  /** What the last step did. */
  last: Outcome | undefined;
  /** Product models the shop held at the last observation (nothing but a run changes them until the next). */
  private shopModels = new Set<string>();

  /** `checkKnownBroken`: also hold the product to promises it is known to break (a replay of their kept history). */
  constructor(
    readonly world: World,
    private readonly checkKnownBroken = false,
  ) {}

  get checksKnownBroken(): boolean {
    return this.checkKnownBroken;
  }

  /** Write a product row into the ERP (a keyless one when sku is null). */
  writeRow(row: ErpProduct | (Omit<ErpProduct, 'sku'> & { sku: null })): void {
    if (row.sku === null) {
      this.world.erp.prepare('INSERT INTO products (sku, name, price, qty, updated_at) VALUES (NULL, ?, ?, ?, ?)').run(row.name, row.price, row.qty, row.stamp);
      return;
    }
    this.world.erp
      .prepare('INSERT INTO products (sku, name, price, qty, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sku) DO UPDATE SET name = excluded.name, price = excluded.price, qty = excluded.qty, updated_at = excluded.updated_at')
      .run(row.sku, row.name, row.price, row.qty, row.stamp);
  }

  deleteRow(sku: string): void {
    this.world.erp.prepare('DELETE FROM products WHERE sku = ?').run(sku);
  }

  /** The model's promises at this moment, for a run about to start. */
  async snapshot(m: Model): Promise<Snapshot> {
    const seq = this.world.erp.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM receipts').get() as { s: number };
    const f = m.faults;
    // Cancelled orders (issue 44): figures with or without their lines the shop may show (follow.ts, tolerateReleases).
    const { unsure, released, unledgered } = tolerateReleases(m);
    return {
      deliverable: m.deliverable(),
      refused: m.refused(),
      keyless: [...m.keyless],
      orders: [...m.orders],
      released,
      unledgered,
      unbooked: new Map([...m.products.keys()].map((sku) => [sku, m.unbooked(sku) - (unsure.get(sku) ?? 0)] as const).filter(([, units]) => units > 0)),
      // From the last observation: reading the shop again would lift the faults and start their counters anew before the run.
      shopModels: new Set(this.shopModels),
      receiptSeq: seq.s,
      faultsOn: this.world.faultsOn || this.world.infra.active,
      infraFaults: this.world.infra.active,
      lostAcks: this.world.infra.lostAcks,
      networkFaults: f === 'reset' || f === 'lost' || f === 'mixed' || m.killInFlight,
    };
  }

  /** Read the shop, the ERP's import table and the state. */
  async observe(): Promise<Observation> {
    const { world } = this;
    const [products, orders, letters, cursor, runs] = await Promise.all([
      world.shopProducts(),
      world.shopOrders(),
      world.runtime.state.deadLetters.list({ limit: 100_000 }),
      world.runtime.state.cursors.get('products'),
      world.runs(),
    ]);
    const imported = new Map<number, { name: string; lines: number }>();
    for (const r of world.erp.prepare('SELECT o.orders_id AS id, o.name AS name, (SELECT COUNT(*) FROM shop_order_lines l WHERE l.orders_id = o.orders_id) AS lines FROM shop_orders o').all() as { id: number; name: string; lines: number }[]) {
      imported.set(r.id, { name: r.name, lines: r.lines });
    }
    this.shopModels = new Set(products.map((p) => String(p.products_model)));
    const inserts = new Map<number, number>();
    for (const r of world.erp.prepare("SELECT orders_id AS id, COUNT(*) AS n FROM receipts WHERE op = 'insert' GROUP BY orders_id").all() as { id: number; n: number }[]) inserts.set(r.id, r.n);
    const receipts = world.erp.prepare("SELECT SUM(op = 'insert') AS inserts, SUM(op = 'update') AS updates FROM receipts WHERE seq > ?");
    const changes = new Map<number, ChangeRow[]>();
    for (const r of world.erp.prepare('SELECT orders_id, seq, kind, status, comment, code, field FROM shop_order_changes ORDER BY orders_id, seq').all() as ChangeRow[]) changes.set(r.orders_id, [...(changes.get(r.orders_id) ?? []), r]);
    const erpStatus = new Map((world.erp.prepare('SELECT orders_id AS id, status FROM shop_orders').all() as { id: number; status: number | null }[]).map((r) => [r.id, r.status] as const));
    const firstStatus = new Map<number, number | null>();
    for (const r of world.erp.prepare("SELECT orders_id AS id, status FROM receipts WHERE op = 'insert' ORDER BY seq").all() as { id: number; status: number | null }[]) if (!firstStatus.has(r.id)) firstStatus.set(r.id, r.status);
    const changeRewrites = (world.erp.prepare('SELECT orders_id, nr, op FROM change_receipts ORDER BY seq').all() as { orders_id: number; nr: number; op: string }[]).map((r) => `order ${r.orders_id} change ${r.nr}: ${r.op}`);
    return {
      products,
      orders,
      letters,
      cursor,
      runs,
      imported,
      inserts,
      lostAcks: world.infra.lostAcks,
      stateFaults: world.infra.fired['state-write'],
      changes,
      erpStatus,
      firstStatus,
      changeRewrites,
      receiptsAfter: (seq) => {
        const r = receipts.get(seq) as { inserts: number | null; updates: number | null };
        return { inserts: r.inserts ?? 0, updates: r.updates ?? 0 };
      },
    };
  }

  /**
   * One step of the history: the ERP's clock moves, a transaction open too long for the lookback
   * commits, the command acts, and every invariant is checked against what is then observed.
   */
  async step(command: { toString(): string; toJSON(): { command: string; args: Readonly<Record<string, unknown>> } }, m: Model, act: () => Promise<Outcome>): Promise<void> {
    const n = this.executed.length + 1;
    const label = command.toString();
    this.executed.push(command.toJSON());
    m.coverage.steps++;
    m.clockMs += STEP_MS;
    const autoCommits: string[] = [];
    for (const tx of m.overdue()) {
      this.writeRow(tx.row);
      m.finish(tx);
      autoCommits.push(`tx ${tx.id} (${tx.row.sku}) commits late`);
    }
    if (m.faults !== 'off') m.coverage.faultSteps++;
    if (process.env.SIM_TIMING) process.stderr.write(`${n}. ${label} …\n`);
    const t0 = performance.now();
    let outcome: Outcome;
    try {
      outcome = await withinStepLimit(act(), label, n);
    } catch (err) {
      this.log.push(`${n}. ${label} → threw ${(err as Error).message}`);
      throw err;
    }
    this.last = outcome;
    this.log.push(`${n}. ${[...autoCommits, label].join('; ')}${describe(outcome)}`);
    const t1 = performance.now();
    const violations = checkInvariants(m, outcome, await this.observe(), this.checkKnownBroken);
    if (process.env.SIM_TIMING) process.stderr.write(`${label}: act ${Math.round(t1 - t0)} ms, check ${Math.round(performance.now() - t1)} ms\n`);
    if (violations.length > 0) {
      const [first] = violations;
      throw new InvariantViolation(first!.invariant, n, violations.map((v) => `${v.invariant}: ${v.details}`).join('\n'), this.log);
    }
  }
}

/** A step longer than this is a hang (a wait booked on a wall clock that stepped back, a lost wake-up): a failure, not a slow step. */
export const STEP_LIMIT_MS = 90_000;

async function withinStepLimit<T>(work: Promise<T>, label: string, step: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new InvariantViolation('stepFinishes', step, `${label} did not finish within ${STEP_LIMIT_MS / 1000} s`, [])), STEP_LIMIT_MS);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a step's outcome reads in the history. */
function describe(o: Outcome): string {
  switch (o.kind) {
    case 'world':
      return o.note ? ` (${o.note})` : '';
    case 'run': {
      const c = o.summary.counts;
      return ` → ${o.summary.status}${o.summary.error ? ` [${o.summary.error.code}]` : ''} read ${c.read} created ${c.created} updated ${c.updated} unchanged ${c.unchanged} lettered ${c.deadLettered}`;
    }
    case 'cli':
      return `${o.exit.killed ? ` → SIGKILL (pid ${o.exit.pid})` : ` → exit ${o.exit.code}`}${o.exit.runs ? `: ${o.exit.runs}` : ''}`;
    case 'repair':
      return ` → repair ${o.status}${o.error ? ` [${o.error}]` : ''}`;
    case 'threw':
      return ` → threw ${o.error.slice(0, 200)}`;
  }
}
