/**
 * Finding a record in the shop before creating it again. A create whose answer was lost
 * (OUTCOME_UNKNOWN) or that a crash interrupted (an open intent) may have landed. Products,
 * customers and subscribers carry a key the shop de-duplicates (`Already exists` names the id), so
 * sending them again is safe; every other resource would get a second record. Those are looked up
 * by the key the mapping declares: the id, the mapping's `shopKey`, the resource's natural key from
 * the registry (`naturalKeys`: manufacturer name, category name under its parent…) or, without any,
 * the payload's own fields.
 */
import type { CompiledMapping } from '../../mapping/types.js';
import type { ShopClient } from '../../shop/client/types.js';
import type { NaturalKeyDef, ResourceDef } from '../../shop/registry/index.js';
import { readShopId, type ShopId, type StateStore } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';
import { payloadDiff } from '../diff.js';
import type { WorkItem } from './work.js';

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** The values of one natural key in a payload, or undefined when the payload does not name the record by it. */
function naturalKey(def: NaturalKeyDef, payload: Record<string, unknown>): Record<string, unknown> | undefined {
  const key: Record<string, unknown> = {};
  let byLanguage = false;
  let named = false;
  for (const field of def.fields) {
    const star = /^languages\.\*\.(.+)$/.exec(field);
    if (!star) {
      if (!present(payload[field])) return undefined;
      key[field] = payload[field];
      continue;
    }
    byLanguage = true;
    const languages = isRecord(payload.languages) ? payload.languages : {};
    for (const [lang, block] of Object.entries(languages)) {
      if (!isRecord(block) || !present(block[star[1]!])) continue;
      const out = (key.languages ??= {}) as Record<string, Record<string, unknown>>;
      (out[lang] ??= {})[star[1]!] = block[star[1]!];
      named = true;
    }
  }
  if (byLanguage && !named) return undefined;
  for (const field of def.scope ?? []) {
    if (present(payload[field])) key[field] = payload[field];
    else if (def.scopeDefaults?.[field] !== undefined) key[field] = def.scopeDefaults[field];
  }
  return key;
}

/** Whether the shop itself recognises a repeated create of this payload (a key it enforces answers `Already exists`). */
export function shopDeduplicates(resource: ResourceDef, payload: Record<string, unknown>): boolean {
  return (resource.naturalKeys ?? []).some((k) => k.enforced && naturalKey(k, payload) !== undefined);
}

/** Scalar and nested-object content of a payload (lists left out: the shop reshapes them). */
function contentKey(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(payload)) {
    if (Array.isArray(value) || value === undefined) continue;
    out[field] = isRecord(value) ? contentKey(value) : value;
  }
  return out;
}

/** The fields a record must have for this payload to be "the same record". */
export function lookupKey(resource: ResourceDef, mapping: Pick<CompiledMapping, 'shopKey'>, payload: Record<string, unknown>): Record<string, unknown> {
  if (present(payload[resource.key.id])) return { [resource.key.id]: payload[resource.key.id] };
  if (mapping.shopKey !== undefined && present(payload[mapping.shopKey])) return { [mapping.shopKey]: payload[mapping.shopKey] };
  // Keys the shop enforces first (they name one record for certain), then those it does not.
  const keys = [...(resource.naturalKeys ?? [])].sort((a, b) => Number(b.enforced) - Number(a.enforced));
  for (const def of keys) {
    const key = naturalKey(def, payload);
    if (key) return key;
  }
  return contentKey(payload);
}

/** An export filter that narrows the search to one key field's value, when the resource has one. */
function narrowingFilter(resource: ResourceDef, key: Record<string, unknown>): Record<string, string | number> | undefined {
  const filters = resource.ops.export?.filters ?? {};
  for (const [field, value] of Object.entries(key)) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const hit = Object.entries(filters).find(([name, f]) => (f.field ?? name) === field && (f.type === 'int' || f.type === 'string'));
    if (hit && (hit[1].type === 'string' || Number.isInteger(Number(value)))) return { [hit[0]]: value };
  }
  return undefined;
}

/** What a lookup needs. */
export interface LookupDeps {
  readonly shop: ShopClient;
  readonly state: StateStore;
  readonly resource: ResourceDef;
  readonly mapping: Pick<CompiledMapping, 'shopKey'>;
}

/**
 * Look each item's record up in the shop. A record already referenced by another ERP key is not
 * this one's, and no record is given to two items. Returns the ids found and the requests made.
 */
export async function findExisting(deps: LookupDeps, items: readonly WorkItem[]): Promise<{ found: Map<WorkItem, ShopId>; requests: number }> {
  const { shop, state, resource } = deps;
  const idField = resource.key.id;
  const found = new Map<WorkItem, ShopId>();
  const claimed = new Set<string>();
  let requests = 0;
  let everything: Record<string, unknown>[] | undefined;
  const read = async (filters?: Record<string, string | number>): Promise<Record<string, unknown>[]> => {
    const out: Record<string, unknown>[] = [];
    for await (const page of shop.exportPages(resource.name as never, filters ? { filters } : {})) {
      requests++;
      out.push(...page.records);
    }
    return out;
  };
  for (const item of items) {
    const key = lookupKey(resource, deps.mapping, item.payload);
    // A payload with nothing to compare would match any record: send it again instead.
    if (Object.keys(key).length === 0) continue;
    const filters = narrowingFilter(resource, key);
    // Without a narrowing filter the whole list is read once for every item of the group.
    const candidates = filters ? await read(filters) : (everything ??= await read());
    for (const record of candidates) {
      const raw = record[idField];
      if (typeof raw !== 'number' && typeof raw !== 'string') continue;
      const id = typeof raw === 'number' ? raw : readShopId(raw);
      if (claimed.has(String(id)) || Object.keys(payloadDiff(record, key)).length > 0) continue;
      if ((await state.refs.byShopId(resource.name, id)).some((r) => r.erpKey !== item.erpKey)) continue;
      claimed.add(String(id));
      found.set(item, id);
      break;
    }
  }
  return { found, requests };
}
