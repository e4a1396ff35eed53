/** Rows of the `followed` table (issue 44) as both backends read them, and back. */
import type { FollowChange, FollowDay, FollowDoneReason, FollowedRecord, FollowSnapshot } from '../follow/types.js';

/** A followed row as the drivers return it (PostgreSQL: BOOLEAN; SQLite: 0/1). */
export interface FollowedRow {
  pipeline: string;
  record_key: string;
  shop: string;
  placed_day: string;
  status: number | string | null;
  cancelled: number | boolean;
  snapshot: string;
  changes: string;
  first_at: string;
  changed_at: string | null;
  done_at: string | null;
  done_reason: string | null;
}

/** Columns in the order of `followedValues` (the upsert of both backends). */
export const FOLLOWED_COLUMNS = ['pipeline', 'record_key', 'shop', 'placed_day', 'status', 'cancelled', 'snapshot', 'changes', 'first_at', 'changed_at', 'done_at', 'done_reason'] as const;

/** The contract's record of a row; absent columns stay absent (exactOptionalPropertyTypes). */
export function followedOf(r: FollowedRow): FollowedRecord {
  return {
    pipeline: r.pipeline,
    shop: r.shop,
    key: r.record_key,
    placedDay: r.placed_day,
    ...(r.status !== null ? { status: Number(r.status) } : {}),
    cancelled: r.cancelled === true || Number(r.cancelled) === 1,
    snapshot: JSON.parse(r.snapshot) as FollowSnapshot,
    changes: JSON.parse(r.changes) as FollowChange[],
    firstAt: r.first_at,
    ...(r.changed_at !== null ? { changedAt: r.changed_at } : {}),
    ...(r.done_at !== null ? { doneAt: r.done_at } : {}),
    ...(r.done_reason !== null ? { doneReason: r.done_reason as FollowDoneReason } : {}),
  };
}

/** The values of a record in `FOLLOWED_COLUMNS` order; `cancelled` as 0/1 (each backend casts it). */
export function followedValues(f: FollowedRecord): (string | number | null)[] {
  return [
    f.pipeline,
    f.key,
    f.shop,
    f.placedDay,
    f.status ?? null,
    f.cancelled ? 1 : 0,
    JSON.stringify(f.snapshot),
    JSON.stringify(f.changes),
    f.firstAt,
    f.changedAt ?? null,
    f.doneAt ?? null,
    f.doneReason ?? null,
  ];
}

/** When a row was last delivered: its last change, else its first delivery. */
function deliveredAt(r: FollowedRecord): string {
  return r.changedAt ?? r.firstAt;
}

/**
 * The newest row of each key among rows of several pipelines (the push guard asks what the ERP
 * was last told, whichever pipeline told it): the one delivered last, ties by pipeline name so
 * the answer does not depend on the order rows came back in.
 */
export function newestByKey(rows: readonly FollowedRecord[]): Map<string, FollowedRecord> {
  const out = new Map<string, FollowedRecord>();
  for (const r of rows) {
    const known = out.get(r.key);
    if (!known) out.set(r.key, r);
    else {
      const a = deliveredAt(r);
      const b = deliveredAt(known);
      if (a > b || (a === b && r.pipeline > known.pipeline)) out.set(r.key, r);
    }
  }
  return out;
}

/** Numeric keys (orders ids) in number order: shorter text first, then by text. */
export const KEY_ORDER = 'length(record_key), record_key';

/** Open keys per day (in day order) with the day's totals as `FollowDay`s; days without open rows are left out. */
export function daysOf(open: readonly { placed_day: string; record_key: string }[], totals: readonly { placed_day: string; n: number | string }[]): FollowDay[] {
  const byDay = new Map<string, string[]>();
  for (const r of open) {
    const list = byDay.get(r.placed_day);
    if (list) list.push(r.record_key);
    else byDay.set(r.placed_day, [r.record_key]);
  }
  const total = new Map(totals.map((t) => [t.placed_day, Number(t.n)]));
  return [...byDay]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([day, keys]) => ({ day, open: keys, total: total.get(day) ?? keys.length }));
}
