/**
 * The model: a plain description of what the ERP holds and what the shop must therefore hold.
 * It knows nothing of shopsync's internals (cursors, hashes, letters): only rows, their stamps on
 * the simulated clock, what the shop's staff and customers did, and what each mapping makes of a
 * row. The invariants compare the real system with it.
 */
import { FollowModel } from './follow.js';

/** The two mappings a history can switch between (ChangeMapping): the product's name as it is, or with a mark. */
export const MAPPING_VERSIONS = ['name', '{ template: "{name} *" }'] as const;

/** The ERP's clock starts here and moves only with the history (every step, and Tick). */
export const SIM_EPOCH_MS = Date.UTC(2026, 10, 26, 8, 0, 0);
/** How far the clock moves with every step. */
export const STEP_MS = 10_000;
/** A long transaction older than this commits on its own: the engine's lookback (5 minutes) covers up to that age. */
export const LONG_TX_MAX_MS = 4 * 60_000;
/** The engine's default lookback on a timestamp cursor (src/erp/sql/lookback.ts). */
export const DEFAULT_LOOKBACK_MS = 5 * 60_000;

/** A product row as the ERP holds it (texts as a SQLite ERP stores them). */
export interface ErpProduct {
  readonly sku: string;
  readonly name: string;
  /** A decimal with a point, or a text the mapping must refuse (a bad row). */
  readonly price: string;
  readonly qty: string;
  /** `updated_at`, `YYYY-MM-DD HH:MM:SS` on the simulated clock. */
  readonly stamp: string;
}

/** A transaction that wrote a row stamped at its start and has not committed yet. */
export interface OpenTransaction {
  readonly id: number;
  readonly row: ErpProduct;
  readonly beganMs: number;
}

/** An order a customer placed in the shop. */
export interface ShopOrder {
  readonly ordersId: number;
  readonly name: string;
  readonly lines: number;
}

/** One line of a shop order: the article and how many. */
export interface OrderLine {
  readonly sku: string;
  readonly qty: number;
}

/**
 * A shop order as the ERP's stock sees it (issue 43): the shop booked its lines when it took the
 * order; the ERP books them later (its stock figure drops and its booking row is written in one
 * transaction, ErpBooks). Until then the order is unbooked, and the shop must never show more
 * than the ERP's figure less its lines.
 */
export interface Reservation {
  readonly ordersId: number;
  readonly lines: readonly OrderLine[];
  booked: boolean;
  /** The shop cancelled the order (issue 44): the ERP never books it, and a pull that delivers the cancellation releases it. */
  cancelled?: boolean;
  /** A settled orders pull delivered the cancellation: shopsync no longer subtracts its lines. */
  released?: boolean;
  /** A stock run that settled started after the order was placed: its ledger has the order's lines. */
  ledgered?: boolean;
  /** The cancellation was released before any stock run had put the lines in the ledger (known broken: they stay reserved). */
  releasedUnledgered?: boolean;
  /** A pull that may have delivered the cancellation did not settle (or the order may have aged out of the follow first): either figure may be sent. */
  releaseUnsure?: boolean;
}

/** What a history covered, summed up by the runner. */
export interface Coverage {
  steps: number;
  runs: number;
  cliRuns: number;
  kills: number;
  lateCommits: number;
  skewedWrites: number;
  badRows: number;
  shopEdits: number;
  shopOrders: number;
  refusedOrders: number;
  mappingChanges: number;
  retries: number;
  fileDrops: number;
  /** Deliveries under a name a run had already picked up once: read again from their first row. */
  redeliveries: number;
  reconciles: number;
  faultSteps: number;
  rateLimited: number;
  networkFailures: number;
  failedRuns: number;
  /** Infrastructure faults armed (ErpFault, StateFault). */
  infraFaults: number;
  /** Statements an infrastructure fault failed. */
  infraFailures: number;
  clockSteps: number;
  freezes: number;
  /** PostgreSQL state restarts (every session of the world ended), between steps or in a CLI run. */
  stateRestarts: number;
  /** Orders that booked stock in the shop (ShopOrder and CustomerBuys placed). */
  bookingOrders: number;
  /** Orders the shop refused for want of stock (STOCK_INSUFFICIENT). */
  soldOut: number;
  /** Orders the ERP booked later (ErpBooks). */
  erpBookings: number;
  /** Shop-side changes after checkout (issue 44): statuses, cancellations, tracking entries (returns among them), addresses. */
  shopStatusChanges: number;
  cancellations: number;
  trackingEntries: number;
  returnEntries: number;
  addressChanges: number;
  /** Orders placed days ago (date_purchased in the past). */
  backdatedOrders: number;
  /** Changes the ERP's change table received (rows inserted). */
  changeRows: number;
}

