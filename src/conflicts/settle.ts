/** What settling an accepted record writes for its guarded fields (issue 46), in the commit of its hash. */
import { sentPayload } from '../pipeline/push/prepare.js';
import type { WorkItem } from '../pipeline/push/work.js';
import type { StateWriter } from '../state/index.js';
import { valueAtPath } from './paths.js';

/**
 * The values the shop accepted for the guarded fields this payload carried become the "last sent"
 * of the next comparison (held ones stay as they were: the shop keeps its own), and the conflicts
 * it resolved by sending the ERP's value end.
 */
export function rememberSent(tx: StateWriter, pipeline: string, recordKey: string, item: WorkItem, guarded: readonly string[]): void {
  const payload = sentPayload(item);
  for (const field of guarded) {
    if (item.held?.includes(field)) continue;
    const value = valueAtPath(payload, field);
    if (value !== undefined) tx.sentValues.put(pipeline, recordKey, field, value);
  }
  for (const c of item.closing ?? []) tx.conflicts.put(c);
}
