/**
 * Runtime warnings are test failures (issue 31 item 7): a DeprecationWarning today is an error in
 * the next major of the library that emits it (pg 9 refuses overlapping queries on one client; pg 8
 * only warns), and a MaxListenersExceededWarning is a leak. The listener lives in the test worker
 * (vitest.config.ts `setupFiles`, see ./failOnWarning.ts); CLI processes the tests spawn are held
 * to the same rule by test/cli/support.ts, which reads their stderr.
 */

/** A warning from code we cannot change, and why it is allowed. */
export interface AllowedWarning {
  /** `DeprecationWarning`, `ExperimentalWarning`… */
  readonly name: string;
  /** Node's code (`DEP0040`), when the warning has one. */
  readonly code?: string;
  readonly message: RegExp;
  readonly why: string;
}

/**
 * Keep this list short: an entry is a warning a dependency emits however we call it. Anything our
 * own code causes (through a library, too) is fixed instead.
 */
export const ALLOWED_WARNINGS: readonly AllowedWarning[] = [];

/** The allow-list entry a warning matches, if any. */
export function allowedWarning(w: { name: string; code?: string; message: string }): AllowedWarning | undefined {
  return ALLOWED_WARNINGS.find((a) => a.name === w.name && (a.code === undefined || a.code === w.code) && a.message.test(w.message));
}

/** Node's stderr line for a warning: `(node:123) [DEP0040] DeprecationWarning: The punycode module…`. */
const NODE_WARNING = /^\(node:\d+\) (?:\[(\w+)\] )?(\w*Warning): (.*)$/gm;

/** The warnings Node printed to a child process's stderr that the allow-list does not cover. */
export function warningsIn(stderr: string): string[] {
  const out: string[] = [];
  for (const m of stderr.matchAll(NODE_WARNING)) {
    const [line, code, name, message] = m as unknown as [string, string | undefined, string, string];
    if (!allowedWarning({ name, code, message })) out.push(line);
  }
  return out;
}
