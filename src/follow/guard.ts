/**
 * The way back (issue 44): an ERP → shop push of a followed resource's status (order-status) reads
 * the shop's current status of the orders a batch is about to change, and per order:
 *
 * - the shop holds it in a cancelled status and the ERP sends another: not sent, dead letter
 *   ORDER_CANCELLED_IN_SHOP. A cancelled order released its stock and maybe its payment; setting it
 *   to "shipped" because the ERP decided so before it knew would ship goods nobody pays for.
 * - the shop's status differs from what the ERP was last told (the followed row's status, any
 *   pipeline of the shop) and from what the ERP sends: the ERP decided without the shop's change.
 *   Not sent, dead letter ORDER_STATUS_CONFLICT with the three values (unless `conflicts: erp-wins`).
 * - otherwise the record goes out unchanged.
 *
 * Rule: the shop's cancellation is final; otherwise the ERP wins only over what it has seen. Last
 * writer wins is wrong here: whichever side writes second silently erases the other's decision.
 * A status the shop holds because this push set it (its newest status log entry is one shopsync
 * sent) counts as seen by the ERP. docs/pipelines-and-state.md "Back-sync".
 */
import { SyncError } from '../errors.js';
import type { Logger } from '../log.js';
import type { CompiledMapping } from '../mapping/types.js';
import type { FollowDef, ResourceDef } from '../shop/registry/index.js';
import type { ShopClient } from '../shop/client/types.js';
import type { RunCounts, ShopId, StateStore, StoredIssue } from '../state/index.js';
import { appendOnlyFields, entryIdentity } from '../pipeline/push/history.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { Settlement, WorkItem } from '../pipeline/push/work.js';
import { issueOf } from '../pipeline/push/issues.js';
import { isRecord } from '../util/guards.js';
import { shopStatusWarning, writesStatus, type ShopStatusConfig } from './shopStatus.js';

/** The shop cancelled the order; the ERP's status would re-open it. */
export class OrderCancelledInShopError extends SyncError {
  constructor(order: string, shopNow: number, erpSends: number) {
    super(
      'ORDER_CANCELLED_IN_SHOP',
      `order ${order} is cancelled in the shop (status ${shopNow}); the ERP sends status ${erpSends}, which would re-open it: not sent. Cancel the order in the ERP too (its next status row is checked again), or re-open the order in the shop first and then \`shopsync dlq retry\` this letter (it reads the shop again)`,
      { details: { order, shopNow, erpSends } },
    );
  }
}

/** The shop and the ERP both changed the order's status since the ERP last heard of it. */
export class OrderStatusConflictError extends SyncError {
  constructor(order: string, erpWasTold: number, shopNow: number, erpSends: number) {
    super(
      'ORDER_STATUS_CONFLICT',
      `order ${order}: the ERP was told status ${erpWasTold}, the shop now has ${shopNow}, the ERP sends ${erpSends} (decided without the shop's change): not sent. Decide in the ERP (its next status row is checked again), or set the status in the shop, then \`shopsync dlq retry\` or drop this letter; \`shopStatus: { conflicts: erp-wins }\` sends the ERP's status instead`,
      { details: { order, erpWasTold, shopNow, erpSends } },
    );
  }
}

/** What the guard needs of the push. */
export interface StatusGuardDeps {
  readonly def: Pick<PipelineDefinition, 'name' | 'direction' | 'shop' | 'resource'> & { readonly shopStatus?: ShopStatusConfig | undefined };
  readonly resource: ResourceDef;
  readonly mapping: CompiledMapping;
  /** The push's store (scoped to its shop). */
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly logger: Logger;
  /** The run's counts: every read of the shop is a request. */
  readonly counts: Pick<RunCounts, 'requests'>;
}

/** What screening a batch decided. */
export interface Screened {
  readonly pass: WorkItem[];
  readonly refused: Settlement[];
}

/** A record's newest events looked at for the last status this pipeline delivered (other pipelines' events come between). */
const EVENTS_LOOKED_AT = 20;

/** Shop records read at once (the client's queue still keeps to the shop's rate). */
const READ_CONCURRENCY = 8;

/** One push run's status guard. */
export class StatusGuard {
  /** Items already screened (a batch split or retried is not read again). */
  private readonly screened = new WeakSet<WorkItem>();
  private readonly cancelled: ReadonlySet<number>;
  private readonly history: { readonly field: string; readonly identity: readonly string[] } | undefined;

  private constructor(
    private readonly deps: StatusGuardDeps,
    private readonly follow: FollowDef,
  ) {
    this.cancelled = new Set(deps.def.shopStatus?.cancelled ?? []);
    this.history = appendOnlyFields(deps.resource, deps.mapping).find((f) => f.field === follow.history.list);
  }

  /** The guard of a push whose mapping writes a followed resource's status; undefined for any other push. Logs SHOP_STATUS_GUARD_MISSING once. */
  static open(deps: StatusGuardDeps): StatusGuard | undefined {
    const follow = deps.resource.follow;
    if (deps.def.direction !== 'push' || !follow || !writesStatus(deps.mapping, follow)) return undefined;
    const warning = shopStatusWarning(deps.def, deps.mapping);
    if (warning) deps.logger.warn({ code: warning.code }, warning.message);
    return new StatusGuard(deps, follow);
  }

