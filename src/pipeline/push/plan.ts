/** Dry runs: what each record would do (create, update with a field diff, skip, fail), without writing. */
import type { RunCounts, StoredIssue } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';
import { payloadDiff } from '../diff.js';
import { clearedAlike } from '../../shop/registry/index.js';
import type { PlannedFinding, PlannedRecord } from '../types.js';
import { sentPayload, type PrepareDeps } from './prepare.js';
import type { Settlement, WorkItem } from './work.js';

function finding(i: { code: string; message: string; field?: unknown }): PlannedFinding {
  return { code: i.code, message: i.message, ...(typeof i.field === 'string' ? { field: i.field } : {}) };
}

/** The record's warnings, when it has any. */
function warningsOf(warnings: readonly StoredIssue[]): { warnings?: PlannedFinding[] } {
  return warnings.length > 0 ? { warnings: warnings.map(finding) } : {};
}

/** Every finding behind a refusal: a refused mapping keeps all its errors in `details.errors`, anything else is one finding. */
function errorsOf(error: StoredIssue): PlannedFinding[] {
  const all = error.details?.errors;
  if (Array.isArray(all)) {
    const each = all.filter((e): e is { code: string; message: string; field?: unknown } => isRecord(e) && typeof e.code === 'string' && typeof e.message === 'string');
    if (each.length > 0) return each.map(finding);
  }
  return [finding(error)];
}

/** Plan a record that needs no request (unchanged, or refused before sending). */
export function planSettled(counts: RunCounts, plan: PlannedRecord[], s: Settlement): void {
  if (s.kind === 'done') {
    counts.unchanged++;
    plan.push({ erpKey: s.item.erpKey, action: 'skip', ...(s.shopId !== undefined ? { shopId: s.shopId } : {}), payload: sentPayload(s.item), reason: 'unchanged since the last accepted payload', ...warningsOf(s.warnings) });
  } else {
    counts.failed++;
    plan.push({
      erpKey: s.item.erpKey,
      action: 'fail',
      reason: `[${s.error.code}] ${s.error.message}`,
      ...(s.item.payload !== undefined ? { payload: s.item.payload as Record<string, unknown> } : {}),
      ...(s.item.shopId !== undefined ? { shopId: s.item.shopId } : {}),
      errors: errorsOf(s.error),
      ...warningsOf(s.item.warnings),
    });
  }
}

/** Plan a record that would be sent; an update reads the shop's record for its diff. Returns the requests made. */
export async function planSend(deps: Pick<PrepareDeps, 'shop' | 'resource'> & { readonly counts: RunCounts }, plan: PlannedRecord[], item: WorkItem): Promise<number> {
  const payload = sentPayload(item);
  if (item.op === 'create') {
    deps.counts.created++;
    plan.push({ erpKey: item.erpKey, action: 'create', payload, ...warningsOf(item.warnings) });
    return 0;
  }
  let diff: Record<string, { shop: unknown; next: unknown }> | undefined;
  let requests = 0;
  if (item.shopId !== undefined) {
    const current = await deps.shop.exportOne(deps.resource.name as never, item.shopId);
    requests++;
    diff = payloadDiff(current, payload, deps.resource.lists, '', (path, shop, next) => clearedAlike(deps.resource, path, shop, next));
  }
  deps.counts.updated++;
  plan.push({ erpKey: item.erpKey, action: 'update', ...(item.shopId !== undefined ? { shopId: item.shopId } : {}), payload, ...(diff ? { diff } : {}), ...warningsOf(item.warnings) });
  return requests;
}