export function emptyCoverage(): Coverage {
  return { steps: 0, runs: 0, cliRuns: 0, kills: 0, lateCommits: 0, skewedWrites: 0, badRows: 0, shopEdits: 0, shopOrders: 0, refusedOrders: 0, mappingChanges: 0, retries: 0, fileDrops: 0, redeliveries: 0, reconciles: 0, faultSteps: 0, rateLimited: 0, networkFailures: 0, failedRuns: 0, infraFaults: 0, infraFailures: 0, clockSteps: 0, freezes: 0, stateRestarts: 0, bookingOrders: 0, soldOut: 0, erpBookings: 0, shopStatusChanges: 0, cancellations: 0, trackingEntries: 0, returnEntries: 0, addressChanges: 0, backdatedOrders: 0, changeRows: 0 };
}

/** A time on the simulated clock as the ERP writes it. */
export function stampOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Milliseconds of a stamp. */
export function msOf(stamp: string): number {
  return Date.parse(`${stamp.replace(' ', 'T')}Z`);
}

/** Products 0..CATALOG-1: few enough that commands meet the same rows again, enough for several batches a run. */
export const CATALOG = 40;

/** The SKU of product n. */
export function skuOf(n: number): string {
  return `P-${String(n).padStart(3, '0')}`;
}

/** Whether a price is one the mapping takes (a decimal with a point). */
export function validPrice(price: string): boolean {
  return /^\d+(\.\d+)?$/.test(price);
}

/** What the shop must hold for a row under a mapping version. */
export interface Projection {
  readonly products_model: string;
  readonly price: number;
  readonly quantity: number;
  readonly name: string;
}

/** The name a mapping version makes of a row. */
export function nameUnder(version: number, row: ErpProduct): string {
  return MAPPING_VERSIONS[version] === 'name' ? row.name : `${row.name} *`;
}

/** The stock a reserved mapping sends: the ERP's figure less the unbooked units, never below 0 (STOCK_OVERSOLD); with nothing unbooked, the ERP's figure as it is (a negative one too). */
export function reservedFigure(erp: number, unbooked: number): number {
  return unbooked === 0 ? erp : Math.max(0, erp - unbooked);
}

/** What the shop must hold for a row; with `unbooked` (a mapping with `stock: reserved`), the quantity is the ERP's less those units. */
export function projectionOf(row: ErpProduct, version: number, unbooked?: number): Projection {
  const quantity = unbooked === undefined ? Number(row.qty) : reservedFigure(Number(row.qty), unbooked);
  return { products_model: row.sku, price: Number(row.price), quantity, name: nameUnder(version, row) };
}

/** Whether an order's lines still count against the ERP's figure: not booked by the ERP, not released by a delivered cancellation. */
export function holds(r: Reservation): boolean {
  return !r.booked && !r.released;
}

