/** Waiting and UTC date-time text, used by the client, the sandbox, the dashboard and the CLI. */

/** Resolve after `ms`, or reject early (with the signal's reason) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Milliseconds since the epoch as this process started, then on the monotonic clock: for waits,
 * pacing and windows inside one process, which a step of the wall clock (NTP, a VM resumed) must
 * not stretch — a queue that booked its next start on `Date.now()` waited out a whole backward step
 * (found by the simulation's clock steps). Never for stamps another process or a person reads.
 */
export function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}

/** 'YYYY-MM-DD HH:MM:SS' of a Date in UTC (the shop's date-time text; the dashboard and CLI add a zone suffix). */
export function formatDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

let isoMs = Number.NaN;
let isoText = '';

/** The current time as ISO text, made once per millisecond: per-record stamps of a batch cost one Date and one text each otherwise. */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}
