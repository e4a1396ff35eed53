/**
 * Append-only lists (order `status_history[]`): each entry must reach the shop exactly once,
 * however often a run repeats.
 *
 * Protocol: before an update carrying entries goes out, each new entry is marked `pending` in a
 * committed transaction; once the shop confirms the write they become `sent`. Entries already
 * `sent` are removed from later payloads. A `pending` entry found before a send means an earlier
 * answer was lost: the record is read back from the shop, entries it already holds become `sent`
 * and are not sent again, the others are sent. Marking after the send instead would resend an
 * entry whose answer was lost (duplicate); marking before without reading back would drop it.
 */
import type { CompiledMapping } from '../../mapping/types.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import type { ShopClient } from '../../shop/client/types.js';
import type { ShopId, StateStore, StateWriter } from '../../state/index.js';
import { contentHash } from '../hash.js';
import type { HistoryItem, WorkItem } from './work.js';

type AppendOnlyField = { readonly field: string; readonly identity: readonly string[] };

// Asked once per record while a push prepares it: computed once per resource and mapping (2 % of a push's CPU profile when rebuilt each time).
const appendOnlyCache = new WeakMap<ResourceDef, WeakMap<CompiledMapping, readonly AppendOnlyField[]>>();

/** The resource's append-only list fields with the fields that identify one entry. */
export function appendOnlyFields(resource: ResourceDef, mapping: CompiledMapping): readonly AppendOnlyField[] {
  let byMapping = appendOnlyCache.get(resource);
  if (!byMapping) appendOnlyCache.set(resource, (byMapping = new WeakMap()));
  let fields = byMapping.get(mapping);
  if (!fields) {
    fields = Object.entries(resource.lists).flatMap(([field, def]) =>
      def.semantics.kind === 'append-only' ? [{ field, identity: mapping.historyIdentity && mapping.historyIdentity.length > 0 ? mapping.historyIdentity : def.semantics.identity }] : [],
    );
    byMapping.set(mapping, fields);
  }
  return fields;
}

function norm(v: unknown): string {
  return v === undefined || v === null ? '' : String(v).trim();
}

/** Identity hash of an entry: its identity fields, normalised to strings. */
export function entryIdentity(entry: Record<string, unknown>, identity: readonly string[]): string {
  return contentHash(identity.map((f) => norm(entry[f])));
}

/** The append-only entries of a payload. */
export function collectHistory(payload: Record<string, unknown>, fields: readonly { field: string; identity: readonly string[] }[]): HistoryItem[] {
  const out: HistoryItem[] = [];
  for (const { field, identity } of fields) {
    const list = payload[field];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (entry && typeof entry === 'object') out.push({ field, identity: entryIdentity(entry as Record<string, unknown>, identity), entry: entry as Record<string, unknown> });
    }
  }
  return out;
}

/**
 * For an update: drop entries the shop is known to hold (reading the record back when an earlier
 * answer was lost) and keep only the new ones in the payload. Returns the read-back requests made.
 */
export async function pruneSentHistory(
  item: WorkItem,
  shopId: ShopId,
  fields: readonly { field: string; identity: readonly string[] }[],
  deps: { state: StateStore; shop: ShopClient; resource: ResourceDef; runId: number; dryRun: boolean },
): Promise<number> {
  const all = collectHistory(item.payload, fields);
  if (all.length === 0) return 0;
  const known = await deps.state.history.getMany(deps.resource.name, shopId, all.map((h) => h.identity));
  const status = all.map((h) => known.get(h.identity)?.state);
  let requests = 0;
  let held = new Set<string>();
  if (status.some((s) => s === 'pending')) {
    const current = await deps.shop.exportOne(deps.resource.name as never, shopId);
    requests++;
    held = new Set(current ? collectHistory(current, fields).map((h) => h.identity) : []);
    if (!deps.dryRun) {
      await deps.state.write((tx) => {
        all.forEach((h, i) => {
          if (status[i] !== 'pending') return;
          if (held.has(h.identity)) tx.history.mark(deps.resource.name, shopId, h.identity, 'sent', h.entry, deps.runId);
          else tx.history.forget(deps.resource.name, shopId, h.identity);
        });
      });
    }
  }
  const toSend = all.filter((h, i) => status[i] !== 'sent' && !(status[i] === 'pending' && held.has(h.identity)));
  const keep = new Set(toSend);
  for (const { field } of fields) {
    if (!Array.isArray(item.payload[field])) continue;
    const entries = all.filter((h) => h.field === field && keep.has(h)).map((h) => h.entry);
    if (entries.length > 0) item.payload = { ...item.payload, [field]: entries };
    else {
      const { [field]: _dropped, ...rest } = item.payload;
      item.payload = rest;
    }
  }
  item.history = toSend;
  return requests;
}

/** Mark entries as possibly sent (before the request) for a known shop record. */
export function markPending(tx: StateWriter, resource: string, shopId: ShopId, items: readonly HistoryItem[], runId: number): void {
  for (const h of items) tx.history.mark(resource, shopId, h.identity, 'pending', h.entry, runId);
}

/** Mark entries as held by the shop. */
export function markSent(tx: StateWriter, resource: string, shopId: ShopId, items: readonly HistoryItem[], runId: number): void {
  for (const h of items) tx.history.mark(resource, shopId, h.identity, 'sent', h.entry, runId);
}
