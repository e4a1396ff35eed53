/**
 * What both backends share above the SQL dialect: the WHERE clauses of the list filters (written
 * with `?`; `new Where(true)` numbers them for PostgreSQL) and the run counter columns.
 */
import type { EventFilter, RunFilter } from './store.js';
import type { RunCounts } from './types.js';
import type { Where } from './where.js';

/** The WHERE clause of a run filter. */
export function runWhere(filter: RunFilter, where: Where): Where {
  where.eq('pipeline', filter.pipeline).eq('shop', filter.shop).in('status', filter.status).eq('mode', filter.mode);
  if (filter.outcome === 'failed') where.add('failed > 0');
  if (filter.outcome === 'dead-lettered') where.add('dead_lettered > 0');
  if (filter.outcome === 'warnings') where.add('warnings > 0');
  return where.between('started_at', filter.since, filter.until);
}

/** The counter values in `COUNT_COLUMNS` order. */
export function countValues(c: Readonly<RunCounts>): number[] {
  return [c.read, c.created, c.updated, c.unchanged, c.failed, c.deadLettered, c.unreadable, c.warnings, c.requests, c.conflicts ?? 0];
}

/** The run counter columns. */
export const COUNT_COLUMNS = ['read', 'created', 'updated', 'unchanged', 'failed', 'dead_lettered', 'unreadable', 'warnings', 'requests', 'conflicts'] as const;

/** The WHERE clause of an event filter. */
export function eventWhere(filter: EventFilter, where: Where): Where {
  where
    .eq('run_id', filter.runId)
    .eq('pipeline', filter.pipeline)
    .eq('shop', filter.shop)
    .eq('resource', filter.resource)
    .eq('erp_key', filter.erpKey)
    .eq('shop_id', filter.shopId === undefined ? undefined : String(filter.shopId))
    .in('outcome', filter.outcome);
  if (filter.code !== undefined) where.add("codes LIKE ? ESCAPE '\\'", `% ${filter.code.replace(/[\\%_]/g, (c) => `\\${c}`)} %`);
  return where.between('at', filter.since, filter.until);
}

