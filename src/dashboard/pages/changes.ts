/**
 * What changed in an update. The pipeline stores the payload it sent with each event; when an
 * update carries no diff of its own, the change is the difference to the last payload the shop
 * accepted for the same record (an earlier created/updated event).
 */
import { isCutMarker, type RecordEvent, type StateStore } from '../../state/index.js';
import { isRecord } from '../../util/guards.js';

/** One changed leaf: its dot path, value before and after (undefined = absent). */
export interface Change {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * Leaf-level differences between two payloads; arrays compare as whole values. A field the later
 * payload does not carry is not a change: an update writes only what it sends (a stock figure left
 * out because it did not change since it was last sent stays as the shop has it).
 */
export function payloadChanges(before: unknown, after: unknown, path = ''): Change[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = Object.keys(after).sort();
    return keys.flatMap((k) => payloadChanges(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path: path || '(payload)', before, after }];
}

const ACCEPTED = new Set(['created', 'updated']);

/** The last payload the shop accepted for this event's record before this event, with its run. */
export async function previousPayload(state: StateStore, event: RecordEvent): Promise<{ payload: unknown; runId: number } | undefined> {
  if (event.erpKey === undefined || event.resource === undefined) return undefined;
  // Filtering by resource and key (not pipeline) lets SQLite use the (resource, erp_key, at) index.
  const earlier = await state.events.list({ resource: event.resource, erpKey: event.erpKey, until: Date.parse(event.at) + 1, limit: 50, order: 'desc', excerpt: true });
  const prev = earlier.find((e) => e.id < event.id && e.pipeline === event.pipeline && ACCEPTED.has(e.outcome) && e.payload !== undefined);
  // A payload too long to list cannot be compared field by field: no "what changed" rather than a wrong one.
  if (prev && isCutMarker(prev.payload)) return undefined;
  return prev ? { payload: prev.payload, runId: prev.runId } : undefined;
}
