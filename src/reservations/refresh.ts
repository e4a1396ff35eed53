/**
 * Read the shop's orders since the last read and record their lines in the ledger, at the start of
 * every stock push: an order placed a second before the push counts, whether or not the orders
 * pull has carried it to the ERP yet. The export filters by day (`date_from`), so each read goes
 * back `overlapDays` before the day of the last one; lines already known keep their times.
 */
import type { Logger } from '../log.js';
import type { BooksDef, ResourceName } from '../shop/registry/index.js';
import { getResource } from '../shop/registry/index.js';
import type { ShopClient } from '../shop/client/types.js';
import { isRecord } from '../util/guards.js';
import type { ReservationLine, ReservationStore } from './types.js';

/** What a refresh needs. */
export interface RefreshDeps {
  readonly shop: ShopClient;
  readonly reservations: ReservationStore;
  /** The shop's name in the state. */
  readonly shopName: string;
  readonly overlapDays: number;
  readonly warehouse?: number;
  readonly logger: Logger;
  /** The resource whose records book stock. @default orders */
  readonly resource?: ResourceName;
  readonly now?: () => Date;
}

/** What a refresh found. */
export interface RefreshResult {
  readonly orders: number;
  readonly lines: number;
  /** Lines whose SKU could not be told (its product or option gone): they count against the article only. */
  readonly unresolvedSkus: number;
  /** The time new lines were recorded with: a ledger line with this `seenAt` was first read by this refresh. */
  readonly seenAt: string;
  /** The shop's product ids each article's lines named (what the correction finds the ERP records by). */
  readonly products: ReadonlyMap<string, readonly number[]>;
}

type Entry = Record<string, unknown>;

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The shop's datetime (`YYYY-MM-DD HH:MM:SS`, its own zone) written ISO-like, as the ledger keeps it. */
function placedAtOf(v: unknown, fallback: string): string {
  return typeof v === 'string' && v !== '' ? v.replace(' ', 'T') : fallback;
}

/** Read orders from the day of the last read (minus the overlap) and record their lines. */
export async function refreshReservations(deps: RefreshDeps): Promise<RefreshResult> {
  const resource = getResource(deps.resource ?? 'orders');
  const books = resource.books;
  if (!books) throw new Error(`${resource.name} records book no stock (registry has no \`books\`)`);
  const now = (deps.now ?? (() => new Date()))();
  const last = await deps.reservations.cursor(deps.shopName);
  const from = new Date(`${last ?? day(now)}T00:00:00Z`);
  from.setUTCDate(from.getUTCDate() - deps.overlapDays);
  const seenAt = now.toISOString();
  const skus = new SkuResolver(deps.shop);
  const lines: ReservationLine[] = [];
  const products = new Map<string, number[]>();
  let orders = 0;
  for await (const order of deps.shop.exportAll(resource.name as ResourceName, { filters: { date_from: day(from) } })) {
    orders++;
    lines.push(...(await linesOf(order, books, deps, skus, seenAt, products)));
  }
  await deps.reservations.record(lines);
  // The next read starts at today's day: orders of today are read again (the filter has no time), never missed.
  await deps.reservations.setCursor(deps.shopName, day(now));
  if (skus.unresolved > 0) deps.logger.warn({ unresolved: skus.unresolved }, 'order lines name attributes whose SKU could not be found in the product; they are reserved against the article total only');
  deps.logger.debug({ orders, lines: lines.length, from: day(from) }, 'shop orders read for reservations');
  return { orders, lines: lines.length, unresolvedSkus: skus.unresolved, seenAt, products };
}

async function linesOf(order: Entry, books: BooksDef, deps: RefreshDeps, skus: SkuResolver, seenAt: string, products: Map<string, number[]>): Promise<ReservationLine[]> {
  const ordersId = Number(order[resourceIdField(deps)]);
  const items = order[books.items];
  if (!Number.isFinite(ordersId) || !Array.isArray(items)) return [];
  const placedAt = placedAtOf(order[books.placedAt], seenAt);
  const out: ReservationLine[] = [];
  let pos = 0;
  for (const item of items) {
    pos++;
    if (!isRecord(item)) continue;
    const article = item[books.article];
    const quantity = Number(item[books.quantity]);
    // A manual item (no product) books nothing.
    if (typeof article !== 'string' || article === '' || !(quantity > 0) || !(Number(item[books.productId]) > 0)) continue;
    const productId = Number(item[books.productId]);
    const ids = products.get(article) ?? [];
    if (!ids.includes(productId)) products.set(article, [...ids, productId]);
    const attributes = Array.isArray(item[books.attributes]) ? (item[books.attributes] as unknown[]).filter(isRecord) : [];
    const sku = attributes.length > 0 ? await skus.skuOf(Number(item[books.productId]), attributes) : undefined;
    out.push({
      shop: deps.shopName,
      ordersId,
      pos,
      article,
      ...(sku !== undefined ? { sku } : {}),
      ...(deps.warehouse !== undefined ? { warehouse: deps.warehouse } : {}),
      quantity,
      placedAt,
      seenAt,
    });
  }
  return out;
}

function resourceIdField(deps: RefreshDeps): string {
  return getResource(deps.resource ?? 'orders').key.id;
}

const pair = (o: unknown, v: unknown) => `${String(o)}:${String(v)}`;

/**
 * The SKU model an item's attributes name, read from its product (once per product and run): the
 * single value in options{}, else the combination of option_groups[] all of whose values it names.
 */
export class SkuResolver {
  private readonly products = new Map<number, Promise<Entry | undefined>>();
  unresolved = 0;

  constructor(private readonly shop: ShopClient) {}

  async skuOf(productId: number, attributes: readonly Entry[]): Promise<string | undefined> {
    let p = this.products.get(productId);
    if (!p) this.products.set(productId, (p = this.shop.exportOne('products', productId)));
    const product = await p;
    const model = product ? modelOf(product, attributes.map((a) => pair(a.option_id, a.value_id))) : undefined;
    if (model === undefined) this.unresolved++;
    return model;
  }
}

function modelOf(product: Entry, named: readonly string[]): string | undefined {
  const model = (e: Entry) => (typeof e.model === 'string' && e.model !== '' ? e.model : undefined);
  for (const group of Array.isArray(product.option_groups) ? product.option_groups.filter(isRecord) : []) {
    for (const c of Array.isArray(group.combinations) ? group.combinations.filter(isRecord) : []) {
      const values = Array.isArray(c.values) ? c.values.filter(isRecord) : [];
      if (values.length > 0 && values.every((v) => named.includes(pair(v.options_id, v.options_values_id))) && model(c)) return model(c);
    }
  }
  const options = isRecord(product.options) ? Object.values(product.options).filter(isRecord) : [];
  for (const option of options) {
    for (const v of Array.isArray(option.values) ? option.values.filter(isRecord) : []) {
      if (named.includes(pair(option.options_id, v.options_values_id)) && model(v)) return model(v);
    }
  }
  return undefined;
}
