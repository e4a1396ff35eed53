/**
 * `reconcilePipeline`: read the ERP side completely (mapped by the pipeline's mapping) and the shop
 * side completely (paged export), and report the drift: ERP records the shop lacks, shop records no
 * ERP record maps to, and records whose mapped fields differ. Streams: the ERP side waits in a
 * temporary SQLite table, the shop side passes page by page, the CSV is written as it goes; only
 * the first entries of each kind stay in memory for the JSON report. `repair` pushes what differs
 * through the pipeline (src/reconcile/repair.ts).
 */
import { ConfigError } from '../errors.js';
import { silentLogger } from '../log.js';
import { payloadDiff } from '../pipeline/diff.js';
import { checkMapping, parseDefinition } from '../pipeline/run.js';
import type { PipelineDefinition, PipelineDefinitionInput } from '../pipeline/schema.js';
import type { PipelineDeps, SourceProvider } from '../pipeline/types.js';
import type { Source } from '../erp/types.js';
import { clearedAlike, type ResourceName } from '../shop/registry/index.js';
import { repairDrift } from './repair.js';
import { openStock, stockChoice, type ReservationTotals } from './reserved.js';
import { SAMPLE_SIZE, type ReconcileCounts, type ReconcileReport } from './report.js';
import { Scratch } from './scratch.js';
import { matchingOf, readErpSide } from './sides.js';
import { reportId, type ReportStore } from './store.js';
import { ReconcileGuard } from '../conflicts/reconcile.js';

/** Options of a reconciliation. */
export interface ReconcileOptions {
  readonly reports: ReportStore;
  /** Push the drift back through the pipeline (with every guard rail). @default false */
  readonly repair?: boolean;
  /** Let the repair deactivate or delete more shop-only records than `options.massDelete` allows. */
  readonly allowMassDelete?: boolean;
  readonly signal?: AbortSignal;
}

async function openSource(provider: SourceProvider | undefined): Promise<{ source: Source; owned: boolean }> {
  if (provider === undefined) throw new ConfigError('a reconciliation needs the pipeline\'s source');
  return typeof provider === 'function' ? { source: await provider(), owned: true } : { source: provider, owned: false };
}

function isRetired(def: PipelineDefinition, deactivate: { field: string; value: string | number } | undefined, record: Record<string, unknown>): boolean {
  return def.options.onMissing === 'deactivate' && deactivate !== undefined && record[deactivate.field] !== undefined && String(record[deactivate.field]) === String(deactivate.value);
}

/** Pages of an export with the next one already requested: the shop prepares it while this one is compared. */
async function* readAhead<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const it = pages[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = it.next();
      // A failing read-ahead surfaces when its page is awaited; until then it must not count as unhandled.
      next.catch(() => undefined);
      yield current.value;
    }
  } finally {
    await it.return?.();
  }
}

