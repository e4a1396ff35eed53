/**
 * The guard of `owner: guard` fields (issue 46): before an update batch leaves, the shop's current
 * records are read (./read.ts) and each guarded field the batch sends is judged by its three values,
 * the ERP's, the one shopsync last sent (state `sent_values`, else the newest stored event of the
 * pipeline that sent it) and the shop's:
 *
 * - the shop holds the ERP's value, or still the one last sent: the field goes out (an open conflict
 *   of it ends `agreed`), unless a person kept the shop's value over this very ERP value ("keep
 *   shop"): then it stays out, unreported, until one side changes it (./decide.ts);
 * - the shop holds something else: its people changed it. The field is left out of the update (the
 *   rest of the record goes out), and a conflict with the three values is recorded and counted;
 * - a person chose "take ERP" for the conflict: the ERP's value goes out once and the conflict ends;
 * - the shop's record could not be read: a failure worth retrying (a 5xx) holds the whole record
 *   back, to be sent again like any transient failure; otherwise (a refusal, no shop id known, no
 *   route to read one record) the field is held, the record's event says why, and its hash is not
 *   stored, so the next push that reads the record compares again.
 *
 * Last writer wins is what the default `owner: erp` does; this is the rule for fields a content
 * team edits in the shop (docs/mappings.md "Who owns a field").
 */
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import { issueOf } from '../pipeline/push/issues.js';
import { sentPayload } from '../pipeline/push/prepare.js';
import type { Settlement, WorkItem } from '../pipeline/push/work.js';
import type { ShopClient } from '../shop/client/types.js';
import type { ResourceDef } from '../shop/registry/index.js';
import type { FieldConflict, RunCounts, SentValue, StateStore, StoredIssue } from '../state/index.js';
import { FieldConflictError, GuardUnreadError } from './errors.js';
import { decide, fromStored, lastIn, sentPayloads, type LastSent } from './decide.js';
import { hasPath, valueAtPath } from './paths.js';
import { readCurrent, type CurrentRecords } from './read.js';

/** What the guard needs of the push. */
export interface FieldGuardDeps {
  readonly pipeline: string;
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  /** The push's store (scoped to its shop). */
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly logger: Logger;
  readonly counts: RunCounts;
  readonly runId: number;
  /** A dry run shows what would be held and records no conflict. */
  readonly dryRun?: boolean;
}

/** What screening a batch decided: the items to send, those left with nothing to send, and those to send later. */
export interface FieldScreen {
  readonly pass: WorkItem[];
  readonly settled: Settlement[];
  /** The shop's read of these failed in a way worth retrying (a 5xx, a timeout): queued again, never sent blind. */
  readonly retry: WorkItem[];
  /** Why `retry` is not empty. */
  readonly retryError?: StoredIssue;
}

/** One push run's guard of its mapping's `owner: guard` fields. */
export class FieldGuard {
  /** Items already screened (a batch split or sent again is not read again). */
  private readonly screened = new WeakSet<WorkItem>();

  private constructor(
    private readonly deps: FieldGuardDeps,
    readonly fields: readonly string[],
  ) {}

  /** The guard of a push whose mapping guards fields; undefined otherwise (nothing is read). */
  static open(deps: FieldGuardDeps): FieldGuard | undefined {
    const fields = deps.mapping.owners?.guard ?? [];
    return fields.length > 0 ? new FieldGuard(deps, fields) : undefined;
  }

