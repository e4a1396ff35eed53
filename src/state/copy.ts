/**
 * `shopsync state copy`: move a whole state from one backend to another (SQLite → PostgreSQL when
 * a deployment grows to several replicas, or back). Rows move as they are, ids included, so run
 * ids in logs and dead-letter ids in tickets stay valid; id sequences are moved past them after.
 * Locks are not copied: they belong to the processes of the old state, which must be stopped.
 */
import { StateError } from '../errors.js';
import { STATE_TABLES, type StateStore, type StateTable, type TableCounts } from './store.js';

/** Options of `copyState`. */
export interface CopyOptions {
  /** Only count what would be copied. */
  readonly dryRun?: boolean;
  /** Empty a target that already holds a state instead of refusing. */
  readonly force?: boolean;
  /** Rows per page read and inserted. @default 1000 */
  readonly pageSize?: number;
  /** Called after each page with the rows of the table copied so far. */
  readonly onTable?: (table: StateTable, copied: number, total: number) => void;
}

/** What a copy moved (or, dry, would move). */
export interface CopyReport {
  readonly dryRun: boolean;
  readonly from: string;
  readonly to: string;
  /** Rows per table in the source (= copied, unless dry). */
  readonly counts: TableCounts;
  /** Rows the target held before (emptied by `force`). */
  readonly replaced: TableCounts;
}

const total = (c: TableCounts) => STATE_TABLES.reduce((n, t) => n + c[t], 0);

/** The target of a copy as the checks see it: an open state, or a peek at one (`peekState`, for a dry run that must not create it). */
export interface CopyTarget {
  readonly location: string;
  readonly backend: string;
  readonly counts: TableCounts;
}

/** What a copy would do, without writing: the checks (not the same state, an empty target unless `force`) and the counts. */
export async function planCopy(from: StateStore, to: CopyTarget, options: Pick<CopyOptions, 'force'> = {}): Promise<CopyReport> {
  if (from.location === to.location && from.backend === to.backend) {
    throw new StateError('STATE_COPY_SAME', `source and target are the same state (${from.location}); give two different places`);
  }
  const counts = await from.dump.counts();
  const existing = to.counts;
  if (total(existing) > 0 && options.force !== true) {
    const held = STATE_TABLES.filter((t) => existing[t] > 0).map((t) => `${t} ${existing[t]}`);
    throw new StateError('STATE_TARGET_NOT_EMPTY', `the target state ${to.location} is not empty (${held.join(', ')}); copy into an empty state, or pass --force to replace what it holds`, {
      details: { ...existing },
    });
  }
  return { dryRun: true, from: from.location, to: to.location, counts, replaced: existing };
}

/** Copy every table of `from` into `to`; the target must be empty unless `force`. */
export async function copyState(from: StateStore, to: StateStore, options: CopyOptions = {}): Promise<CopyReport> {
  const plan = await planCopy(from, { location: to.location, backend: to.backend, counts: await to.dump.counts() }, options);
  if (options.dryRun === true) return plan;
  const { counts, replaced: existing } = plan;
  const base = { from: plan.from, to: plan.to, counts, replaced: existing };
  if (total(existing) > 0) await to.dump.clear();
  for (const table of STATE_TABLES) {
    let copied = 0;
    for await (const page of from.dump.rows(table, options.pageSize ?? 1000)) {
      await to.dump.insert(table, page);
      copied += page.length;
      options.onTable?.(table, copied, counts[table]);
    }
    if (copied !== counts[table]) {
      throw new StateError('STATE_COPY_CHANGED', `${table}: the source had ${counts[table]} rows but ${copied} were read; is a shopsync process still writing to ${from.location}? Stop it and copy again with --force`, {
        details: { table, expected: counts[table], copied },
      });
    }
  }
  await to.dump.finishCopy();
  return { dryRun: false, ...base };
}
