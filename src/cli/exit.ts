/** Exit codes scripts can rely on, and how errors map to them. */
import { AbandonedError, AbortedError, ConfigError, MappingError, StateError, SyncError } from '../errors.js';

/** The documented exit codes. */
export const EXIT = {
  /** Everything worked. */
  ok: 0,
  /** A run failed, or finished with failed or dead-lettered records. */
  failed: 1,
  /** Bad command line, invalid config, or a state the config points at that cannot be opened (unreachable, refused login, newer schema). */
  usage: 2,
  /** Another process holds the pipeline's lock (daemon or another CLI run). */
  locked: 3,
  /** Stopped by SIGINT/SIGTERM before finishing; state is consistent and a rerun continues. */
  interrupted: 4,
  /**
   * The process had nothing left to wait on while a run (or the command) was still open: the run
   * is closed as failed with RUN_ABANDONED instead of the process ending quietly with 0. A bug in
   * shopsync or a connector; state is consistent and a rerun continues from the last checkpoint.
   */
  abandoned: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** State errors that mean the setup is wrong, not a run: nothing ran, the config or the environment needs fixing. */
const STARTUP_CODES = new Set(['UNKNOWN_PIPELINE', 'UNKNOWN_SHOP', 'STATE_UNREACHABLE', 'STATE_AUTH_FAILED', 'STATE_SCHEMA_INVALID', 'STATE_TOO_NEW']);

/** The exit code for an error that ended a command. */
export function exitCodeFor(err: unknown): ExitCode {
  // An invalid mapping file is configuration too; per-record mapping failures never reach here.
  if (err instanceof ConfigError || err instanceof MappingError) return EXIT.usage;
  if (err instanceof StateError && STARTUP_CODES.has(err.code)) return EXIT.usage;
  if (err instanceof AbortedError) return EXIT.interrupted;
  if (err instanceof AbandonedError) return EXIT.abandoned;
  if (err instanceof StateError && (err.code === 'LOCK_HELD' || err.code === 'LOCKED')) return EXIT.locked;
  if (err instanceof SyncError && err.code === 'USAGE') return EXIT.usage;
  return EXIT.failed;
}

/** A usage error raised by a command after commander accepted the arguments. */
export class UsageError extends SyncError {
  constructor(message: string) {
    super('USAGE', message);
  }
}
