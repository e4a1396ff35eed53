/**
 * From source record to work item: map (rules, guard rails, strict validation), hash, resolve the
 * reference, skip unchanged records, choose create or update, prune append-only entries.
 */
import type { ErpRecord, CursorPosition } from '../../erp/types.js';
import type { CompiledMapping } from '../../mapping/types.js';
import { missingOnCreate, type ResourceDef } from '../../shop/registry/index.js';
import type { ShopClient } from '../../shop/client/types.js';
import { readShopId, type ShopId, type StateStore, type StoredIssue } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';
import { sha256, stableStringify } from '../hash.js';
import { withReferences, type BatchState, type ReferenceCache } from '../references.js';
import type { PipelineDefinition } from '../schema.js';
import { appendOnlyFields, collectHistory, pruneSentHistory } from './history.js';
import { issueOf } from './issues.js';
import type { Settlement, WorkItem } from './work.js';
import type { PushInput } from './keys.js';
import { uploadRecordFiles } from './media.js';
import { sourceHashOf } from './sourceHash.js';
import type { StockPush } from '../../reservations/push.js';
import { withoutPaths } from '../../conflicts/paths.js';
import { nowIso } from '../../util/time.js';
import type { RenameTracker } from '../../renames/tracker.js';

/** What preparing needs. */
export interface PrepareDeps {
  readonly def: PipelineDefinition;
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly runId: number;
  readonly dryRun: boolean;
  /** References known to the run. */
  readonly references: ReferenceCache;
  /** The state of the batch being prepared. */
  readonly batch: BatchState;
  /** Source hashes are taken under this (absent: every record is mapped; see sourceHash.ts). */
  readonly sourceFingerprint?: string;
  /** Stock pipelines: reservations subtracted before hashing, unchanged stock figures left out (src/reservations). */
  readonly stock?: StockPush;
  /** Mappings with a surrogate key: adoption of references kept by the number, and renames (src/renames). */
  readonly renames?: RenameTracker;
}

/** A reference the mapping asked for and the state did not know. */
export interface MissingReference {
  readonly resource: string;
  readonly erpKey: string;
}

/**
 * The record goes out (`send`), is settled without a request (`settled`), or its mapping failed
 * while a reference lookup missed (`waiting`: the referenced record may be created later in this
 * run; `settlement` is the dead letter it gets if it still misses at the end).
 */
export type Prepared =
  | { readonly kind: 'send'; readonly item: WorkItem; readonly requests: number }
  | { readonly kind: 'settled'; readonly settlement: Settlement; readonly requests: number }
  | { readonly kind: 'waiting'; readonly settlement: Settlement; readonly missing: readonly MissingReference[]; readonly requests: 0 };

function dead(seq: number | undefined, erpKey: string, record: ErpRecord, warnings: StoredIssue[], error: StoredIssue, extra: { payload?: unknown; hash?: string; shopId?: ShopId } = {}): Prepared & { kind: 'settled' } {
  return { kind: 'settled', settlement: { kind: 'dead', item: { seq, erpKey, record, warnings, ...extra }, error }, requests: 0 };
}

/** Where a payload's hash holds its reserved figures (never a shop field: it is not sent). */
const STOCK_HASH_FIELD = '\u0000stock';

