/** What one record's write outcome means for the pipeline. */
import { AuthenticationError, MethodNotFoundError, OutcomeUnknownError, ScopeError, ShopApiError, ShopUnreachableError } from '../../shop/errors.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import type { RecordOutcome } from '../../shop/client/types.js';
import { readShopId, type ShopId, type StoredIssue } from '../../state/index.js';
import { issueOf, warningOf } from './issues.js';

export type Verdict =
  /** The shop took the record. */
  | { readonly kind: 'ok'; readonly shopId?: ShopId; readonly warnings: StoredIssue[] }
  /** A create found the record already there (natural key): update it instead. */
  | { readonly kind: 'exists'; readonly shopId?: ShopId }
  /** An order whose external_reference is already known: it exists, never create a second one. */
  | { readonly kind: 'duplicate-order'; readonly shopId?: ShopId; readonly ours: boolean }
  /** An update of a record the shop no longer has. */
  | { readonly kind: 'gone'; readonly error: StoredIssue }
  /** The write may have taken effect, its answer was lost (OUTCOME_UNKNOWN): reconcile with the shop before sending again. */
  | { readonly kind: 'unknown'; readonly error: StoredIssue }
  /** Not settled: send again (transient failure, a sibling's rejection). */
  | { readonly kind: 'retry'; readonly error: StoredIssue; readonly countsAttempt: boolean }
  /** Not settled yet: another record of this run must settle first (a number its rename hands over); prepared again after the rest of the run, a dead letter with `error` if it still cannot go. */
  | { readonly kind: 'wait'; readonly error: StoredIssue }
  /** The run cannot go on (credentials, scope, missing endpoint, unreachable shop). */
  | { readonly kind: 'fatal'; readonly error: StoredIssue }
  /** The record is bad: dead letter. */
  | { readonly kind: 'reject'; readonly error: StoredIssue };

function idFrom(value: unknown): ShopId | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value !== '') return readShopId(value);
  return undefined;
}

/** Classify one outcome of a create or update. */
export function verdictOf(resource: ResourceDef, op: 'create' | 'update', outcome: RecordOutcome): Verdict {
  if (outcome.ok) {
    return { kind: 'ok', shopId: idFrom(outcome.data?.[resource.key.id]), warnings: outcome.warnings.map(warningOf) };
  }
  const error = outcome.error;
  const issue = issueOf(error ?? new Error('the shop reported a failure without an error'));
  if (!(error instanceof ShopApiError)) return { kind: 'reject', error: issue };
  // An unreachable shop (refused, DNS) says nothing about the record: stop the run now rather than re-send into a closed port.
  if (error instanceof AuthenticationError || error instanceof ScopeError || error instanceof MethodNotFoundError || error instanceof ShopUnreachableError) return { kind: 'fatal', error: issue };
  const details = error.details ?? {};
  // `afterLostAnswer`: the client repeated our own POST whose answer was lost, so this run created the order.
  if (error.code === 'DUPLICATE_EXTERNAL_REFERENCE') return { kind: 'duplicate-order', shopId: idFrom(details[resource.key.id] ?? details.orders_id), ours: details.afterLostAnswer === true };
  if (error.code === 'ALREADY_EXISTS' && op === 'create') return { kind: 'exists', shopId: idFrom(details[resource.key.id]) };
  if (error.code === 'NOT_FOUND' && op === 'update' && details.afterLostAnswer !== true) return { kind: 'gone', error: issue };
  if (error instanceof OutcomeUnknownError || (error.retryable && details.afterLostAnswer === true)) return { kind: 'unknown', error: issue };
  // Not written because of another record, or never sent (the run stopped while the request waited): no attempt of this record's.
  if (error.code === 'BATCH_REJECTED' || error.code === 'NOT_SENT') return { kind: 'retry', error: issue, countsAttempt: false };
  if (error.retryable) return { kind: 'retry', error: issue, countsAttempt: true };
  return { kind: 'reject', error: issue };
}

/**
 * A whole request refused without naming a record (a request-level 4xx on a multi-record batch):
 * split it to isolate the bad record. Per-record errors carry no HTTP status; request-level ones do.
 */
export function rejectedAsWhole(outcomes: readonly RecordOutcome[]): ShopApiError | undefined {
  if (outcomes.length < 2 || outcomes.some((o) => o.ok)) return undefined;
  const first = outcomes[0]!.error;
  if (!(first instanceof ShopApiError) || first.status === undefined || first.retryable) return undefined;
  if (first instanceof AuthenticationError || first instanceof ScopeError || first instanceof MethodNotFoundError) return undefined;
  if (typeof first.details?.index === 'number') return undefined;
  return outcomes.every((o) => o.error?.code === first.code && o.error?.status === first.status) ? first : undefined;
}