/** The model of one history. */
export class Model {
  clockMs = SIM_EPOCH_MS;
  /** Committed product rows by SKU. */
  readonly products = new Map<string, ErpProduct>();
  /** Stamps of committed rows without a key. */
  readonly keyless: string[] = [];
  readonly open: OpenTransaction[] = [];
  private nextTx = 1;
  mappingVersion = 0;
  /**
   * Values the shop may show besides the projection, per SKU and field: a shop edit the pipeline
   * does not know about (it sends only what changed in the ERP), or the name under the mapping
   * before a change for a row not read since. Gone once the shop shows the projection (the value
   * cannot come back) and after a repair; an ERP write alone does not end it (see `commit`).
   */
  readonly tolerated = new Map<string, Map<keyof Projection, Set<string | number>>>();
  readonly orders: ShopOrder[] = [];
  /** Every order the shop took, by id, with its lines and whether the ERP booked it yet. */
  readonly reservations = new Map<number, Reservation>();
  /** What the shop did to its orders after checkout (issue 44). */
  readonly follow = new FollowModel();
  /** Rows of file deliveries a run has picked up, the latest delivery of each SKU: what the shop must show. */
  readonly fileRows = new Map<string, ErpProduct>();
  /** Deliveries waiting in the inbox, by name (a new one under the same name replaces one not picked up). */
  readonly dropped = new Map<string, ErpProduct[]>();
  /** File names a run has picked up at least once. */
  readonly pickedUp = new Set<string>();
  /** Every SKU the ERP ever had: the shop may hold no other product. */
  readonly everSku = new Set<string>();
  readonly coverage = emptyCoverage();
  /** The fault profile in force. */
  faults = 'off';
  /**
   * A CLI process was killed and no products run has settled since: requests it had sent may
   * still land in the shop (the shop finishes a request whose client died), as lost answers do.
   */
  killInFlight = false;
  /** Where the state lives: a SQLite file can be faulted from this process, a PostgreSQL state cannot. */
  stateKind: 'sqlite' | 'postgres' = 'sqlite';
  /** Runs of this process left `running` because the state refused to record their end. */
  readonly unfinished = new Set<number>();
  /** The shop client's `rateLimit.mode`. */
  rateMode: 'adaptive' | 'fixed' = 'adaptive';

  get now(): string {
    return stampOf(this.clockMs);
  }

  /** Whether a product's row is held by an open transaction (another writer would wait for it). */
  locked(sku: string): boolean {
    return this.open.some((t) => t.row.sku === sku);
  }

  /**
   * A row committed now (or stamped earlier: a late commit, a clock behind). Tolerated shop values
   * stay: a pipeline sends a record only when its payload differs from the one the shop last
   * accepted, so an ERP write that ends where it was leaves a staff edit in place.
   */
  commit(row: ErpProduct): void {
    this.products.set(row.sku, row);
    this.everSku.add(row.sku);
  }

  delete(sku: string): void {
    this.products.delete(sku);
  }

  begin(row: ErpProduct): OpenTransaction {
    const tx = { id: this.nextTx++, row, beganMs: this.clockMs };
    this.open.push(tx);
    return tx;
  }

  /** Transactions that have run too long for the lookback commit now (the clerk's booking ends). */
  overdue(): OpenTransaction[] {
    return this.open.filter((t) => this.clockMs - t.beganMs >= LONG_TX_MAX_MS);
  }

  finish(tx: OpenTransaction): void {
    this.open.splice(this.open.indexOf(tx), 1);
    this.commit(tx.row);
    this.coverage.lateCommits++;
  }

  tolerate(sku: string, field: keyof Projection, value: string | number): void {
    let fields = this.tolerated.get(sku);
    if (!fields) this.tolerated.set(sku, (fields = new Map()));
    let values = fields.get(field);
    if (!values) fields.set(field, (values = new Set()));
    values.add(value);
  }

  /** Units of an article the shop's orders took and the ERP has not booked yet. */
  unbooked(sku: string): number {
    let units = 0;
    for (const r of this.reservations.values()) if (holds(r)) for (const l of r.lines) if (l.sku === sku) units += l.qty;
    return units;
  }

  /** Orders not yet booked by the ERP that have a line of the article (their numbers, for a violation's text). */
  unbookedOrders(sku: string): number[] {
    return [...this.reservations.values()].filter((r) => holds(r) && r.lines.some((l) => l.sku === sku)).map((r) => r.ordersId);
  }

  /** What the products pipeline (`stock: reserved`) must make of a committed row. */
  projectionOf(row: ErpProduct): Projection {
    return projectionOf(row, this.mappingVersion, this.unbooked(row.sku));
  }

  /** Committed rows the mapping takes, with what the shop must show for each (the stock less unbooked orders). */
  deliverable(): { row: ErpProduct; projection: Projection }[] {
    return [...this.products.values()].filter((r) => validPrice(r.price)).map((row) => ({ row, projection: this.projectionOf(row) }));
  }

  /** Rows of picked-up file deliveries the mapping takes, with what the shop must show for each. */
  deliverableFiles(): { row: ErpProduct; projection: Projection }[] {
    return [...this.fileRows.values()].filter((r) => validPrice(r.price)).map((row) => ({ row, projection: projectionOf(row, this.mappingVersion) }));
  }

  /** Committed rows the mapping refuses. */
  refused(): ErpProduct[] {
    return [...this.products.values()].filter((r) => !validPrice(r.price));
  }
}
