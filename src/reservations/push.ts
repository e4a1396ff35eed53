/**
 * A stock push's view of reservations for one run: opened at the run's start (read the shop's
 * orders, ask the ERP which it booked, load the unbooked lines), then asked per record to apply
 * them to the payload and to drop stock figures that did not change since they were last sent.
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { LookupConnections } from '../pipeline/lookups/ports.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { ResourceDef, StockDef } from '../shop/registry/index.js';
import type { ShopClient } from '../shop/client/types.js';
import type { StateStore } from '../state/index.js';
import { applyReservations, type Applied } from './apply.js';
import { bookedByChange, bookedByQuery } from './booked.js';
import { stockChoiceProblem, writesStock } from './choice.js';
import { refreshReservations } from './refresh.js';
import { dropUnchangedStock } from './sent.js';
import { stockCorrections, type Fresh } from './correct.js';
import type { Source } from '../erp/types.js';
import type { PushInput } from '../pipeline/push/keys.js';
import type { ReservationLine, StockSent } from './types.js';
import { nowIso } from '../util/time.js';

/** What opening needs. */
export interface StockPushDeps {
  readonly def: PipelineDefinition;
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly logger: Logger;
  readonly dryRun: boolean;
  /** ERP connections by name (the booked query runs on the pipeline's source connection). */
  readonly lookups?: () => LookupConnections;
}

/** One run's reservations; absent when the pipeline writes no stock. */
export class StockPush {
  private readonly byArticle = new Map<string, ReservationLine[]>();
  private readonly booked = new Set<number>();
  private sentRows = new Map<string, StockSent[]>();
  private sentLoaded = new Set<string>();

  private constructor(
    private readonly deps: StockPushDeps,
    private readonly stock: StockDef,
    /** `reserved` subtracts; `available` and an unmade choice only track what was sent. */
    private readonly subtract: boolean,
    lines: readonly ReservationLine[],
    /** What this run's refresh read for the first time (absent: no refresh, a dry run or nothing subtracted). */
    private readonly found?: Fresh,
  ) {
    for (const l of lines) {
      const list = this.byArticle.get(l.article);
      if (list) list.push(l);
      else this.byArticle.set(l.article, [l]);
    }
  }

  /** Open for a run: undefined when the mapping writes none of the resource's stock fields. */
  static async open(deps: StockPushDeps): Promise<StockPush | undefined> {
    const { def, mapping, resource } = deps;
    const stock = resource.stock;
    if (!stock || !writesStock(mapping, stock)) return undefined;
    const problem = stockChoiceProblem(mapping, def);
    if (problem?.fatal) throw new ConfigError(problem.message, { file: mapping.file, code: problem.code });
    // A pipeline with reservations: subtracts unless the mapping says its figure already is available.
    const config = mapping.stock !== 'available' ? def.reservations : undefined;
    // Once per run, in the run's log (and in `mappings check`): per record it would mark every record of a catalog.
    if (problem) deps.logger.warn({ code: problem.code }, problem.message);
    if (!config) return new StockPush(deps, stock, false, []);
    const reservations = deps.state.reservations;
    const shopName = deps.state.shop;
    // A dry run reads the shop's orders but records nothing: the ledger is as the last real run left it.
    let read: Awaited<ReturnType<typeof refreshReservations>> | undefined;
    if (!deps.dryRun) {
      read = await refreshReservations({ shop: deps.shop, reservations, shopName, overlapDays: config.overlapDays, ...(config.warehouse !== undefined ? { warehouse: config.warehouse } : {}), logger: deps.logger });
      if ('query' in config.booked) {
        const connection = def.source?.connection;
        if (!deps.lookups || !connection) throw new ConfigError(`pipeline ${def.name}: reservations.booked.query needs the pipeline's ERP connection to be SQL (postgres, mysql, sqlite); use booked: { changedAfter: true } otherwise`);
        const connections = deps.lookups();
        try {
          const marked = await bookedByQuery({ driver: await connections.sql(connection), reservations, shopName }, config.booked);
          deps.logger.debug({ orders: read.orders, booked: marked.length }, 'reservations refreshed');
        } finally {
          await connections.close();
        }
      }
    }
    const lines = await reservations.unbooked(shopName);
    if (lines.length > 0) deps.logger.info({ unbookedOrders: new Set(lines.map((l) => l.ordersId)).size, units: lines.reduce((n, l) => n + l.quantity, 0) }, 'shop orders the ERP has not booked yet are subtracted from its stock');
    // Orders released lately (cancelled in the shop, deleted): the last figure of their articles subtracted them, and nothing in the ERP changes to send it again.
    const since = new Date(Date.now() - (config.overlapDays + 1) * 86_400_000).toISOString();
    const released = read ? await reservations.released(shopName, since) : [];
    const fresh = read ? [...lines.filter((l) => l.seenAt === read.seenAt), ...released] : [];
    return new StockPush(deps, stock, true, lines, read ? { fresh, released, products: read.products, unbooked: lines } : undefined);
  }

