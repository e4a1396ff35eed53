/** Followed rows as the follow pass would leave them, for tests that show them (dashboard, metrics, status). */
import type { FollowChange, FollowedRecord } from '../../../src/follow/types.js';
import type { StateStore } from '../../../src/state/index.js';

/** A placement day `days` before today (UTC), as the state holds it. */
export function daysAgo(days: number, now: Date = new Date()): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** A followed row of `pipeline`: open unless `doneAt` is given. */
export function followedRow(pipeline: string, key: string, placedDay: string, extra: Partial<FollowedRecord> = {}): FollowedRecord {
  return {
    pipeline,
    shop: 'default',
    key,
    placedDay,
    status: 1,
    cancelled: false,
    snapshot: { status: 1, history: 1, tracking: [], addresses: {}, items: 'h' },
    changes: [],
    firstAt: `${placedDay}T10:00:00.000Z`,
    ...extra,
  };
}

/** A status change seen at `at`. */
export function statusChange(seq: number, status: number, at: string): FollowChange {
  return { seq, kind: 'status', detected_at: at, status, previous_status: status - 1 };
}

/** Store the rows as the settle of a delivery does: one `state.write`. */
export async function seedFollowed(state: StateStore, rows: readonly FollowedRecord[]): Promise<void> {
  await state.write((tx) => {
    for (const r of rows) tx.followed.put(r);
  });
}
