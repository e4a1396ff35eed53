/**
 * The shop's current records of an update batch, read before the batch leaves so a guarded field
 * can be compared (issue 46). The cheapest read the registry offers for the resource:
 *
 * - an id range route (`/export/json/products/{START}:{END}`): the batch's ids grouped into ranges
 *   narrower than one export page, one request per range (an update batch of neighbouring ids,
 *   the usual case after an initial import, is one or two requests);
 * - an export filter on the id (the spec shows no list of ids): one request per record;
 * - a single-record route: one request per record.
 *
 * A resource with none of them, or a read that fails, leaves its records unread: the caller sends
 * them again later (a failure worth retrying) or holds their guarded fields and says so
 * (docs/benchmarks.md "Guarded fields" measures the cost).
 */
import { ShopApiError, ShopUnreachableError } from '../shop/errors.js';
import type { ShopClient } from '../shop/client/types.js';
import { placeholders } from '../shop/client/paths.js';
import type { ResourceDef, ResourceName } from '../shop/registry/index.js';
import type { ShopId } from '../state/index.js';

/** What reading gave, by shop id as text. */
export interface CurrentRecords {
  readonly records: Map<string, Record<string, unknown>>;
  /** Ids that could not be read, with why, and whether trying again may help (a 5xx, a timeout). */
  readonly failed: Map<string, { readonly reason: string; readonly retryable: boolean }>;
  /** Requests made. */
  readonly requests: number;
}

/** How a resource's records are read by id. */
export type ReadWay = { readonly kind: 'range'; readonly span: number } | { readonly kind: 'filter'; readonly filter: string } | { readonly kind: 'one' } | { readonly kind: 'none' };

/** Single-record reads in flight at once (the client's queue still keeps to the shop's rate). */
const READ_CONCURRENCY = 8;
/** Range reads in flight at once. */
const RANGE_CONCURRENCY = 4;
/** The widest range of a resource whose export does not page. */
const UNPAGED_SPAN = 1000;

/** The cheapest way the registry offers to read a resource's records by id. */
export function readWayOf(resource: ResourceDef): ReadWay {
  const range = resource.ops.range;
  const paging = resource.ops.export?.paging;
  if (range && placeholders(range.path).includes('start') && placeholders(range.path).includes('end')) {
    // Narrower than a page: a range never holds a full page, so it answers in one request.
    return { kind: 'range', span: paging && paging.kind === 'limit-offset' ? Math.max(1, paging.maxLimit - 1) : UNPAGED_SPAN };
  }
  const filters = resource.ops.export?.filters ?? {};
  if (filters[resource.key.id]) return { kind: 'filter', filter: resource.key.id };
  if (resource.follow && filters[resource.follow.byId]) return { kind: 'filter', filter: resource.follow.byId };
  if (resource.ops.exportOne) return { kind: 'one' };
  return { kind: 'none' };
}

/** Numeric ids grouped into ranges of at most `span` ids, in order. */
export function rangesOf(ids: readonly number[], span: number): [number, number][] {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const id of sorted) {
    const last = out[out.length - 1];
    if (last && id - last[0] < span) last[1] = id;
    else out.push([id, id]);
  }
  return out;
}

/** Read the shop's current records of these ids. */
export async function readCurrent(shop: ShopClient, resource: ResourceDef, ids: readonly ShopId[]): Promise<CurrentRecords> {
  const records = new Map<string, Record<string, unknown>>();
  const failed = new Map<string, { reason: string; retryable: boolean }>();
  let requests = 0;
  const wanted = [...new Set(ids.map(String))];
  const way = readWayOf(resource);
  const name = resource.name as ResourceName;
  const keep = (found: readonly Record<string, unknown>[], asked: ReadonlySet<string>) => {
    for (const r of found) {
      const id = String(r[resource.key.id]);
      if (asked.has(id)) records.set(id, r);
    }
  };
  const guarded = async (asked: readonly string[], read: () => Promise<void>) => {
    try {
      await read();
    } catch (err) {
      // A shop that does not answer at all fails the batch's update as well: the run stops on it as it would on the write.
      if (!(err instanceof ShopApiError) || err instanceof ShopUnreachableError) throw err;
      for (const id of asked) failed.set(id, { reason: `[${err.code}] ${err.message}`, retryable: err.retryable });
    }
  };
  const numeric = way.kind === 'range' ? wanted.filter((id) => /^\d+$/.test(id)) : [];
  const single = way.kind === 'range' ? wanted.filter((id) => !/^\d+$/.test(id)) : wanted;
  if (way.kind === 'range') {
    const ranges = rangesOf(numeric.map(Number), way.span);
    await pool(ranges, RANGE_CONCURRENCY, async ([start, end]) => {
      const asked = numeric.filter((id) => Number(id) >= start && Number(id) <= end);
      requests++;
      await guarded(asked, async () => keep(await shop.exportRange(name, start, end), new Set(asked)));
    });
  }
  if (way.kind === 'none' || (way.kind === 'range' && single.length > 0)) {
    for (const id of single) failed.set(id, { reason: `the registry offers no way to read one ${resource.name} record by its id`, retryable: false });
  } else if (way.kind === 'filter' || way.kind === 'one') {
    await pool(single, READ_CONCURRENCY, async (id) => {
      requests++;
      await guarded([id], async () => {
        if (way.kind === 'one') {
          const found = await shop.exportOne(name, id);
          if (found) records.set(id, found);
          return;
        }
        for await (const page of shop.exportPages(name, { filters: { [way.filter]: id }, pageSize: 1 })) {
          keep(page.records, new Set([id]));
          break;
        }
      });
    });
  }
  return { records, failed, requests };
}

/** Run `work` over the items with at most `n` at once. */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(n, queue.length) }, worker));
}
