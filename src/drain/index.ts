/**
 * Work that must not end quietly. Node ends a process whose event loop has nothing left to wait
 * on, with exit code 0, even while a promise the command awaits is still pending: a timer that was
 * unref'd, a connector that dropped its socket without settling its promise. Each run and each
 * one-off command holds itself open here. When the loop drains with work still held, `beforeExit`
 * abandons the innermost work (runs before the command that started them): its `race` rejects with
 * RUN_ABANDONED, so the run is closed as failed, says so and the command exits non-zero. The
 * rejection schedules new work, so the loop runs on until the run row is written and the summary
 * printed; the next `beforeExit` finds nothing open and the process ends with the code set.
 */
import { AbandonedError } from '../errors.js';

/** How deep a piece of work sits: a command opens runs, so runs are abandoned first. */
export type WorkLevel = 'command' | 'run';

const DEPTH: Readonly<Record<WorkLevel, number>> = { command: 0, run: 1 };

/** A piece of work held open. */
export interface OpenWork {
  /** `work`, or a rejection with AbandonedError (RUN_ABANDONED) once the loop drains while this is open. */
  race<T>(work: Promise<T>): Promise<T>;
  /** The work finished (or failed) on its own: stop holding it. */
  close(): void;
}

interface Held {
  readonly depth: number;
  readonly what: string;
  readonly waitingFor: () => string;
  readonly abandon: (err: AbandonedError) => void;
}

const held = new Set<Held>();
let listening = false;
let exitCodeOnAbandon: number | undefined;

/**
 * The exit code the process ends with once work was abandoned (the CLI sets its EXIT.abandoned).
 * A backstop: the command normally sets the same code itself after it reported the abandoned run.
 */
export function exitWhenAbandoned(code: number): void {
  exitCodeOnAbandon = code;
  listen();
}

/** Hold `what` open until `close()`; `waitingFor` says, when it is abandoned, what it was waiting for. */
export function holdOpen(level: WorkLevel, what: string, waitingFor: () => string): OpenWork {
  listen();
  let abandon!: (err: AbandonedError) => void;
  const abandoned = new Promise<never>((_resolve, reject) => (abandon = reject));
  // Work that is not raced (it finished first) must not turn the rejection into an unhandled one.
  abandoned.catch(() => undefined);
  const entry: Held = { depth: DEPTH[level], what, waitingFor, abandon };
  held.add(entry);
  return {
    race: <T>(work: Promise<T>) => Promise.race([work, abandoned]),
    close: () => {
      held.delete(entry);
    },
  };
}

/** How much work is held open now (for diagnostics). */
export function openWorkCount(): number {
  return held.size;
}

function listen(): void {
  if (listening) return;
  listening = true;
  process.on('beforeExit', onDrained);
}

function onDrained(): void {
  if (held.size === 0) return;
  const innermost = Math.max(...[...held].map((h) => h.depth));
  for (const entry of [...held]) {
    if (entry.depth !== innermost) continue;
    held.delete(entry);
    let waitingFor: string;
    try {
      waitingFor = entry.waitingFor();
    } catch (err) {
      waitingFor = `unknown: ${err instanceof Error ? err.message : String(err)}`;
    }
    entry.abandon(new AbandonedError(entry.what, waitingFor));
  }
  if (exitCodeOnAbandon !== undefined) process.exitCode = exitCodeOnAbandon;
}