  /**
   * Records whose last write may have overwritten an order the shop took meanwhile (correct.ts):
   * pushed before the delta read, so they are mapped and reserved as any record.
   */
  async corrections(source: Pick<Source, 'rowsOf'> | undefined): Promise<PushInput[]> {
    if (!this.found || this.found.fresh.length === 0) return [];
    const { def, resource, mapping, state, logger } = this.deps;
    const warehouse = def.reservations?.warehouse;
    return stockCorrections({ def, resource, mapping, state, stock: this.stock, logger, ...(warehouse !== undefined ? { warehouse } : {}) }, this.found, source);
  }

  /** The payload with unbooked quantities subtracted (before it is hashed), and the figures for the diff. */
  apply(payload: Record<string, unknown>, record: Record<string, unknown>): Applied & { readonly extra: { code: string; message: string }[] } {
    const article = payload[this.stock.article];
    let lines = typeof article === 'string' ? (this.byArticle.get(article) ?? []) : [];
    const booked = this.deps.def.reservations?.booked;
    if (lines.length > 0 && booked && 'changedAfter' in booked) {
      const cursor = (this.deps.def.source as { cursor?: unknown } | undefined)?.cursor;
      const done = bookedByChange(lines, typeof cursor === 'string' ? record[cursor] : undefined);
      if (done.length > 0) {
        const orders = new Set(done.map((l) => l.ordersId));
        for (const id of orders) this.booked.add(id);
        // The ERP's import books an order as a whole: every line of it is off the ledger from now on.
        for (const [key, list] of this.byArticle) this.byArticle.set(key, list.filter((l) => !orders.has(l.ordersId)));
        lines = lines.filter((l) => !orders.has(l.ordersId));
      }
    }
    const applied = applyReservations(payload, this.stock, lines, { subtract: this.subtract, ...(this.deps.def.reservations?.warehouse !== undefined ? { warehouse: this.deps.def.reservations.warehouse } : {}) });
    return { ...applied, extra: [] };
  }

  /** Read the figures last sent of a chunk of records in one query, before they are prepared (one query per record was most of an update's reads). */
  async load(recordKeys: readonly string[]): Promise<void> {
    this.sentRows = await this.deps.state.stockSent.get(this.deps.def.name, recordKeys);
    this.sentLoaded = new Set(recordKeys);
  }

  /** A version of this record settled: what the chunk read of it is out of date. */
  settled(recordKey: string): void {
    this.sentLoaded.delete(recordKey);
  }

  /** The figures last sent of a record: from the chunk read, or one query for a record outside it. */
  async lastSent(recordKey: string): Promise<StockSent[]> {
    if (this.sentLoaded.has(recordKey)) return this.sentRows.get(recordKey) ?? [];
    return this.deps.state.stockSent.of(this.deps.def.name, recordKey);
  }

  /** The payload without stock figures equal to the last ones sent, and the rows to remember once it is accepted. */
  async diff(recordKey: string, applied: Applied, payload: Record<string, unknown>): Promise<{ payload: Record<string, unknown>; remember: StockSent[]; sentBefore: boolean }> {
    if (applied.figures.length === 0) return { payload, remember: [], sentBefore: false };
    const last = await this.lastSent(recordKey);
    return { ...dropUnchangedStock(payload, this.stock, applied.figures, last, { pipeline: this.deps.def.name, recordKey, at: nowIso() }), sentBefore: last.length > 0 };
  }

  /** After the run: orders judged booked by their articles' change times leave the ledger. */
  async finish(): Promise<void> {
    if (this.booked.size === 0 || this.deps.dryRun) return;
    await this.deps.state.reservations.markBooked(this.deps.state.shop, [...this.booked], new Date().toISOString());
  }
}
