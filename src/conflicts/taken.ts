/**
 * "Take ERP" delivered (issue 46): a conflict a person resolved for the ERP holds the ERP's value;
 * the next sync of its pipeline sends that value once, alone (an update of the record's id and the
 * field, nothing else), before it reads the source. An incremental read would not read the record
 * again, since the ERP did not change it, so the value is sent from the conflict itself. Accepted,
 * the value becomes the field's last sent and the conflict ends; a shop that does not take it leaves
 * the conflict open and taken, for the next sync, with a warning in the run's log.
 */
import type { Logger } from '../log.js';
import { verdictOf } from '../pipeline/push/outcomes.js';
import type { ShopClient } from '../shop/client/types.js';
import type { ResourceDef, ResourceName } from '../shop/registry/index.js';
import type { FieldConflict, RunCounts, StateStore, StoredIssue } from '../state/index.js';
import { shown } from './errors.js';
import { setPath } from './paths.js';

/** What sending the taken values needs. */
export interface TakenDeps {
  readonly pipeline: string;
  readonly resource: ResourceDef;
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly runId: number;
  readonly counts: RunCounts;
  readonly logger: Logger;
  readonly batchSize: number;
  readonly storePayloads: boolean;
  /** Rejects once the run no longer holds its lane (asked before the request leaves). */
  readonly fence?: () => Promise<void>;
  readonly signal?: AbortSignal;
}

/** Send the ERP's values of the pipeline's conflicts resolved "take ERP"; returns how many records the shop took. */
export async function sendTaken(deps: TakenDeps): Promise<number> {
  const { state, pipeline, resource } = deps;
  const taken = (await state.conflicts.list({ pipeline, status: 'open', limit: 100_000 })).filter((c) => c.resolution === 'erp' && c.shopId !== undefined);
  if (taken.length === 0) return 0;
  const byRecord = new Map<string, FieldConflict[]>();
  for (const c of taken) byRecord.set(c.erpKey, [...(byRecord.get(c.erpKey) ?? []), c]);
  const records = [...byRecord.values()];
  let accepted = 0;
  for (let i = 0; i < records.length && deps.signal?.aborted !== true; i += deps.batchSize) {
    const group = records.slice(i, i + deps.batchSize);
    const payloads = group.map((fields) => {
      const payload: Record<string, unknown> = { [resource.key.id]: fields[0]!.shopId };
      for (const c of fields) setPath(payload, c.field, c.erpValue);
      return payload;
    });
    await deps.fence?.();
    const result = await deps.shop.update(resource.name as ResourceName, payloads, { batchSize: group.length, ...(deps.signal ? { signal: deps.signal } : {}) });
    deps.counts.requests += result.requests;
    const now = new Date().toISOString();
    const failed: { erpKey: string; error: StoredIssue }[] = [];
    const gone: string[] = [];
    await state.write((tx) => {
      result.outcomes.forEach((outcome, j) => {
        const fields = group[j]!;
        const v = verdictOf(resource, 'update', outcome);
        if (v.kind === 'gone') {
          // The shop no longer has the record: nothing is left to overwrite, and the next push of it creates it whole.
          for (const c of fields) tx.conflicts.put({ ...c, status: 'resolved', resolvedAt: now, lastSeenAt: now, runId: deps.runId });
          gone.push(fields[0]!.erpKey);
          return;
        }
        if (v.kind !== 'ok') {
          if ('error' in v) failed.push({ erpKey: fields[0]!.erpKey, error: v.error });
          return;
        }
        accepted++;
        for (const c of fields) {
          tx.sentValues.put(pipeline, c.erpKey, c.field, c.erpValue);
          tx.conflicts.put({ ...c, status: 'resolved', resolvedAt: now, lastSeenAt: now, runId: deps.runId });
        }
        const warnings: StoredIssue[] = [{ code: 'CONFLICT_TAKEN_ERP', message: `the ERP's value of ${fields.map((c) => `\`${c.field}\` (${shown(c.erpValue)})`).join(', ')} replaced the shop's, as resolved ("take ERP")` }, ...v.warnings];
        tx.events.add({ runId: deps.runId, pipeline, resource: resource.name, erpKey: fields[0]!.erpKey, shopId: fields[0]!.shopId, outcome: 'updated', warnings, payload: deps.storePayloads ? payloads[j] : undefined });
        deps.counts.updated++;
        deps.counts.warnings += warnings.length;
      });
      tx.runs.saveCounts(deps.runId, deps.counts);
    });
    if (gone.length > 0) deps.logger.info({ records: gone.length, keys: gone.slice(0, 10) }, 'conflicts resolved "take ERP" whose record the shop no longer has ended; the next push of the record creates it');
    if (failed.length > 0) deps.logger.warn({ records: failed.length, first: failed[0] }, 'conflicts resolved "take ERP" were not taken by the shop; they stay open and the next sync sends them again');
  }
  deps.logger.info({ records: records.length, accepted }, 'sent the ERP\'s values of conflicts resolved "take ERP"');
  return accepted;
}
