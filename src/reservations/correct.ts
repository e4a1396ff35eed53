/**
 * The correction at the start of a stock run (docs/catalog.md "The remaining window"): an order the
 * shop took after the last run read its orders and before that run wrote the article was booked by
 * the shop and then overwritten by the write. Nothing in the ERP changed, so the delta read would
 * never bring the record again. So every article with ledger lines this refresh read for the first
 * time or that were released lately (an order cancelled in the shop), and a figure this pipeline sent, is checked: when `max(0, erp − unbooked now)` differs from
 * what was sent, its ERP record is read again by key and pushed like any other record (mapped,
 * reserved, hashed, remembered), so the window lasts until the next run, not until the ERP changes.
 */
import type { ErpRecord, Source } from '../erp/types.js';
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { PushInput } from '../pipeline/push/keys.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { ResourceDef, StockDef } from '../shop/registry/index.js';
import type { StateStore } from '../state/index.js';
import { reservedFigure } from './figure.js';
import type { ReservationLine, StockSent } from './types.js';

/** What a correction needs. */
export interface CorrectionDeps {
  readonly def: PipelineDefinition;
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  readonly state: StateStore;
  readonly stock: StockDef;
  readonly logger: Logger;
  /** The storages_id the shop sells from (`reservations.warehouse`). */
  readonly warehouse?: number;
}

/** What the refresh of this run found: lines first read now (and lines released lately), the shop product ids per article, and all unbooked lines. */
export interface Fresh {
  readonly fresh: readonly ReservationLine[];
  /** Lines released lately (cancelled in the shop, deleted); their articles are among `fresh`'s too. */
  readonly released?: readonly ReservationLine[];
  readonly products: ReadonlyMap<string, readonly number[]>;
  readonly unbooked: readonly ReservationLine[];
}

/**
 * The records to push again, read from the source by key; without `rowsOf` a warning
 * STOCK_CORRECTION_UNAVAILABLE names the articles that stay wrong until their ERP record changes.
 */
export async function stockCorrections(deps: CorrectionDeps, found: Fresh, source: Pick<Source, 'rowsOf'> | undefined): Promise<PushInput[]> {
  const articles = [...new Set(found.fresh.map((l) => l.article))];
  if (articles.length === 0) return [];
  const keysOf = await erpKeysOf(deps, articles, found.products);
  const keys = [...new Set([...keysOf.values()].flat())];
  if (keys.length === 0) return [];
  const articleOf = new Map<string, string>();
  for (const [article, list] of keysOf) for (const k of list) articleOf.set(k, article);
  if (!source?.rowsOf) {
    // Without the rows, only records keyed by their ERP key can be compared; a row_key mapping is named whole.
    const suspect = deps.mapping.recordKey ? keys : await wrong(deps, found.unbooked, keys.map((k) => ({ erpKey: k, recordKey: k, article: articleOf.get(k)! })));
    const named = [...new Set(suspect.map((k) => (typeof k === 'string' ? articleOf.get(k)! : k.article)))].sort();
    if (named.length > 0) {
      deps.logger.warn(
        { code: 'STOCK_CORRECTION_UNAVAILABLE', pipeline: deps.def.name, articles: named },
        `shop orders were placed while the last stock run wrote ${named.join(', ')}; that write may have overwritten the shop's booking, and this source cannot read records by key to correct it. The shop's figure stays until these records change in the ERP; \`shopsync reconcile ${deps.def.name} --repair\` sets ERP − unbooked now (docs/catalog.md "The remaining window")`,
      );
    }
    return [];
  }
  const rows = await source.rowsOf(keys, { whole: true });
  const candidates: { erpKey: string; recordKey: string; article: string; record: ErpRecord }[] = [];
  for (const [erpKey, list] of rows) {
    // A row_key mapping makes a record of every row; otherwise two live rows of one key are the duplicate check's to refuse, and the first meets it there.
    for (const record of deps.mapping.recordKey ? list : list.slice(0, 1)) {
      candidates.push({ erpKey, recordKey: deps.mapping.recordKey?.(erpKey, record) ?? erpKey, article: articleOf.get(erpKey)!, record });
    }
  }
  const due = await wrong(deps, found.unbooked, candidates);
  // A released order the shop booked after the article's figure went out (first seen since) took its
  // units off the shop's figure, which no longer is the one sent: equal to it or not, it goes out again.
  const moved = await bookedSinceSent(deps, found.released ?? [], candidates.filter((c) => !due.includes(c)));
  if (due.length > 0) {
    deps.logger.info({ records: due.length, articles: [...new Set(due.map((c) => c.article))].sort() }, 'shop orders came in while the last stock run wrote these articles: they are pushed again with ERP − unbooked');
  }
  if (moved.length > 0) {
    deps.logger.info({ records: moved.length, articles: [...new Set(moved.map((c) => c.article))].sort() }, 'orders the shop booked after these articles were sent were cancelled: they are sent again with ERP − unbooked');
  }
  return [...due.map((c) => ({ erpKey: c.erpKey, record: c.record, remap: true })), ...moved.map((c) => ({ erpKey: c.erpKey, record: c.record, remap: true, resend: true }))];
}

