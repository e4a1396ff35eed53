/**
 * Reconcile and guarded fields (issue 46): a difference in an `owner: guard` field is judged by the
 * same rule as a push (./decide.ts) before it counts as drift. The shop's people changed it: a
 * conflict, recorded in the state like one a push finds, and never repaired. A person kept the
 * shop's value over this ERP value: no difference at all. The shop holds what was last sent and the
 * ERP moved on: drift, which a repair (a push, with the same guard) sends. An open conflict whose
 * field no longer differs ends `agreed`.
 */
import type { FieldChange } from '../pipeline/diff.js';
import type { ResourceDef } from '../shop/registry/index.js';
import type { FieldConflict, ShopId, StateStore } from '../state/index.js';
import { decide, fromStored, lastIn, sentPayloads, type LastSent } from './decide.js';
import { valueAtPath } from './paths.js';

/** A record's differences once guarded fields are judged. */
export interface SplitDrift {
  /** What a repair would send. */
  readonly drift: Record<string, FieldChange>;
  /** Guarded fields the shop's people changed. */
  readonly conflicts: readonly FieldConflict[];
}

/** What judging needs. */
export interface ReconcileGuardDeps {
  readonly pipeline: string;
  readonly resource: ResourceDef;
  /** The reconciliation's store (scoped to the pipeline's shop). */
  readonly state: StateStore;
  readonly fields: readonly string[];
}

/** One reconciliation's judge of guarded fields. */
export class ReconcileGuard {
  private readonly writes: FieldConflict[] = [];
  private open: Map<string, FieldConflict[]> | undefined;

  private constructor(private readonly deps: ReconcileGuardDeps) {}

  /** The judge of a pipeline whose mapping guards fields; undefined otherwise. */
  static open(deps: Omit<ReconcileGuardDeps, 'fields'> & { readonly fields: readonly string[] | undefined }): ReconcileGuard | undefined {
    return deps.fields && deps.fields.length > 0 ? new ReconcileGuard({ ...deps, fields: deps.fields }) : undefined;
  }

  /** Split one paired record's differences into drift and conflicts (recorded at the next `flush`). */
  async split(erpKey: string, shopId: ShopId, shopRecord: Readonly<Record<string, unknown>>, erpPayload: Readonly<Record<string, unknown>>, diff: Record<string, FieldChange>): Promise<SplitDrift> {
    const { pipeline, resource, state, fields } = this.deps;
    this.open ??= groupOpen(await state.conflicts.list({ pipeline, status: 'open', limit: 1_000_000 }));
    const open = this.open.get(erpKey) ?? [];
    const now = new Date().toISOString();
    const guarded = fields.filter((f) => Object.hasOwn(diff, f));
    // A field that no longer differs: its open conflict is over.
    for (const c of open) if (!guarded.includes(c.field) && valueAtPath(erpPayload, c.field) !== undefined) this.writes.push({ ...c, status: 'resolved', resolution: 'agreed', resolvedAt: now, lastSeenAt: now });
    if (guarded.length === 0) return { drift: diff, conflicts: [] };
    const stored = (await state.sentValues.get(pipeline, [erpKey])).get(erpKey);
    let events: Record<string, unknown>[] | undefined;
    const drift = { ...diff };
    const conflicts: FieldConflict[] = [];
    for (const field of guarded) {
      const erp = valueAtPath(erpPayload, field);
      const s = stored?.get(field);
      const last: LastSent = s ? fromStored(s) : lastIn((events ??= await sentPayloads(state, resource.name, pipeline, erpKey)), field);
      const decision = decide(resource, shopRecord, field, erp, last);
      if (decision === 'send' || decision === 'agreed') continue;
      delete drift[field];
      if (decision === 'kept') continue;
      const before = open.find((c) => c.field === field);
      const conflict: FieldConflict = {
        pipeline,
        shop: state.shop,
        resource: resource.name,
        erpKey,
        shopId,
        field,
        erpValue: erp,
        ...(last.known ? { sentValue: last.value } : {}),
        shopValue: valueAtPath(shopRecord, field) ?? null,
        status: 'open',
        ...(before?.resolution ? { resolution: before.resolution } : {}),
        firstSeenAt: before?.firstSeenAt ?? now,
        lastSeenAt: now,
        ...(before?.runId !== undefined ? { runId: before.runId } : {}),
      };
      conflicts.push(conflict);
      this.writes.push(conflict);
    }
    return { drift, conflicts };
  }

  /** Record the conflicts found (and those that ended) since the last flush. */
  async flush(): Promise<void> {
    const writes = this.writes.splice(0);
    if (writes.length > 0) await this.deps.state.write((tx) => writes.forEach((c) => tx.conflicts.put(c)));
  }
}

function groupOpen(conflicts: readonly FieldConflict[]): Map<string, FieldConflict[]> {
  const out = new Map<string, FieldConflict[]>();
  for (const c of conflicts) out.set(c.erpKey, [...(out.get(c.erpKey) ?? []), c]);
  return out;
}