/** Prepare one record. */
export async function prepare(deps: PrepareDeps, input: PushInput): Promise<Prepared> {
  const { def, resource, mapping, state } = deps;
  const { seq, erpKey, record } = input;
  if (input.refused) {
    const item = { seq, erpKey, record, warnings: [], ...(input.origin ? { origin: input.origin } : {}), ...(input.letterKey !== undefined ? { letterKey: input.letterKey } : {}) };
    return { kind: 'settled', settlement: { kind: 'dead', item, error: input.refused, unreadable: true }, requests: 0 };
  }
  const sourceHash = deps.sourceFingerprint !== undefined ? sourceHashOf(deps.sourceFingerprint, record) : undefined;
  const hashKey = mapping.recordKey?.(erpKey, record) ?? erpKey;
  const sent = deps.batch.sent(erpKey, hashKey);
  const stored = sourceHash !== undefined ? sent : undefined;
  if (input.remap !== true && stored?.source !== undefined && stored.source === sourceHash) {
    // Read again exactly as it was last accepted: unchanged, unless its reference or an open intent says otherwise.
    const ref = def.options.keyIsShopId ? readShopId(erpKey) : deps.batch.reference(erpKey);
    const known = ref instanceof Promise ? await ref : ref;
    const open = known !== undefined ? deps.batch.hasIntent(erpKey) : true;
    if (known !== undefined && !(open instanceof Promise ? await open : open)) {
      const item = newItem(input, {}, stored.hash, [], 'update', known, undefined, sourceHash, sent?.changedAt);
      return { kind: 'settled', settlement: { kind: 'done', item, outcome: 'unchanged', shopId: known, warnings: item.warnings, storeHash: false, stateHolds: !def.options.keyIsShopId }, requests: 0 };
    }
  }
  let mapped;
  try {
    // Answered synchronously when it can be (no promise per record): awaited only when it is one.
    const pending = withReferences(deps.references, (ctx) => (mapping.applySync ? mapping.applySync(record, ctx) : mapping.apply(record, ctx)));
    mapped = pending instanceof Promise ? await pending : pending;
  } catch (err) {
    return dead(seq, erpKey, record, [], issueOf(err));
  }
  const { result, missing, lookups } = mapped;
  const warnings: StoredIssue[] = result.warnings.map((w) => ({ code: w.code, message: w.message, ...(w.field !== undefined ? { field: w.field } : {}) }));
  if (!result.ok) {
    const first = issueOf(result.errors[0]);
    const message = result.errors.map((e) => e.message).join('; ');
    const refused = dead(seq, erpKey, record, warnings, { ...first, message, details: { ...first.details, errors: result.errors.map((e) => e.toJSON()) } });
    // A lookup missed: the referenced record (a parent category…) may be created later in this run.
    if (missing.length > 0) return { kind: 'waiting', settlement: refused.settlement, missing, requests: 0 };
    return refused;
  }
  // Unbooked shop orders come off the ERP's stock before hashing: a new order changes what goes out.
  const stocked = deps.stock?.apply(result.payload, record);
  const payload = stocked?.payload ?? result.payload;
  if (stocked) for (const w of [...stocked.warnings, ...stocked.extra]) warnings.push({ code: w.code, message: w.message, ...('field' in w ? { field: w.field } : {}) });
  // Create-only fields never travel in an update, so they take no part in change detection either.
  // With units reserved, the figure sent is not all the shop's figure depends on: the ERP's figure
  // and the units behind it are hashed too, so 7 − 3 after 4 − 0 (both 4) is a change (the shop
  // booked those 3 since). Without reservations the payload alone, as before.
  const reserved = stocked?.figures.filter((f) => f.reserved > 0) ?? [];
  // Fields the shop owns travel on create only too: an ERP change of one alone is no reason to update.
  const hashed = withoutPaths(withoutCreateOnly(payload, mapping.createOnly), mapping.owners?.shop);
  const hashedValue = reserved.length > 0 ? { ...hashed, [STOCK_HASH_FIELD]: reserved.map((f) => [f.field, f.erp, f.reserved]) } : hashed;
  // The hashed text is the payload's JSON when nothing was left out of it: the event stores it instead of writing the payload again.
  const hashedText = stableStringify(hashedValue);
  const hash = sha256(hashedText);
  // Kept only where the payload follows from the record alone: no reference or file looked up, no warning to show again.
  const pureSource = lookups === 0 && warnings.length === 0 && !(result.files && result.files.length > 0) ? sourceHash : undefined;
  const reference = def.options.keyIsShopId ? readShopId(erpKey) : deps.batch.reference(erpKey);
  let shopId: ShopId | undefined = reference instanceof Promise ? await reference : reference;
  const referenceStored = !def.options.keyIsShopId && shopId !== undefined;
  // A mapping that just gained its surrogate key finds the record's reference under its number, the key it had before.
  const adopted = shopId === undefined && deps.renames ? await deps.renames.adopt(erpKey, record, payload, hash) : undefined;
  if (adopted) shopId = adopted.shopId;
  let requests = adopted?.requests ?? 0;
  // A mapping that addresses records by the shop's own id field (order status back-sync: orders_id) knows the shop id.
  const byId = mapping.shopKey !== undefined && mapping.shopKey === resource.key.id ? payload[mapping.shopKey] : undefined;
  if (shopId === undefined && (typeof byId === 'number' || (typeof byId === 'string' && byId !== ''))) shopId = readShopId(String(byId));
  const last = shopId !== undefined && input.resend !== true ? deps.batch.hash(erpKey, hashKey) : undefined;
  if (shopId !== undefined && input.resend !== true && ((last instanceof Promise ? await last : last) ?? adopted?.hash) === hash) {
    const item = newItem(input, payload, hash, warnings, 'update', shopId, undefined, pureSource, sent?.changedAt);
    item.adoptedFrom = adopted?.from;
    const open = referenceStored ? deps.batch.hasIntent(erpKey) : true;
    const stateHolds = referenceStored && !(open instanceof Promise ? await open : open);
    // The first re-read after an upgrade (or of a record mapped before with a lookup) records the source hash for the next.
    const storeHash = pureSource !== undefined && stored?.source !== pureSource;
    return { kind: 'settled', settlement: { kind: 'done', item, outcome: 'unchanged', shopId, warnings, storeHash, stateHolds }, requests };
  }
  if (shopId !== undefined && mapping.operation === 'create') {
    // A create-only mapping (orders from the ERP) never rewrites a record the shop already has.
    const item = newItem(input, payload, hash, warnings, 'update', shopId, undefined, pureSource, sent?.changedAt);
    item.adoptedFrom = adopted?.from;
    return { kind: 'settled', settlement: { kind: 'done', item, outcome: 'unchanged', shopId, warnings, storeHash: true }, requests };
  }
  let op: 'create' | 'update';
  if (shopId !== undefined) op = 'update';
  else if (mapping.operation === 'update') {
    if (mapping.shopKey === undefined || payload[mapping.shopKey] === undefined) {
      return dead(seq, erpKey, record, warnings, { code: 'REFERENCE_MISSING', message: `no shop record is known for ERP key ${erpKey} and the mapping only updates; push the record first or give the mapping a shopKey` }, { payload, hash });
    }
    op = 'update';
  } else op = 'create';
  const unmet = op === 'create' ? missingOnCreate(resource, payload, mapping.allow) : [];
  if (unmet.length > 0) {
    // The mapping guards refuse these already for create-only mappings; this is the last line before a create leaves.
    const rule = unmet[0];
    const value = payload[rule.field];
    const got = value === undefined || value === null || value === '' || rule.inSomeEntry !== undefined ? 'none' : JSON.stringify(value);
    const fix = rule.allowedBy ? '' : '; map it in the mapping file';
    const field = rule.inSomeEntry !== undefined ? `${rule.field}.<language>.${rule.inSomeEntry}` : rule.field;
    return { ...dead(seq, erpKey, record, warnings, { code: rule.guard, message: `${resource.name} are never created without \`${field}\`${rule.positive ? ' above 0' : ''} (got ${got}): ${rule.why}${fix}` }, { payload, hash }), requests };
  }
  const item = newItem(input, payload, hash, warnings, op, shopId, mapping.createOnly, pureSource, sent?.changedAt, mapping.owners?.shop);
  item.adoptedFrom = adopted?.from;
  if (hashedValue === payload) {
    item.payloadText = hashedText;
    item.textOf = payload;
  }
  if (deps.renames && !deps.dryRun) {
    // A new number under the same surrogate renames the shop record: read it first (its number and SEO paths), refuse a number another record holds.
    const planned = await deps.renames.plan(item);
    requests += planned.requests;
    if (planned.refused) return { ...dead(seq, erpKey, record, warnings, planned.refused, { payload, hash, ...(shopId !== undefined ? { shopId } : {}) }), requests };
  }
  if (stocked && deps.stock) {
    // Stock travels on its own: a figure equal to the last one sent stays out, so an unrelated change cannot undo a booking.
    if (op === 'update' && input.resend !== true) {
      const diffed = await deps.stock.diff(hashKey, stocked, payload);
      item.payload = diffed.payload;
      item.stockSent = diffed.remember;
      item.stockSentBefore = diffed.sentBefore;
    } else {
      item.stockSent = stockRows(stocked, def.name, hashKey);
      item.stockSentBefore = item.stockSent.length > 0 && (await deps.stock.lastSent(hashKey)).length > 0;
    }
  }
  if (!deps.dryRun) {
    // Settling deletes the record's intent only when there is one: a delete per record of rows that are not there cost as much as the rows that are.
    const open = deps.batch.hasIntent(erpKey);
    item.intent = open instanceof Promise ? await open : open;
    // An intent left by an earlier run: that create may have landed before the process died.
    if (op === 'create' && item.intent) item.verify = true;
  }
  const fields = appendOnlyFields(resource, mapping);
  if (op === 'update' && shopId !== undefined) {
    if (fields.length > 0) requests += await pruneSentHistory(item, shopId, fields, { state, shop: deps.shop, resource, runId: deps.runId, dryRun: deps.dryRun });
  } else item.history = collectHistory(payload, fields);
  if (result.files && !deps.dryRun && def.options.mediaUpload === 'assumed-media-endpoint') {
    // Before the record: a gallery must never name a picture the shop does not have yet.
    try {
      requests += await uploadRecordFiles(deps.shop, resource, payload, result.files);
    } catch (err) {
      return { ...dead(seq, erpKey, record, warnings, issueOf(err), { payload, hash, ...(shopId !== undefined ? { shopId } : {}) }), requests };
    }
  }
  return { kind: 'send', item, requests };
}

