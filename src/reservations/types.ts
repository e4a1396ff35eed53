/**
 * Reservations (issue 43): shop orders that booked stock in the shop and that the ERP has not
 * booked yet. A stock push subtracts them from the ERP's figure so it never raises what the shop
 * already sold. These are the shapes every part (push, reconcile, dashboard, alerts, sim) shares.
 */

/** One order line the shop booked and the ERP has not (yet). */
export interface ReservationLine {
  readonly shop: string;
  readonly ordersId: number;
  /** 1-based line in the order. */
  readonly pos: number;
  /** products_model of the ordered article. */
  readonly article: string;
  /** SKU model, when the line names attributes. */
  readonly sku?: string;
  /** storages_id, when the pipeline names the warehouse the shop sells from. */
  readonly warehouse?: number;
  readonly quantity: number;
  /** ISO, the order's date_purchased. */
  readonly placedAt: string;
  /** ISO, when shopsync first read it. */
  readonly seenAt: string;
  /** ISO, when the orders pull delivered it to the ERP. */
  readonly deliveredAt?: string;
  /** ISO, when the ERP said it booked it. */
  readonly bookedAt?: string;
  /** ISO, cancelled or deleted in the shop (issue 44). */
  readonly releasedAt?: string;
}

/** Unbooked units per article (and SKU). */
export interface Unbooked {
  readonly article: string;
  readonly sku?: string;
  readonly warehouse?: number;
  readonly units: number;
  readonly orders: readonly number[];
}

/** The last stock sent for one record and field. */
export interface StockSent {
  readonly pipeline: string;
  readonly recordKey: string;
  /** The stock field's path in the payload, e.g. `products_quantity`, `storages[1].products_quantity`. */
  readonly field: string;
  /** The ERP's figure before reservations, as text. */
  readonly erp: string;
  /** Units subtracted for unbooked orders, as text. */
  readonly reserved: string;
  /** The value that went out, as text. */
  readonly sent: string;
  /** ISO, when it went out. */
  readonly at: string;
}

/** The ledger of reserved order lines in the state (both backends). */
export interface ReservationStore {
  /** Record lines read from the shop; a line already known keeps its seen/delivered/booked times. */
  record(lines: readonly ReservationLine[]): Promise<void>;
  /** Lines not booked and not released, of all articles or of `articles` (products_model). */
  unbooked(shop: string, articles?: readonly string[]): Promise<ReservationLine[]>;
  /** The ERP booked these orders at `at` (ISO). */
  markBooked(shop: string, ordersIds: readonly number[], at: string): Promise<void>;
  /** The orders pull delivered these orders to the ERP at `at` (ISO); only the first delivery counts. */
  delivered(shop: string, ordersIds: readonly number[], at: string): Promise<void>;
  /** These orders no longer hold stock (cancelled, deleted) since `at` (ISO); lines recorded later are released too. */
  release(shop: string, ordersIds: readonly number[], at: string): Promise<void>;
  /** Unbooked lines released at or after `since` (ISO): their articles' last figure subtracted them. */
  released(shop: string, since: string): Promise<ReservationLine[]>;
  /** The unbooked line seen first (the oldest reservation), for the stuck-import alert. */
  oldestUnbooked(shop: string): Promise<ReservationLine | undefined>;
  /** Sum of unbooked units of the shop. */
  unbookedUnits(shop: string): Promise<number>;
  /** The day (YYYY-MM-DD) the orders were last read from, or undefined before the first read. */
  cursor(shop: string): Promise<string | undefined>;
  setCursor(shop: string, day: string): Promise<void>;
}

/** The last stock figure actually sent, per pipeline, record and stock field. */
export interface StockSentStore {
  /** The rows of these records, keyed by record key. */
  get(pipeline: string, recordKeys: readonly string[]): Promise<Map<string, StockSent[]>>;
  put(rows: readonly StockSent[]): Promise<void>;
  of(pipeline: string, recordKey: string): Promise<StockSent[]>;
}
