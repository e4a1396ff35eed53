/** Dry runs: what each record would do (create, update with a field diff, skip, fail), without writing. */
import type { RunCounts } from '../../state/index.js';
import { payloadDiff } from '../diff.js';
import type { PlannedRecord } from '../types.js';
import { sentPayload, type PrepareDeps } from './prepare.js';
import type { Settlement, WorkItem } from './work.js';

/** Plan a record that needs no request (unchanged, or refused before sending). */
export function planSettled(counts: RunCounts, plan: PlannedRecord[], s: Settlement): void {
  if (s.kind === 'done') {
    counts.unchanged++;
    plan.push({ erpKey: s.item.erpKey, action: 'skip', ...(s.shopId !== undefined ? { shopId: s.shopId } : {}), reason: 'unchanged since the last accepted payload' });
  } else {
    counts.failed++;
    plan.push({ erpKey: s.item.erpKey, action: 'fail', reason: `[${s.error.code}] ${s.error.message}`, ...(s.item.payload !== undefined ? { payload: s.item.payload as Record<string, unknown> } : {}) });
  }
}

/** Plan a record that would be sent; an update reads the shop's record for its diff. Returns the requests made. */
export async function planSend(deps: Pick<PrepareDeps, 'shop' | 'resource'> & { readonly counts: RunCounts }, plan: PlannedRecord[], item: WorkItem): Promise<number> {
  const payload = sentPayload(item);
  if (item.op === 'create') {
    deps.counts.created++;
    plan.push({ erpKey: item.erpKey, action: 'create', payload });
    return 0;
  }
  let diff: Record<string, { shop: unknown; next: unknown }> | undefined;
  let requests = 0;
  if (item.shopId !== undefined) {
    const current = await deps.shop.exportOne(deps.resource.name as never, item.shopId);
    requests++;
    diff = payloadDiff(current, payload, deps.resource.lists);
  }
  deps.counts.updated++;
  plan.push({ erpKey: item.erpKey, action: 'update', ...(item.shopId !== undefined ? { shopId: item.shopId } : {}), payload, ...(diff ? { diff } : {}) });
  return requests;
}
