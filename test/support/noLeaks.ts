/**
 * vitest `setupFiles` entry: a test file leaves the worker process as it found it. `npm test` runs
 * most files one after another in shared worker processes (vitest.config.ts: `isolate: false`, which
 * halves the suite's CPU), so whatever a file leaves behind in the process (a patched `fetch`, fake
 * timers, a changed environment variable or working folder, a signal handler) would make some *other*
 * file fail, and which one depends on how files happen to be spread over the workers. Instead the file
 * that leaves it fails, every time, saying what it left. A file that must change the process (nock
 * patches `fetch` for good) runs in a process of its own: the `alone` project of vitest.config.ts.
 */
import { afterAll, vi } from 'vitest';

const PRISTINE = Symbol.for('shopsync.test.pristine');

/** What a file must give back. */
interface Pristine {
  readonly fetch: typeof globalThis.fetch;
  readonly Date: DateConstructor;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly listeners: Readonly<Record<string, number>>;
}

// Not 'exit' or 'beforeExit': vitest's worker adds its own there while it runs a file.
const EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'uncaughtException', 'unhandledRejection'] as const;

const snapshot = (): Pristine => ({
  fetch: globalThis.fetch,
  Date: globalThis.Date,
  env: { ...process.env },
  cwd: process.cwd(),
  listeners: Object.fromEntries(EVENTS.map((e) => [e, process.listenerCount(e)])),
});

const holder = globalThis as { [PRISTINE]?: Pristine };
// Taken once per worker process, before its first file: setup files run again before every file.
holder[PRISTINE] ??= snapshot();
const shared = process.env.SHOPSYNC_TEST_ALONE !== '1';

afterAll(() => {
  if (!shared) return;
  const before = holder[PRISTINE]!;
  const now = snapshot();
  const left: string[] = [];
  if (now.fetch !== before.fetch) left.push('globalThis.fetch is patched (nock/msw?): give the file a process of its own (`alone` in vitest.config.ts)');
  if (vi.isFakeTimers()) left.push('fake timers are still on: call vi.useRealTimers() in afterEach/afterAll');
  // A stepped wall clock (test/sim/clock.ts) replaces the global Date: the next file would read a clock days off.
  if (now.Date !== before.Date) left.push('the global Date is replaced (a stepped clock?): put the real one back in afterAll (test/sim/clock.ts restoreWallClock)');
  if (now.cwd !== before.cwd) left.push(`the working folder changed to ${now.cwd}: process.chdir back in afterAll`);
  for (const key of new Set([...Object.keys(before.env), ...Object.keys(now.env)])) {
    // vitest's own (VITEST_WORKER_ID is new for every file).
    if (key.startsWith('VITEST') || key === 'TEST') continue;
    if (before.env[key] !== now.env[key]) left.push(`process.env.${key} changed (${before.env[key] === undefined ? 'set' : now.env[key] === undefined ? 'deleted' : 'changed'}): restore it in afterAll, or pass an env to what needs it`);
  }
  for (const e of EVENTS) if (now.listeners[e]! > before.listeners[e]!) left.push(`${now.listeners[e]! - before.listeners[e]!} process '${e}' listener(s) left: remove them when the file is done`);
  // Put things back, so one leaking file fails alone instead of every file after it.
  globalThis.fetch = before.fetch;
  vi.useRealTimers();
  globalThis.Date = before.Date;
  for (const key of Object.keys(process.env)) if (!(key in before.env) && !key.startsWith('VITEST')) delete process.env[key];
  for (const [key, value] of Object.entries(before.env)) if (!key.startsWith('VITEST') && value !== undefined) process.env[key] = value;
  if (now.cwd !== before.cwd) process.chdir(before.cwd);
  if (left.length > 0) throw new Error(`this file left the shared test process changed, which would fail another file run after it in the same worker:\n- ${left.join('\n- ')}`);
});
