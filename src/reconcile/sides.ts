/**
 * The two sides of a reconciliation. The ERP side is read completely from the pipeline's source
 * and mapped exactly as a push would map it (the payload an update would send); the shop side is
 * the resource's paged export. Records pair up by the mapping's shop key (products_model), or by
 * the stored reference when the mapping has none.
 */
import type { Source, SourceItem } from '../erp/types.js';
import type { CompiledMapping } from '../mapping/types.js';
import { flaggedInactive } from '../pipeline/missing/index.js';
import { withoutCreateOnly } from '../pipeline/push/prepare.js';
import { issueOf } from '../pipeline/push/issues.js';
import { ReferenceCache, withReferences } from '../pipeline/references.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { ResourceDef } from '../shop/registry/index.js';
import type { StateStore } from '../state/index.js';
import type { StockPush } from '../reservations/push.js';
import type { StockDef } from '../shop/registry/index.js';
import { reserveOne, type ReservationTotals } from './reserved.js';
import type { ErpRow, Scratch } from './scratch.js';
import { withoutPaths } from '../conflicts/paths.js';

/** Records mapped and stored per chunk. */
const CHUNK = 500;

/** How records pair up. */
export interface Matching {
  readonly by: 'shopKey' | 'reference';
  /** The shop field compared: the mapping's shop key, or the resource's id. */
  readonly field: string;
}

/** The pairing of a pipeline's mapping. */
export function matchingOf(mapping: CompiledMapping, resource: ResourceDef): Matching {
  return mapping.shopKey !== undefined ? { by: 'shopKey', field: mapping.shopKey } : { by: 'reference', field: resource.key.id };
}

/** An ERP record the reconciliation cannot compare. */
export interface Refusal {
  readonly erpKey: string;
  readonly code: string;
  readonly message: string;
}

/** What reading the ERP side needs. */
export interface ErpSideDeps {
  readonly def: PipelineDefinition;
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  readonly state: StateStore;
  readonly matching: Matching;
  readonly scratch: Scratch;
  /** A mapping that writes stock: the push's reservations (subtracted with `stock: reserved`). */
  readonly stock?: { readonly push: StockPush; readonly def: StockDef };
  /** Counted as the payloads are reduced: the report's `reservations`. */
  readonly totals?: ReservationTotals;
  readonly signal?: AbortSignal;
}

/** Read the whole source into the scratch table; returns how many were read and the refusals (via `refuse`). */
export async function readErpSide(deps: ErpSideDeps, source: Source, refuse: (r: Refusal) => Promise<void>): Promise<number> {
  const cache = new ReferenceCache(deps.state);
  let read = 0;
  let chunk: SourceItem[] = [];
  const flush = async (): Promise<void> => {
    const items = chunk;
    chunk = [];
    const refs = deps.matching.by === 'reference' ? await deps.state.refs.getMany(deps.resource.name, items.map((i) => i.key)) : undefined;
    const rows: ErpRow[] = [];
    for (const item of items) {
      const first = await mapOne(deps, cache, item);
      // The payload a stock push would send: the ERP figure less the unbooked orders (src/reconcile/reserved.ts).
      const r = deps.stock && !('code' in first) ? reserveOne(deps.stock.push, deps.stock.def, first.payload, item.record) : undefined;
      const mapped = r ? { payload: r.payload } : first;
      const reserved = r?.reserved ?? [];
      if ('code' in mapped) {
        // Kept for a repair: a sync would dead-letter this record, and so must the repair that stands in for it.
        deps.scratch.addRefused(item.key, item.record, item.refused);
        await refuse(mapped);
        continue;
      }
      let match: string | undefined;
      if (refs) {
        const id = refs.get(item.key);
        // Without a reference the record cannot pair with any shop record: it is only in the ERP.
        match = id !== undefined ? String(id) : `\u0000${item.key}`;
      } else {
        const v = mapped.payload[deps.matching.field];
        match = v === undefined || v === null || v === '' ? undefined : String(v);
      }
      if (match === undefined) {
        await refuse({ erpKey: item.key, code: 'RECONCILE_NO_SHOP_KEY', message: `the mapping produced no ${deps.matching.field}, so the record cannot be found in the shop` });
        continue;
      }
      if (deps.totals && reserved.length > 0) {
        deps.totals.records++;
        // An order line takes the article's total and its SKU's figure alike: its units count once, as the total's.
        const total = reserved.find((f) => !f.field.includes('['));
        deps.totals.units += total ? total.units : reserved.reduce((n, f) => n + f.units, 0);
        for (const f of reserved) for (const o of f.orders) deps.totals.orders.add(o);
      }
      rows.push({ match, erpKey: item.key, record: item.record, payload: mapped.payload, ...(reserved.length > 0 ? { reserved } : {}) });
    }
    for (const dup of deps.scratch.addErp(rows)) await refuse({ erpKey: dup.erpKey, code: 'RECONCILE_DUPLICATE_KEY', message: `another ERP record maps to the same ${deps.matching.field} ${dup.match}` });
  };
  for await (const item of source.read({ readOnly: true, pageSize: deps.def.options.pageSize, ...(deps.signal ? { signal: deps.signal } : {}) })) {
    if (!item.refused && flaggedInactive(deps.def.options.inactiveWhen, item.record)) continue;
    read++;
    chunk.push(item);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return read;
}

async function mapOne(deps: ErpSideDeps, cache: ReferenceCache, item: SourceItem): Promise<{ payload: Record<string, unknown> } | Refusal> {
  if (item.refused) return { erpKey: item.key, code: item.refused.code, message: item.refused.message };
  const { mapping } = deps;
  try {
    const { result } = await withReferences(cache, (ctx) => (mapping.applySync ? mapping.applySync(item.record, ctx) : mapping.apply(item.record, ctx)));
    if (!result.ok) {
      const first = issueOf(result.errors[0]);
      return { erpKey: item.key, code: first.code, message: result.errors.map((e) => e.message).join('; ') };
    }
    // An update never sends create-only fields, nor the fields the shop owns, so they never drift.
    return { payload: withoutPaths(withoutCreateOnly(result.payload, mapping.createOnly), mapping.owners?.shop) };
  } catch (err) {
    const issue = issueOf(err);
    return { erpKey: item.key, code: issue.code, message: issue.message };
  }
}