/** The ERP keys of the articles' shop products, as the state's references know them. */
async function erpKeysOf(deps: CorrectionDeps, articles: readonly string[], products: ReadonlyMap<string, readonly number[]>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const article of articles) {
    const keys = new Set<string>();
    for (const id of products.get(article) ?? []) {
      if (deps.def.options.keyIsShopId) keys.add(String(id));
      else for (const ref of await deps.state.refs.byShopId(deps.resource.name, id)) keys.add(ref.erpKey);
    }
    // An order read before this run (released by a follow days later) left no product ids here: a record keyed by the article number itself is found by it.
    if (keys.size === 0 && !deps.def.options.keyIsShopId && (await deps.state.refs.get(deps.resource.name, article))) keys.add(article);
    if (keys.size > 0) out.set(article, [...keys]);
  }
  return out;
}

/** The candidates with a released line first seen after one of their figures was sent. */
async function bookedSinceSent<C extends { readonly recordKey: string; readonly article: string }>(deps: CorrectionDeps, released: readonly ReservationLine[], candidates: readonly C[]): Promise<C[]> {
  if (released.length === 0 || candidates.length === 0) return [];
  const sent = await deps.state.stockSent.get(deps.def.name, candidates.map((c) => c.recordKey));
  return candidates.filter((c) => {
    const lines = released.filter((l) => l.article === c.article);
    return lines.length > 0 && (sent.get(c.recordKey) ?? []).some((row) => lines.some((l) => l.seenAt > row.at));
  });
}

/** The candidates one of whose last sent figures differs from `max(0, erp − unbooked now)`. */
async function wrong<C extends { readonly recordKey: string; readonly article: string }>(deps: CorrectionDeps, unbooked: readonly ReservationLine[], candidates: readonly C[]): Promise<C[]> {
  const sent = await deps.state.stockSent.get(deps.def.name, candidates.map((c) => c.recordKey));
  return candidates.filter((c) => {
    const lines = unbooked.filter((l) => l.article === c.article);
    return (sent.get(c.recordKey) ?? []).some((row) => {
      const units = unitsFor(deps, row, lines);
      if (units === undefined) return false;
      const erp = Number(row.erp);
      // A figure forgotten (`sent` empty after a repair) or not a number is not known to be right.
      return !Number.isFinite(erp) || row.sent === '' || String(units === 0 ? erp : reservedFigure(erp, units)) !== row.sent;
    });
  });
}

/** The unbooked units a sent field carries, as apply.ts subtracts them; undefined for a field it never subtracts from. */
function unitsFor(deps: CorrectionDeps, row: StockSent, lines: readonly ReservationLine[]): number | undefined {
  const sum = (from: readonly ReservationLine[]) => from.reduce((n, l) => n + l.quantity, 0);
  for (const def of deps.stock.fields) {
    if (def.kind === 'scalar') {
      if (row.field === def.field) return sum(lines);
      continue;
    }
    const prefix = `${def.list}[`;
    const suffix = `].${def.quantity}`;
    if (!row.field.startsWith(prefix) || !row.field.endsWith(suffix)) continue;
    const id = row.field.slice(prefix.length, row.field.length - suffix.length);
    if (def.kind === 'skus') return sum(lines.filter((l) => l.sku === id));
    // A storages[] row: only the article row of the warehouse the shop sells from takes reservations.
    const parts = id.split('/');
    const ofWarehouse = deps.warehouse !== undefined && def.keys.every((k, i) => (k === def.warehouse ? Number(parts[i]) === deps.warehouse : Number(parts[i] ?? 0) === 0));
    return ofWarehouse ? sum(lines) : undefined;
  }
  return undefined;
}