  /** Screen an update batch: read the shop's records once, hold the fields the shop changed, record the conflicts. */
  async screen(items: readonly WorkItem[]): Promise<FieldScreen> {
    const asked = items.filter((item) => !this.screened.has(item) && item.op === 'update' && this.fields.some((f) => hasPath(item.payload, f)));
    if (asked.length === 0) return { pass: [...items], settled: [], retry: [] };
    const { state, pipeline, resource } = this.deps;
    const keys = asked.map((item) => item.erpKey);
    const [sent, open] = await Promise.all([state.sentValues.get(pipeline, keys), state.conflicts.ofRecords(pipeline, keys)]);
    const ids = asked.flatMap((item) => (item.shopId !== undefined ? [item.shopId] : []));
    const current: CurrentRecords = ids.length > 0 ? await readCurrent(this.deps.shop, resource, ids) : { records: new Map(), failed: new Map(), requests: 0 };
    this.deps.counts.requests += current.requests;
    // A read worth retrying holds the whole record back (not screened, so it is read again when it comes back).
    const retry = asked.filter((item) => item.shopId !== undefined && current.failed.get(String(item.shopId))?.retryable === true);
    const first = retry[0] ? current.failed.get(String(retry[0].shopId)) : undefined;
    const now = new Date().toISOString();
    const writes: FieldConflict[] = [];
    const settled: Settlement[] = [];
    let held = 0;
    for (const item of asked) {
      if (retry.includes(item)) continue;
      this.screened.add(item);
      const judged = await this.judge(item, current, sent.get(item.erpKey), open.get(item.erpKey) ?? [], now);
      writes.push(...judged.writes);
      if (judged.conflicts.length > 0) {
        item.held = [...(item.held ?? []), ...judged.conflicts];
        held += judged.conflicts.length;
      }
      // Decided before ("keep shop") and unchanged on both sides since: left out, nothing to report.
      if (judged.kept.length > 0) item.held = [...(item.held ?? []), ...judged.kept];
      if (judged.unread.length > 0) {
        item.held = [...(item.held ?? []), ...judged.unread];
        // The ERP's value is not delivered: without the hash the next run sends the record again and compares once more.
        item.hashStays = true;
        held += judged.unread.length;
        item.warnings.push(issueOf(new GuardUnreadError(item.erpKey, judged.unread, judged.unreadWhy ?? 'unknown')));
      }
      if (judged.taken.length > 0) item.closing = [...(item.closing ?? []), ...judged.taken];
      if (item.held !== undefined && !this.leftToSend(item)) settled.push({ kind: 'done', item, outcome: 'unchanged', ...(item.shopId !== undefined ? { shopId: item.shopId } : {}), warnings: item.warnings, storeHash: !item.hashStays });
    }
    if (writes.length > 0 && this.deps.dryRun !== true) await state.write((tx) => writes.forEach((c) => tx.conflicts.put(c)));
    if (held > 0) {
      this.deps.counts.conflicts = (this.deps.counts.conflicts ?? 0) + held;
      const records = asked.filter((i) => i.held !== undefined).length;
      if (this.deps.dryRun === true) this.deps.logger.info({ held, records }, 'guarded fields the shop changed (or that could not be read) would be left as the shop has them');
      else this.deps.logger.info({ held, records }, 'guarded fields the shop changed (or that could not be read) were left as the shop has them; see `shopsync conflicts list`');
    }
    const done = new Set<unknown>([...settled.map((s) => s.item), ...retry]);
    return { pass: items.filter((item) => !done.has(item)), settled, retry, ...(first ? { retryError: { code: 'GUARD_READ_FAILED', message: `the shop's current record could not be read to compare guarded fields: ${first.reason}` } } : {}) };
  }

  /** The decisions for one record's guarded fields. */
  private async judge(item: WorkItem, current: CurrentRecords, sent: ReadonlyMap<string, SentValue> | undefined, open: readonly FieldConflict[], now: string) {
    const { pipeline, resource, state, runId } = this.deps;
    const out = { conflicts: [] as string[], kept: [] as string[], unread: [] as string[], unreadWhy: undefined as string | undefined, taken: [] as FieldConflict[], writes: [] as FieldConflict[] };
    const id = item.shopId === undefined ? undefined : String(item.shopId);
    const record = id === undefined ? undefined : current.records.get(id);
    let events: Promise<Record<string, unknown>[]> | undefined;
    for (const field of this.fields) {
      const erp = valueAtPath(item.payload, field);
      if (erp === undefined) continue;
      const conflict = open.find((c) => c.field === field);
      if (conflict?.resolution === 'erp') {
        // "Take ERP": sent once, whatever the shop holds; the conflict ends when the shop accepts it.
        out.taken.push({ ...conflict, erpValue: erp, status: 'resolved', resolvedAt: now, lastSeenAt: now, runId });
        continue;
      }
      if (!record) {
        out.unread.push(field);
        out.unreadWhy ??= id === undefined ? 'shopsync knows no shop id of the record (it is updated by its shop key)' : (current.failed.get(id)?.reason ?? `the shop's export did not return ${resource.name} ${id}`);
        continue;
      }
      const shopNow = valueAtPath(record, field);
      const stored = sent?.get(field);
      const last: LastSent = stored ? fromStored(stored) : lastIn(await (events ??= sentPayloads(state, resource.name, pipeline, item.erpKey)), field);
      const decision = decide(resource, record, field, erp, last);
      if (decision === 'kept') {
        out.kept.push(field);
        continue;
      }
      if (decision === 'agreed' || decision === 'send') {
        // The shop holds the ERP's value, or went back to the one last sent: whatever the conflict was, it is over.
        if (conflict) out.writes.push({ ...conflict, erpValue: erp, shopValue: shopNow ?? null, status: 'resolved', resolution: 'agreed', resolvedAt: now, lastSeenAt: now, runId });
        continue;
      }
      out.conflicts.push(field);
      const row: FieldConflict = {
        pipeline,
        shop: state.shop,
        resource: resource.name,
        erpKey: item.erpKey,
        ...(item.shopId !== undefined ? { shopId: item.shopId } : {}),
        field,
        erpValue: erp,
        ...(last.known ? { sentValue: last.value } : {}),
        shopValue: shopNow ?? null,
        status: 'open',
        firstSeenAt: conflict?.firstSeenAt ?? now,
        lastSeenAt: now,
        runId,
      };
      out.writes.push(row);
      item.warnings.push(issueOf(new FieldConflictError(row, item.shopId)));
    }
    return out;
  }

  /** Whether an update of the item still writes anything once its held fields are left out. */
  private leftToSend(item: WorkItem): boolean {
    const keyFields = new Set([this.deps.resource.key.id, ...(this.deps.mapping.shopKey !== undefined ? [this.deps.mapping.shopKey] : [])]);
    return Object.keys(sentPayload(item)).some((k) => !keyFields.has(k));
  }
}