/** Reconcile a push pipeline's ERP side with its shop; saves and returns the report. */
export async function reconcilePipeline(definition: PipelineDefinition | PipelineDefinitionInput, shared: PipelineDeps, options: ReconcileOptions): Promise<ReconcileReport> {
  const def = parseDefinition(definition);
  if (def.direction !== 'push') throw new ConfigError(`pipeline ${def.name} is a pull; reconcile compares what a push pipeline sends with the shop`);
  const deps: PipelineDeps = { ...shared, state: shared.state.forShop(def.shop) };
  const resource = checkMapping(def, deps);
  if (deps.mapping.recordKey) throw new ConfigError(`pipeline ${def.name}: mapping ${deps.mapping.name} declares row_key (several source rows per shop record); reconcile compares one ERP record per shop record`, { file: deps.mapping.file });
  const started = new Date();
  const id = reportId(started);
  const logger = (deps.logger ?? silentLogger).child({ pipeline: def.name, reconcile: id });
  const matching = matchingOf(deps.mapping, resource);
  const counts: ReconcileCounts = { erp: 0, shop: 0, matched: 0, onlyInErp: 0, onlyInShop: 0, different: 0, retired: 0, refused: 0 };
  const report: Pick<ReconcileReport, 'onlyInErp' | 'onlyInShop' | 'different' | 'refused' | 'fields' | 'conflicts'> = { onlyInErp: [], onlyInShop: [], different: [], refused: [], fields: {} };
  // Guarded fields the shop's people changed are conflicts, judged as a push judges them, never drift to repair (issue 46).
  const guard = ReconcileGuard.open({ pipeline: def.name, resource, state: deps.state, fields: deps.mapping.owners?.guard });
  if (guard) {
    counts.conflicts = 0;
    report.conflicts = [];
  }
  // With `stock: reserved` the ERP side is what a stock push sends: its figure less the unbooked shop orders, read fresh from the shop first.
  const stockPush = resource.stock ? await openStock(def, deps, resource, logger) : undefined;
  const stock = stockPush && resource.stock ? { push: stockPush, def: resource.stock } : undefined;
  // Only a mapping that writes stock has a choice to report (StockPush opens for those alone).
  const totals: ReservationTotals | undefined = stock ? { stock: stockChoice(deps.mapping), units: 0, records: 0, orders: new Set() } : undefined;
  const scratch = new Scratch();
  const csv = await options.reports.csv(def.name, id, { escapeFormulas: def.reconcile?.escapeFormulas ?? true });
  try {
    const { source, owned } = await openSource(deps.source);
    try {
      counts.erp = await readErpSide({ def, resource, mapping: deps.mapping, state: deps.state, matching, scratch, ...(stock ? { stock } : {}), ...(totals ? { totals } : {}), ...(options.signal ? { signal: options.signal } : {}) }, source, async (r) => {
        counts.refused++;
        if (report.refused.length < SAMPLE_SIZE) report.refused.push(r);
        await csv.row(['refused', r.erpKey, '', '', r.code, '', r.message]);
      });
    } finally {
      if (owned) await source.close();
    }
    // Orders the ERP's stock rows show as booked (booked: changedAfter) leave the ledger, as after a push.
    await stockPush?.finish();
    const erpMs = Date.now() - started.getTime();
    logger.info({ erp: counts.erp, refused: counts.refused, ms: erpMs, ...(totals ? { reservedUnits: totals.units, unbookedOrders: totals.orders.size } : {}) }, 'reconcile: ERP side read');

    for await (const page of readAhead(deps.shop.exportPages(resource.name as ResourceName, { ...(options.signal ? { signal: options.signal } : {}) }))) {
      const paired: { match: string; different: boolean }[] = [];
      const shopOnly: { match: string; shopId: string | number }[] = [];
      for (const record of page.records) {
        counts.shop++;
        const raw = record[matching.field];
        const match = raw === undefined || raw === null ? '' : String(raw);
        const shopId = record[resource.key.id] as string | number;
        const erp = match === '' ? undefined : scratch.erpOf(match);
        if (!erp || erp.paired || paired.some((p) => p.match === match)) {
          if (isRetired(def, resource.deactivate, record)) {
            counts.retired++;
            continue;
          }
          counts.onlyInShop++;
          shopOnly.push({ match, shopId });
          if (report.onlyInShop.length < SAMPLE_SIZE) report.onlyInShop.push({ shopKey: match, shopId });
          await csv.row(['only-in-shop', '', match, shopId, '', '', '']);
          continue;
        }
        let diff = payloadDiff(record, erp.payload, resource.lists, '', (path, shop, next) => clearedAlike(resource, path, shop, next));
        if (guard) {
          const split = await guard.split(erp.erpKey, shopId, record, erp.payload, diff);
          diff = split.drift;
          for (const c of split.conflicts) {
            counts.conflicts = (counts.conflicts ?? 0) + 1;
            if (report.conflicts && report.conflicts.length < SAMPLE_SIZE) report.conflicts.push({ erpKey: c.erpKey, shopId, field: c.field, erp: c.erpValue, ...('sentValue' in c ? { sent: c.sentValue } : {}), shop: c.shopValue });
            await csv.row(['conflict', erp.erpKey, match, shopId, c.field, c.shopValue, c.erpValue]);
          }
        }
        const fields = Object.entries(diff).map(([field, d]) => {
          const r = erp.reserved.find((x) => x.field === field);
          return { field, shop: d.shop, erp: d.next, ...(r ? { onHand: r.erp, reserved: r.units, orders: [...r.orders] } : {}) };
        });
        paired.push({ match, different: fields.length > 0 });
        counts.matched++;
        if (fields.length === 0) continue;
        counts.different++;
        for (const f of fields) {
          report.fields[f.field] = (report.fields[f.field] ?? 0) + 1;
          await csv.row(['different', erp.erpKey, match, shopId, f.field, f.shop, f.erp]);
        }
        if (report.different.length < SAMPLE_SIZE) report.different.push({ erpKey: erp.erpKey, shopKey: matching.by === 'shopKey' ? match : '', shopId, fields });
      }
      scratch.settlePage(paired, shopOnly);
      await guard?.flush();
    }
    for (const u of scratch.unpaired()) {
      counts.onlyInErp++;
      const shopKey = matching.by === 'shopKey' ? u.match : '';
      if (report.onlyInErp.length < SAMPLE_SIZE) report.onlyInErp.push({ erpKey: u.erpKey, shopKey });
      await csv.row(['only-in-erp', u.erpKey, shopKey, '', '', '', '']);
    }
    await csv.close();
    const shopMs = Date.now() - started.getTime() - erpMs;
    const drift = counts.onlyInErp + counts.onlyInShop + counts.different;
    logger.info({ ...counts, drift }, 'reconcile: compared');
    const repair = options.repair ? await repairDrift(def, deps, resource, scratch, { shopRecords: counts.shop, allowMassDelete: options.allowMassDelete === true, ...(options.signal ? { signal: options.signal } : {}) }) : undefined;
    const finished = new Date();
    const full: ReconcileReport = {
      version: 1,
      id,
      pipeline: def.name,
      shop: def.shop,
      resource: resource.name,
      matchBy: matching.by,
      shopKey: matching.field,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      phases: { erpMs, shopMs },
      drift,
      counts,
      ...report,
      csv: `${id}.csv`,
      ...(repair ? { repair } : {}),
      ...(totals ? { reservations: { stock: totals.stock, units: totals.units, records: totals.records, orders: totals.orders.size, orderIds: [...totals.orders].sort((a, b) => a - b).slice(0, SAMPLE_SIZE) } } : {}),
    };
    await options.reports.save(full, def.reconcile?.keep ?? 10);
    deps.events?.emit({ type: 'reconcile-finished', pipeline: def.name, shop: def.shop, reportId: id, drift, alertAbove: def.reconcile?.alertAbove ?? 0, counts: { ...counts } });
    return full;
  } catch (err) {
    await csv.discard();
    throw err;
  } finally {
    scratch.close();
  }
}
