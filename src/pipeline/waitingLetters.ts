/**
 * Dead letters that only waited for another record, tried again by the sync runs of their
 * pipeline. They back off, as a queue's retries do: a letter is tried by the next sync after its
 * first failure, then waits longer after each failure, so one that keeps failing (an article a
 * guard rail keeps out of the shop) does not fail again on every tick of a 10-second schedule.
 */
import { truncatedBytes } from '../state/rows.js';
import type { Logger } from '../log.js';
import { RENAME_CODES } from '../renames/errors.js';
import { toMs, type DeadLetter, type StateStore } from '../state/index.js';

/**
 * Codes of letters whose record failed only because another record did not exist yet: the shop
 * record an update targets (`NOT_FOUND`, `REFERENCE_MISSING`) or a referenced record
 * (`MAPPING_LOOKUP`). Pushed by another pipeline later, they resolve without anyone retrying by hand.
 * And a renamed record whose old URL the SEO history did not take yet (`RENAME_SEO_FAILED`, src/renames):
 * the rename landed, and a later sync writes the entry once.
 */
export const WAITING_CODES: readonly string[] = ['NOT_FOUND', 'REFERENCE_MISSING', 'MAPPING_LOOKUP', RENAME_CODES.seoFailed];

/** Attempts after which a waiting letter is no longer tried by syncs (it stays, counted and alerted, for `dlq retry` or `drop`). */
export const AUTO_RETRY_MAX_ATTEMPTS = 50;

/** The wait after a letter's second failure; it doubles with every further failure. */
export const AUTO_RETRY_FIRST_DELAY_MS = 60_000;

/** The longest wait between two tries of a letter by syncs. */
export const AUTO_RETRY_MAX_DELAY_MS = 6 * 60 * 60_000;

/**
 * How long a letter that failed `attempts` times waits, from its last failure, before a sync tries
 * it again: nothing after the first failure (the record it waits for is often pushed by the next
 * run of another pipeline), then 1, 2, 4… minutes, at most 6 hours.
 */
export function autoRetryDelayMs(attempts: number): number {
  if (attempts <= 1) return 0;
  return Math.min(AUTO_RETRY_FIRST_DELAY_MS * 2 ** (attempts - 2), AUTO_RETRY_MAX_DELAY_MS);
}

/** When a sync tries this letter again on its own; undefined when none will (not a waiting letter, or out of attempts). */
export function nextAutoRetry(letter: Pick<DeadLetter, 'code' | 'attempts' | 'lastFailedAt'>): Date | undefined {
  if (!WAITING_CODES.includes(letter.code) || letter.attempts >= AUTO_RETRY_MAX_ATTEMPTS) return undefined;
  return new Date(toMs(letter.lastFailedAt) + autoRetryDelayMs(letter.attempts));
}

/** The letters a sync run tries now. */
export interface DueLetters {
  /** Due letters, oldest first. */
  readonly letters: { erpKey: string; record: Record<string, unknown> }[];
  /** Letters still waiting out their back-off. */
  readonly backingOff: number;
  /** Keys of due letters on their last automatic attempt: failing now, they are left for a person. */
  readonly lastTries: readonly string[];
}

/** The letters of a push pipeline a sync run tries again now (their wait is over), oldest first. */
export async function waitingLetters(state: StateStore, pipeline: string, nowMs: number = Date.now()): Promise<DueLetters> {
  const lists = await Promise.all(WAITING_CODES.map((code) => state.deadLetters.list({ pipeline, code, limit: 10_000 })));
  // A letter that kept only the start of its record is never tried automatically: it would send a wrong record.
  const automatic = lists.flat().filter((l) => l.attempts < AUTO_RETRY_MAX_ATTEMPTS && truncatedBytes(l.record) === undefined);
  const due = automatic.filter((l) => (nextAutoRetry(l)?.getTime() ?? Infinity) <= nowMs).sort((a, b) => a.id - b.id);
  return {
    letters: due.map((l) => ({ erpKey: l.erpKey, record: { ...l.record } })),
    backingOff: automatic.length - due.length,
    lastTries: due.filter((l) => l.attempts === AUTO_RETRY_MAX_ATTEMPTS - 1).map((l) => l.erpKey),
  };
}

/**
 * After the run: letters that failed their last automatic try leave the syncs' hands. Said at warn,
 * once (the run that used their last try); they stay dead letters, counted in `status`, on the
 * dashboard and in the dead-letters alert.
 */
export async function reportExhausted(state: StateStore, pipeline: string, lastTries: readonly string[], logger: Logger): Promise<void> {
  if (lastTries.length === 0) return;
  const left = (await Promise.all(lastTries.map((key) => state.deadLetters.getByKey(pipeline, key)))).filter((l) => l !== undefined && l.attempts >= AUTO_RETRY_MAX_ATTEMPTS);
  if (left.length === 0) return;
  logger.warn(
    { letters: left.length, keys: left.slice(0, 10).map((l) => l!.erpKey) },
    `dead letters that failed ${AUTO_RETRY_MAX_ATTEMPTS} times are no longer tried by syncs: fix what they wait for, then shopsync dlq retry (or drop them)`,
  );
}