function newItem(
  input: { seq?: number; erpKey: string; record: ErpRecord; position?: CursorPosition },
  payload: Record<string, unknown>,
  hash: string,
  warnings: StoredIssue[],
  op: 'create' | 'update',
  shopId: ShopId | undefined,
  createOnly?: readonly string[],
  sourceHash?: string,
  deliveredChange?: number,
  shopOwned?: readonly string[],
): WorkItem {
  // One literal of fixed shape, absent values as undefined: conditional spreads here cost about 100 µs a record (V8 builds such objects property by property in its slow path).
  return {
    seq: input.seq,
    erpKey: input.erpKey,
    record: input.record,
    position: input.position,
    payload,
    hash,
    sourceHash,
    deliveredChange,
    createOnly: createOnly !== undefined && createOnly.length > 0 ? createOnly : undefined,
    warnings,
    op,
    shopId,
    attempts: 0,
    triedCreate: false,
    foundExisting: false,
    history: [],
    splitDepth: 0,
    reconcile: false,
    createMayHaveLanded: false,
    verify: false,
    intent: undefined,
    stockSent: undefined,
    stockSentBefore: false,
    shopOwned: shopOwned !== undefined && shopOwned.length > 0 ? shopOwned : undefined,
    held: undefined,
    hashStays: false,
    closing: undefined,
    rename: undefined,
    adoptedFrom: undefined,
    payloadText: undefined,
    textOf: undefined,
  };
}

