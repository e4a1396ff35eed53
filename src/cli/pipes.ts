/**
 * A reader that goes away: `shopsync status | head -1`. Node ignores SIGPIPE and reports the
 * closed pipe as an EPIPE 'error' on the next write, which, unhandled, killed the command with a
 * stack trace and exit code 1 in the middle of whatever it was doing.
 *
 * The rule (docs/cli.md#pipes): a closed stdout or stderr never changes what a command does. It
 * goes on to its end as it would have, only its output is dropped, and it exits with its own
 * code. Nothing that reads or writes is stopped half-way: a sync that was writing to the shop
 * finishes and records its run (see `shopsync status`), a daemon keeps running until it is
 * stopped. A command that only prints is short, so finishing it costs little, and its exit code
 * (`mappings check`: were all files valid?) is only known at its end.
 */

const guarded = new WeakSet<object>();

/** Whether an error is a write to a pipe (or socket) whose reader has gone. */
function readerGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/**
 * Let writes to `stream` fail quietly once its reader has gone. Any other write error is thrown
 * as before (an uncaught exception: a disk that is full is not a closed pipe). Idempotent per
 * stream, so in-process callers of `main` add one listener, not one per call.
 */
export function survivePipeClose(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream) || typeof (stream as Partial<NodeJS.EventEmitter>).on !== 'function') return;
  guarded.add(stream);
  stream.on('error', (err: unknown) => {
    if (readerGone(err)) return;
    // Re-thrown where nothing catches it, exactly as the unhandled 'error' event would have been.
    process.nextTick(() => {
      throw err;
    });
  });
}
