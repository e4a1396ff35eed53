/**
 * What changed in a followed record since it was last delivered (pure; DESIGN-44 point 2). The
 * registry's FollowDef says which parts of a record are its life (status log, tracking, addresses,
 * items); a snapshot keeps just enough of each to tell a change from a re-read, and the changes
 * found are numbered on from the record's last one, so the ERP can act on each once by (key, seq).
 */
import { contentHash } from '../pipeline/hash.js';
import type { FollowDef } from '../shop/registry/types.js';
import type { FollowChange, FollowSnapshot } from './types.js';

/** The mapping input field holding every change of the record so far (oldest first). */
export const FOLLOW_CHANGES_FIELD = '_changes';

/** Which statuses mean what (the pipeline's `follow:` block). */
export interface FollowStatuses {
  readonly cancelled: readonly number[];
  readonly returned: readonly number[];
}

type Rec = Readonly<Record<string, unknown>>;

/** A status id as the shop sent it (a number, or digits in a string), else undefined. */
function statusOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

function listOf(record: Rec, field: string): Rec[] {
  const list = record[field];
  return Array.isArray(list) ? list.filter((e): e is Rec => e !== null && typeof e === 'object' && !Array.isArray(e)) : [];
}

/** The first of `fields` that holds a non-empty text or number. */
function firstText(entry: Rec, fields: readonly string[]): string | undefined {
  for (const f of fields) {
    const v = entry[f];
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') return String(v);
  }
  return undefined;
}

/** The key of a tracking entry; an entry without one is known by its content (so it still counts once). */
function trackingKey(def: FollowDef, entry: Rec): string {
  return firstText(entry, def.tracking.key) ?? `#${contentHash(entry).slice(0, 16)}`;
}

/** What a delivery of `record` hands over, as the next read compares it. */
export function snapshotOf(def: FollowDef, record: Rec): FollowSnapshot {
  const status = statusOf(record[def.status]);
  const addresses: Record<string, string> = {};
  for (const block of def.addresses) addresses[block] = contentHash(record[block] ?? null);
  return {
    ...(status !== undefined ? { status } : {}),
    history: listOf(record, def.history.list).length,
    tracking: listOf(record, def.tracking.list).map((e) => trackingKey(def, e)),
    addresses,
    items: contentHash(record[def.items] ?? null),
  };
}

/** The kind of a status_history entry moving from `previous` to `status`. */
function statusKind(status: number | undefined, previous: number | undefined, statuses: FollowStatuses): FollowChange['kind'] {
  if (status === undefined || status === previous) return 'comment';
  if (statuses.cancelled.includes(status)) return 'cancelled';
  if (statuses.returned.includes(status)) return 'return';
  return 'status';
}

/**
 * The changes of `record` since `before` (what was delivered), numbered from `lastSeq` + 1, stamped
 * `at` (ISO). Nothing when the record is as delivered.
 */
export function changesSince(def: FollowDef, statuses: FollowStatuses, record: Rec, before: FollowSnapshot, lastSeq: number, at: string): FollowChange[] {
  const out: Omit<FollowChange, 'seq' | 'detected_at'>[] = [];
  const history = listOf(record, def.history.list);
  let previous = before.status;
  // The log is append-only: entries past the count delivered are new, in the shop's order.
  for (const entry of history.slice(before.history)) {
    const status = statusOf(entry[def.history.status]);
    const comment = entry[def.history.comment];
    const when = entry[def.history.at];
    out.push({
      kind: statusKind(status, previous, statuses),
      ...(status !== undefined ? { status } : {}),
      ...(previous !== undefined ? { previous_status: previous } : {}),
      ...(typeof comment === 'string' && comment !== '' ? { comment } : {}),
      ...(typeof when === 'string' && when !== '' ? { history_at: when } : {}),
    });
    if (status !== undefined) previous = status;
  }
  // A status set without a log entry (or a log that shrank) is a change all the same.
  const status = statusOf(record[def.status]);
  if (status !== undefined && status !== previous) {
    out.push({ kind: statusKind(status, previous, statuses), status, ...(previous !== undefined ? { previous_status: previous } : {}) });
  }
  const known = new Set(before.tracking);
  for (const entry of listOf(record, def.tracking.list)) {
    const key = trackingKey(def, entry);
    if (known.has(key)) continue;
    known.add(key);
    const provider = firstText(entry, def.tracking.provider);
    out.push({ kind: entry[def.tracking.returnFlag] === true ? 'return' : 'tracking', tracking_code: key, ...(provider !== undefined ? { service_provider: provider } : {}) });
  }
  for (const block of def.addresses) {
    if (contentHash(record[block] ?? null) !== before.addresses[block]) out.push({ kind: 'address', field: block });
  }
  if (contentHash(record[def.items] ?? null) !== before.items) out.push({ kind: 'items' });
  return out.map((c, i) => ({ seq: lastSeq + i + 1, ...c, detected_at: at }));
}

/**
 * The mapping input of a followed record: the record with every change so far under `_changes`.
 * A record without changes gets none, so it maps as it did before `follow:` was on: its hash stays
 * equal, and turning the follow on re-delivers nothing (the order is adopted instead).
 */
export function withChanges(input: Rec, changes: readonly FollowChange[]): Record<string, unknown> {
  return changes.length === 0 ? { ...input } : { ...input, [FOLLOW_CHANGES_FIELD]: changes };
}

/** The placement day (YYYY-MM-DD) of a record, as the day filter compares it; undefined when it has none. */
export function placedDayOf(def: FollowDef, record: Rec): string | undefined {
  const v = record[def.placedAt];
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : undefined;
}