/** Every stock figure of a create, as it goes out. */
function stockRows(stocked: { readonly figures: readonly { field: string; erp: number; reserved: number; sent: number }[] }, pipeline: string, recordKey: string) {
  const at = nowIso();
  return stocked.figures.map((f) => ({ pipeline, recordKey, field: f.field, erp: String(f.erp), reserved: String(f.reserved), sent: String(f.sent), at }));
}

/** A payload without the mapping's create-only fields (what an update sends). */
export function withoutCreateOnly(payload: Record<string, unknown>, createOnly: readonly string[] | undefined): Record<string, unknown> {
  if (createOnly === undefined || !createOnly.some((f) => f in payload)) return payload;
  return Object.fromEntries(Object.entries(payload).filter(([field]) => !createOnly.includes(field)));
}

/** The payload for the item's operation: an update drops create-only fields, the fields the shop owns and the guarded fields held back. */
export function sentPayload(item: Pick<WorkItem, 'op' | 'payload' | 'createOnly'> & Partial<Pick<WorkItem, 'shopOwned' | 'held'>>): Record<string, unknown> {
  if (item.op !== 'update') return item.payload;
  return withoutPaths(withoutPaths(withoutCreateOnly(item.payload, item.createOnly), item.shopOwned), item.held);
}

/** The payload as sent: an update carries the shop id under the resource's key field. */
export function wirePayload(resource: ResourceDef, item: WorkItem): Record<string, unknown> {
  const payload = sentPayload(item);
  return item.op === 'update' && item.shopId !== undefined ? { ...payload, [resource.key.id]: item.shopId } : payload;
}
