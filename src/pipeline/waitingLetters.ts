/** Dead letters that only waited for another record, tried again by every sync run of their pipeline. */
import type { StateStore } from '../state/index.js';

/**
 * Codes of letters whose record failed only because another record did not exist yet: the shop
 * record an update targets (`NOT_FOUND`, `REFERENCE_MISSING`) or a referenced record
 * (`MAPPING_LOOKUP`). Pushed by another pipeline later, they resolve without anyone retrying by hand.
 */
export const WAITING_CODES: readonly string[] = ['NOT_FOUND', 'REFERENCE_MISSING', 'MAPPING_LOOKUP'];

/** Attempts after which a waiting letter is no longer tried by every run (it stays for a manual retry). */
export const AUTO_RETRY_MAX_ATTEMPTS = 50;

/** The letters of a push pipeline a sync run tries again on its own, oldest first. */
export async function waitingLetters(state: StateStore, pipeline: string): Promise<{ erpKey: string; record: Record<string, unknown> }[]> {
  const lists = await Promise.all(WAITING_CODES.map((code) => state.deadLetters.list({ pipeline, code, limit: 10_000 })));
  return lists
    .flat()
    .filter((l) => l.attempts < AUTO_RETRY_MAX_ATTEMPTS)
    .sort((a, b) => a.id - b.id)
    .map((l) => ({ erpKey: l.erpKey, record: { ...l.record } }));
}