  /** The status a payload sets: its status field, else the last new entry of the status log. */
  statusOf(payload: Readonly<Record<string, unknown>>): number | undefined {
    const direct = asStatus(payload[this.follow.status]);
    if (direct !== undefined) return direct;
    const list = payload[this.follow.history.list];
    if (!Array.isArray(list) || list.length === 0) return undefined;
    const last: unknown = list[list.length - 1];
    return last && typeof last === 'object' ? asStatus((last as Record<string, unknown>)[this.follow.history.status]) : undefined;
  }

  /** Read the shop's records of the updates that set a status and refuse those the rule forbids; the rest goes on. */
  async screen(items: readonly WorkItem[]): Promise<Screened> {
    const setting = items.filter((item) => !this.screened.has(item) && item.op === 'update' && item.shopId !== undefined && this.statusOf(item.payload) !== undefined);
    if (setting.length === 0) return { pass: [...items], refused: [] };
    const rows = await this.deps.state.followed.ofShop(this.deps.state.shop, setting.map((item) => String(item.shopId)));
    // Without cancelled statuses only an order the ERP was told of can be refused: the others cost no read.
    const asked = this.cancelled.size > 0 ? setting : setting.filter((item) => rows.get(String(item.shopId))?.status !== undefined);
    const records = asked.length > 0 ? await this.read(asked.map((item) => item.shopId!)) : new Map<string, Record<string, unknown>>();
    // Only once read: a batch queued again after a failed read is screened again, never sent blind.
    for (const item of setting) this.screened.add(item);
    const refused = new Map<WorkItem, Settlement>();
    for (const item of asked) {
      const current = records.get(String(item.shopId));
      // Not in the shop: the update goes out as before and the shop's answer (not found) decides.
      if (!current) continue;
      const error = await this.judge(item, current, rows.get(String(item.shopId))?.status);
      if (error) refused.set(item, { kind: 'dead', item, error });
    }
    if (refused.size > 0) this.deps.logger.info({ refused: refused.size, codes: [...new Set([...refused.values()].map((s) => (s.kind === 'dead' ? s.error.code : '')))] }, 'order statuses not sent: the shop cancelled or changed them (dead letters say how to resolve)');
    return { pass: items.filter((item) => !refused.has(item)), refused: [...refused.values()] };
  }

  /** The refusal of one order, or undefined to send it. */
  private async judge(item: WorkItem, current: Readonly<Record<string, unknown>>, told: number | undefined): Promise<StoredIssue | undefined> {
    const erp = this.statusOf(item.payload)!;
    const shopNow = asStatus(current[this.follow.status]);
    if (shopNow === undefined || shopNow === erp) return undefined;
    const order = String(item.shopId);
    if (this.cancelled.has(shopNow)) return issueOf(new OrderCancelledInShopError(order, shopNow, erp));
    if (told === undefined || told === shopNow || (await this.setByUs(item.shopId!, current, shopNow))) return undefined;
    const conflict = issueOf(new OrderStatusConflictError(order, told, shopNow, erp));
    if (this.deps.def.shopStatus?.conflicts !== 'erp-wins') return conflict;
    // Sent as configured, but never silently: the record's event carries the overruled change.
    item.warnings.push({ code: 'ORDER_STATUS_CONFLICT_ERP_WINS', message: `the shop's status ${shopNow} (the ERP was told ${told}) is overwritten with the ERP's ${erp} (shopStatus.conflicts: erp-wins)`, details: conflict.details });
    return undefined;
  }

  /**
   * Whether the shop's current status came from this push, so the ERP has seen it: the shop's
   * newest status log entry is one shopsync sent (entry bookkeeping), or the last payload this
   * pipeline delivered to the order set this status (its stored event: mappings without entries).
   */
  private async setByUs(shopId: ShopId, current: Readonly<Record<string, unknown>>, shopNow: number): Promise<boolean> {
    const list = current[this.follow.history.list];
    const newest: unknown = Array.isArray(list) && list.length > 0 ? list[list.length - 1] : undefined;
    if (this.history && newest && typeof newest === 'object' && asStatus((newest as Record<string, unknown>)[this.follow.history.status]) === shopNow) {
      const identity = entryIdentity(newest as Record<string, unknown>, this.history.identity);
      if ((await this.deps.state.history.getMany(this.deps.resource.name, shopId, [identity])).has(identity)) return true;
    }
    const events = await this.deps.state.events.history(this.deps.resource.name, { shopId }, EVENTS_LOOKED_AT);
    const last = events.find((e) => e.pipeline === this.deps.def.name && e.shop === this.deps.state.shop && (e.outcome === 'updated' || e.outcome === 'created') && isRecord(e.payload) && this.statusOf(e.payload) !== undefined);
    return last !== undefined && this.statusOf(last.payload as Record<string, unknown>) === shopNow;
  }

  /** The shop's records of these ids, one export by the registry's id filter each (the spec shows no list of ids). */
  private async read(ids: readonly ShopId[]): Promise<Map<string, Record<string, unknown>>> {
    const records = new Map<string, Record<string, unknown>>();
    const queue = [...new Set(ids.map(String))];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        this.deps.counts.requests++;
        for await (const page of this.deps.shop.exportPages(this.deps.resource.name as never, { filters: { [this.follow.byId]: id }, pageSize: 1 })) {
          const found = page.records.find((r) => String(r[this.deps.resource.key.id]) === id);
          if (found) records.set(id, found);
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, queue.length) }, worker));
    return records;
  }
}

function asStatus(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}
