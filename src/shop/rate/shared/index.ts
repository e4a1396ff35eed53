/**
 * One rate limit per shop shared by every shopsync process on the same state: the hard ceiling
 * across replicas, under which each process's adaptive controller (../controller.ts) still finds
 * its pace. See docs/shared-rate-limit.md.
 */
import type { Logger } from '../../../log.js';
import type { PostgresBudgetLocation, SharedRateLimits } from './postgres.js';

export { sharedBudget, storeMs, ARRIVAL_SLACK_MS, MIN_SLOT_MS, type SharedBudget } from './budget.js';
export { StoreRateLimiter, PAUSE_MARK, type BudgetStore, type SharedAcquireOptions, type SharedAcquireResult, type SharedRateLimiter } from './limiter.js';
export type { PostgresBudgetLocation, SharedRateCaps, SharedRateLimits } from './postgres.js';

/** Open the shops' shared budgets on the state's PostgreSQL database (pg is loaded only then). */
export async function openSharedRateLimits(location: PostgresBudgetLocation, options: { readonly logger?: Logger } = {}): Promise<SharedRateLimits> {
  const { openPostgresRateLimits } = await import('./postgres.js');
  return openPostgresRateLimits(location, options);
}
