/**
 * Touching shop records whose ERP record is gone: deactivate (an update of the registry's status
 * field) or delete (the registry's delete operation). Each record settles on its own: its event,
 * its reference (a deleted record's is forgotten), its hash (a deactivated record's is a marker,
 * so the next complete read does not send it again and a returning record is sent in full).
 */
import { AuthenticationError, MethodNotFoundError, ScopeError, ShopApiError, ShopUnreachableError } from '../../shop/errors.js';
import type { ResourceDef, ResourceName } from '../../shop/registry/index.js';
import type { ShopClient } from '../../shop/client/types.js';
import type { RunCounts, ShopId, StateStore, StoredIssue } from '../../state/index.js';
import type { SyncEvents } from '../events.js';
import { contentHash } from '../hash.js';
import { issueOf } from '../push/issues.js';
import { rejectedAsWhole, verdictOf } from '../push/outcomes.js';

/** A shop record to deactivate or delete. */
export interface Candidate {
  readonly erpKey: string;
  readonly shopId: ShopId;
}

/** What acting on candidates needs. */
export interface ActDeps {
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly resource: ResourceDef;
  readonly pipeline: string;
  readonly runId: number;
  readonly counts: RunCounts;
  readonly storePayloads: boolean;
  /** Deletes in flight at once. */
  readonly concurrency: number;
  readonly events?: SyncEvents;
}

/** What became of a group of candidates. */
export interface ActResult {
  deactivated: number;
  deleted: number;
  failed: number;
  /** References forgotten (deleted, or gone from the shop already). */
  forgotten: number;
  /** Set when the shop cannot be written at all (credentials, scope, unreachable): the step stops. */
  fatal?: StoredIssue;
}

type Outcome = { kind: 'done'; outcome: 'deactivated' | 'deleted' | 'skipped'; forget: boolean; warnings: StoredIssue[] } | { kind: 'failed'; error: StoredIssue } | { kind: 'fatal'; error: StoredIssue };

const ALREADY_GONE: StoredIssue = { code: 'ALREADY_GONE', message: 'the shop no longer has this record; its reference is forgotten' };

/** The deactivation payload of a resource (without the record's id). */
export function deactivationPayload(resource: ResourceDef): Record<string, unknown> {
  const d = resource.deactivate;
  if (!d) throw new Error(`${resource.name} has no deactivate entry in the registry`);
  return { [d.field]: d.value };
}

/**
 * The hash stored for a deactivated record: never the hash of a payload a mapping produces, so the
 * record is sent in full when it comes back to the ERP.
 */
export function deactivatedHash(resource: ResourceDef): string {
  return contentHash({ $shopsync: 'deactivated', ...deactivationPayload(resource) });
}

function fatalOf(err: unknown): boolean {
  return err instanceof AuthenticationError || err instanceof ScopeError || err instanceof MethodNotFoundError || err instanceof ShopUnreachableError;
}

/** Deactivate one batch of candidates with one update request (split into single requests when the shop refuses it whole). */
async function deactivateBatch(deps: ActDeps, batch: readonly Candidate[]): Promise<Outcome[]> {
  const { resource, shop } = deps;
  const body = deactivationPayload(resource);
  const payloads = batch.map((c) => ({ ...body, [resource.key.id]: c.shopId }));
  const result = await shop.update(resource.name as ResourceName, payloads, { batchSize: payloads.length });
  deps.counts.requests += result.requests;
  if (batch.length > 1 && rejectedAsWhole(result.outcomes)) {
    const single: Outcome[] = [];
    for (const c of batch) single.push(...(await deactivateBatch(deps, [c])));
    return single;
  }
  return batch.map((_, i) => {
    const outcome = result.outcomes[i];
    if (!outcome) return { kind: 'failed', error: { code: 'NO_ANSWER', message: 'the shop answered for fewer records than were sent' } };
    const v = verdictOf(resource, 'update', outcome);
    if (v.kind === 'ok') return { kind: 'done', outcome: 'deactivated', forget: false, warnings: v.warnings };
    if (v.kind === 'gone') return { kind: 'done', outcome: 'skipped', forget: true, warnings: [ALREADY_GONE] };
    if (v.kind === 'fatal') return { kind: 'fatal', error: v.error };
    if (v.kind === 'exists' || v.kind === 'duplicate-order') return { kind: 'failed', error: { code: 'UNEXPECTED_ANSWER', message: `the shop answered ${v.kind} to an update` } };
    // Retries and lost answers are the next complete read's: no hash is stored, so it tries again.
    return { kind: 'failed', error: v.error };
  });
}

