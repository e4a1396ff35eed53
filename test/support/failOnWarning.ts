/**
 * vitest `setupFiles` entry: a runtime warning emitted in a test worker fails the test that was
 * running (or the file, when it came between tests), with the warning's stack so the cause can be
 * found. Allowed warnings: ./warnings.ts.
 */
import { afterAll, afterEach } from 'vitest';
import { allowedWarning } from './warnings.js';

const LISTENING = Symbol.for('shopsync.test.failOnWarning');
const seen: Error[] = [];
const holder = globalThis as { [LISTENING]?: Error[] };
// One listener per worker process, whatever the isolation: setup files run again for every file.
if (!holder[LISTENING]) {
  holder[LISTENING] = seen;
  process.on('warning', (w: Error & { code?: string }) => {
    if (!allowedWarning({ name: w.name, code: w.code, message: w.message })) holder[LISTENING]!.push(w);
  });
}

function failOnWarnings(when: string): void {
  const list = holder[LISTENING]!.splice(0);
  if (list.length === 0) return;
  const shown = list.map((w) => `${w.name}${(w as { code?: string }).code ? ` [${(w as { code?: string }).code}]` : ''}: ${w.message}\n${w.stack?.split('\n').slice(1, 12).join('\n') ?? ''}`);
  throw new Error(`${list.length} runtime warning(s) ${when}; fix the cause (or, for a dependency we cannot change, allow it in test/support/warnings.ts with the reason):\n${shown.join('\n\n')}`);
}

// A warning is emitted on the next tick: give it one before judging the test.
afterEach(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  failOnWarnings('during this test');
});
afterAll(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  failOnWarnings('in this file outside its tests');
});
