/**
 * How long a trigger holds back a wake-up that would find nothing new, shared by short polling
 * (rows after a cursor that a run could not move) and NOTIFY (notifications that any database
 * user can send): the first hold, doubled while wake-ups keep finding nothing, up to the ceiling.
 */

/** The first hold after a wake-up that found nothing new. */
export const HOLD_MIN_MS = 5_000;
/** The longest hold. */
export const HOLD_MAX_MS = 5 * 60_000;
