/**
 * The hold of NOTIFY wake-ups that found nothing new, as short polling holds its probes
 * (src/triggers/poll.ts). NOTIFY needs no privilege: any role that may log in to the ERP's
 * database can send `NOTIFY shopsync_<pipeline>` as often as it likes, and without a hold every
 * notification is a run (19 runs in 20 s with nothing changed, issue 42). So a notification wakes
 * the pipeline at once only while wake-ups find something: once a woken run has finished without
 * moving the cursor and without creating, updating or failing a record, the next wake-up waits
 * until a hold has passed (5 s, doubling up to 5 min while they keep finding nothing); the
 * notifications meanwhile become that one wake-up. A run that finds something ends the hold.
 *
 * A notification that arrives while the woken run has not finished yet is looked at again one
 * debounce later, so a steady stream of real changes costs at most one debounce more than a
 * follow-up run would. The state is asked at most once per debounce: within it a wake-up joins
 * the one before anyway.
 */
import type { Logger } from '../../log.js';
import { HOLD_MAX_MS, HOLD_MIN_MS } from '../hold.js';

/** What a finished run since a wake-up found: none finished yet, nothing new, or something. */
export type RunsSince = 'none' | 'nothing' | 'something';

/** What the hold reads from the state. */
export interface HoldProbe {
  /** The pipeline's stored cursor, as comparable text. */
  cursor(): Promise<string>;
  /** The runs of the pipeline started at or after `sinceMs` that finished, and whether one found anything. */
  runsSince(sinceMs: number): Promise<RunsSince>;
}

/** Options of `notifyHold`. */
export interface NotifyHoldOptions {
  readonly probe: HoldProbe;
  /** Pass a wake-up on to the scheduler. */
  readonly wake: (detail: string) => void;
  /** The pipeline's debounce: how long one look at the state stands for. */
  readonly spacingMs: number;
  readonly logger: Logger;
  /** @default HOLD_MIN_MS */
  readonly minHoldMs?: number;
  /** @default HOLD_MAX_MS */
  readonly maxHoldMs?: number;
}

/** A gate in front of the scheduler's wake for notifications. */
export interface NotifyHold {
  /** A notification arrived. */
  notify(detail: string): void;
  /** Whether wake-ups are being held now (for the trigger's status). */
  heldUntil(): number | undefined;
  close(): void;
}

/** Create the gate; see the module comment for what it holds. */
export function notifyHold(o: NotifyHoldOptions): NotifyHold {
  const minHoldMs = o.minHoldMs ?? HOLD_MIN_MS;
  const maxHoldMs = o.maxHoldMs ?? HOLD_MAX_MS;
  /** The last wake-up this gate passed on: the cursor then, when, and the hold that follows it. */
  let last: { cursor: string; at: number; holdMs: number; againAt: number } | undefined;
  let passUntil = 0;
  let looking = false;
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let held = false;
  let holds = 0;

  const fire = (detail: string, cursor: string, holdMs: number): void => {
    const now = Date.now();
    last = { cursor, at: now, holdMs, againAt: now + holdMs };
    passUntil = now + o.spacingMs;
    held = false;
    o.wake(detail);
  };

  /** Look again after `delayMs`, with the notifications that come meanwhile folded into one. */
  function later(detail: string, delayMs: number): void {
    pending = detail;
    // Not unref'd: the wake-up it may end in is a run the daemon owes (a real change may be among the notifications).
    timer = setTimeout(() => {
      timer = undefined;
      const next = pending;
      pending = undefined;
      if (next !== undefined && !closed) void look(next);
    }, delayMs);
  }

  async function look(detail: string): Promise<void> {
    looking = true;
    try {
      const cursor = await o.probe.cursor();
      if (closed) return;
      if (last === undefined || cursor !== last.cursor) {
        if (held) o.logger.info({ holds }, 'NOTIFY: a run found something again; wake-ups are no longer held');
        holds = 0;
        fire(detail, cursor, minHoldMs);
        return;
      }
      const runs = await o.probe.runsSince(last.at);
      if (closed) return;
      const now = Date.now();
      if (runs === 'none' && now < last.againAt) {
        // The woken run has not finished: look again one debounce later, when it may have; a real
        // change then wakes at once, and forged ones never queue a follow-up run behind it. (A run
        // that never comes, or outlasts the hold, is judged at the hold's end like one that found nothing.)
        later(detail, o.spacingMs);
      } else if (runs === 'something') {
        holds = 0;
        fire(detail, cursor, minHoldMs);
      } else if (now >= last.againAt) {
        fire(detail, cursor, Math.min(last.holdMs * 2, maxHoldMs));
      } else {
        holds += 1;
        if (!held) {
          o.logger.info(
            { holdMs: last.againAt - now },
            'NOTIFY woke the pipeline again, but its last wake-up found nothing new: wake-ups are held (any role that may log in to the database can send NOTIFY); a run that finds something ends the hold',
          );
        }
        held = true;
        later(detail, last.againAt - now);
      }
    } catch (err) {
      // The state could not be read: wake, as without the hold; a lost wake-up would be worse than a run.
      o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'NOTIFY: could not read the state to judge the wake-up; woken without the hold');
      o.wake(detail);
    } finally {
      looking = false;
      if (pending !== undefined && timer === undefined && !closed) {
        const next = pending;
        pending = undefined;
        o.wake(next);
      }
    }
  }

  return {
    notify(detail) {
      if (closed) return;
      if (looking || timer !== undefined) {
        pending = detail;
        return;
      }
      if (Date.now() < passUntil) {
        o.wake(detail);
        return;
      }
      void look(detail);
    },
    heldUntil: () => (held && timer !== undefined && last ? last.againAt : undefined),
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
