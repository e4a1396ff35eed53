/** SIGINT/SIGTERM handling for long-running commands. */

/** A pending stop request: `stopped` resolves with the signal; `dispose` removes the handlers. */
export interface StopSignal {
  readonly stopped: Promise<NodeJS.Signals>;
  /** Aborted on the first signal (hand to runs so they checkpoint). */
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Listen for SIGINT and SIGTERM. The first one asks for a clean stop; a second one while
 * stopping exits at once with 130 — the user insisted, and state stays consistent because
 * every write is transactional.
 */
export function onStopSignal(onSecond: () => void = () => process.exit(130)): StopSignal {
  const controller = new AbortController();
  let resolve!: (s: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handler = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      onSecond();
      return;
    }
    controller.abort();
    resolve(sig);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stopped,
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