async function deleteOne(deps: ActDeps, c: Candidate): Promise<Outcome> {
  const op = deps.resource.ops.delete;
  if (!op) return { kind: 'fatal', error: { code: 'NO_DELETE', message: `the shop offers no delete of single ${deps.resource.name} records` } };
  deps.counts.requests++;
  try {
    const answer = await deps.shop.delete(deps.resource.name as ResourceName, { [op.param]: c.shopId });
    if (answer.success === false) return { kind: 'failed', error: { code: answer.error?.code ?? 'DELETE_REFUSED', message: answer.error?.message ?? 'the shop answered success: false' } };
    return { kind: 'done', outcome: 'deleted', forget: true, warnings: [] };
  } catch (err) {
    if (err instanceof ShopApiError && err.code === 'NOT_FOUND') return { kind: 'done', outcome: 'deleted', forget: true, warnings: [ALREADY_GONE] };
    if (fatalOf(err)) return { kind: 'fatal', error: issueOf(err) };
    return { kind: 'failed', error: issueOf(err) };
  }
}

/** Deactivate or delete `group` (one page of candidates) and settle every record in one state transaction. */
export async function act(deps: ActDeps, action: 'deactivate' | 'delete', group: readonly Candidate[], batchSize: number): Promise<ActResult> {
  const outcomes: Outcome[] = [];
  const step = action === 'deactivate' ? batchSize : deps.concurrency;
  for (let i = 0; i < group.length && !outcomes.some((o) => o.kind === 'fatal'); i += step) {
    const part = group.slice(i, i + step);
    outcomes.push(...(action === 'deactivate' ? await deactivateBatch(deps, part) : await Promise.all(part.map((c) => deleteOne(deps, c)))));
  }
  // After a fatal answer nothing more is sent; the records not tried stay for the next complete read.
  const tried = group.slice(0, outcomes.length);
  const { state, resource, pipeline, runId, counts } = deps;
  const result: ActResult = { deactivated: 0, deleted: 0, failed: 0, forgotten: 0 };
  const marker = action === 'deactivate' ? deactivatedHash(resource) : undefined;
  const payload = action === 'deactivate' ? deactivationPayload(resource) : undefined;
  await state.write((tx) => {
    tried.forEach((c, i) => {
      const o = outcomes[i]!;
      const base = { runId, pipeline, resource: resource.name, erpKey: c.erpKey, shopId: c.shopId };
      if (o.kind === 'done') {
        if (o.forget) {
          tx.refs.delete(resource.name, c.erpKey);
          tx.hashes.delete(pipeline, resource.name, c.erpKey);
          result.forgotten++;
        } else if (marker) tx.hashes.put(pipeline, resource.name, c.erpKey, marker);
        // A letter of a record that left the ERP must never be retried into the shop again.
        tx.deadLetters.resolve(pipeline, c.erpKey);
        tx.events.add({ ...base, outcome: o.outcome, warnings: o.warnings, ...(o.outcome === 'deactivated' && marker ? { payloadHash: marker, ...(deps.storePayloads ? { payload } : {}) } : {}) });
        if (o.outcome === 'deactivated') result.deactivated++;
        if (o.outcome === 'deleted') result.deleted++;
        counts.warnings += o.warnings.length;
      } else {
        tx.events.add({ ...base, outcome: 'failed', error: o.error });
        result.failed++;
        counts.failed++;
        if (o.kind === 'fatal') result.fatal ??= o.error;
      }
    });
    tx.runs.saveCounts(runId, counts);
  });
  tried.forEach((c, i) => {
    const o = outcomes[i]!;
    const codes = o.kind === 'done' ? o.warnings.map((w) => w.code) : [o.error.code];
    deps.events?.emit({ type: 'record-settled', runId, pipeline, resource: resource.name, erpKey: c.erpKey, shopId: c.shopId, outcome: o.kind === 'done' ? o.outcome : 'failed', codes });
  });
  return result;
}
