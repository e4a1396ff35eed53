/**
 * Deciding a conflict (issue 46), for the CLI (`shopsync conflicts resolve`) and the dashboard alike:
 *
 * - take ERP: the conflict stays open, marked `erp`, until the next sync of its pipeline sends the
 *   ERP's value once (./taken.ts; or an update of the record that comes first, ./guard.ts) and the
 *   shop accepts it;
 * - keep shop: the shop's value becomes the field's last sent, so nothing differs any more until the
 *   shop or the ERP changes it again; the conflict ends at once.
 *
 * Only the state is written: neither the shop nor the ERP need be reachable to decide.
 */
import { iso, type FieldConflict, type StateStore } from '../state/index.js';
import { ConflictNotFoundError } from './errors.js';

/** Which side a person takes. */
export type ConflictTake = 'erp' | 'shop';

/** The open conflicts a decision is about: one record's (one field, or all of its fields), or every one of a pipeline. */
export interface ConflictSelection {
  readonly pipeline: string;
  /** Absent: every open conflict of the pipeline (of `field`, when given). */
  readonly erpKey?: string;
  readonly field?: string;
}

/** Decide the selected open conflicts; returns them as they are now. Throws CONFLICT_NOT_FOUND when none is open. */
export async function resolveConflicts(state: StateStore, selection: ConflictSelection, take: ConflictTake, nowMs: number = Date.now()): Promise<FieldConflict[]> {
  const { pipeline, erpKey, field } = selection;
  const open = erpKey !== undefined ? ((await state.conflicts.ofRecords(pipeline, [erpKey])).get(erpKey) ?? []) : await state.conflicts.list({ pipeline, status: 'open', limit: 1_000_000 });
  const chosen = open.filter((c) => field === undefined || c.field === field);
  if (chosen.length === 0) throw new ConflictNotFoundError(pipeline, erpKey ?? '(any record)', field);
  const now = iso(nowMs);
  const decided: FieldConflict[] = chosen.map((c) =>
    take === 'shop' ? { ...c, status: 'resolved', resolution: 'shop', resolvedAt: now } : { ...c, status: 'open', resolution: 'erp' },
  );
  await state.write((tx) => {
    for (const c of decided) {
      // What the shop holds is what the next comparison starts from: no conflict until one side changes it.
      // The ERP's value it declined is kept beside it: the field stays out of updates until the ERP changes it.
      if (take === 'shop') tx.sentValues.put(c.pipeline, c.erpKey, c.field, c.shopValue, { value: c.erpValue });
      tx.conflicts.put(c);
    }
  });
  return decided;
}

/** What a decision says, in one line (CLI and dashboard). */
export function resolutionText(decided: readonly FieldConflict[], take: ConflictTake): string {
  const n = decided.length;
  const what = n === 1 ? `\`${decided[0]!.field}\` of ${decided[0]!.erpKey}` : `${n} conflicts`;
  return take === 'shop'
    ? `kept the shop's value of ${what}: it is the last sent now, so the next runs leave it until the shop or the ERP changes it`
    : `taking the ERP's value of ${what}: the next sync of ${decided[0]!.pipeline} sends it once, and the conflict${n === 1 ? '' : 's'} close${n === 1 ? 's' : ''} when the shop accepts it`;
}
