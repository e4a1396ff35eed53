/**
 * The simulation's short profile inside `npm test`: a fixed seed, so every run draws the same
 * histories, and every regression history ever kept under test/sim/regressions/, replayed command
 * by command. Long explorations are `npm run sim` (docs/development.md, "Simulation").
 */
import { basename } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/support.js';
import { useSandbox } from '../support/sandbox.js';
import { requireService } from '../support/services.js';
import { SHORT_WEIGHTS } from './commands/index.js';
import { restoreWallClock } from './clock.js';
import { HistoryFailure } from './history.js';
import { KNOWN_BROKEN } from './invariants.js';
import { explore, readRegression, regressionFiles, replay } from './profile.js';

/** Sized to stay well under 90 s on the shared 2-vCPU machine (measured figures in docs/development.md). */
export const SHORT_PROFILE = { runs: 24, steps: 40, seed: 30 } as const;

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
// The histories move this process's Date days ahead (time passes, NTP steps it); the next file in this worker must not inherit that.
afterAll(restoreWallClock);
// Histories kept on a PostgreSQL state (a state server restart) need the machine's PostgreSQL.
const postgres = await requireService('postgres');

describe('the simulation, short profile', () => {
  it(`holds every invariant over ${SHORT_PROFILE.runs} histories of up to ${SHORT_PROFILE.steps} steps from seed ${SHORT_PROFILE.seed}`, { timeout: 240_000 }, async () => {
    const result = await explore({ ...SHORT_PROFILE, state: 'sqlite', weights: SHORT_WEIGHTS, shrinkLimitMs: 60_000 }, sandbox);
    const f = result.failure;
    expect(f, f ? `${f.message}\n\nseed ${f.seed}, path "${f.path}"; shrunk history:\n${f.log.join('\n')}\n\nkeep it: npm run sim -- --runs ${SHORT_PROFILE.runs} --steps ${SHORT_PROFILE.steps} --seed ${SHORT_PROFILE.seed} --short` : '').toBeUndefined();
    expect(result.histories).toBe(SHORT_PROFILE.runs);
  });

  // A history that breaks a promise the product is known to break (a bug reported, not yet fixed) is an expected failure until the fix.
  for (const file of regressionFiles()) {
    const saved = readRegression(file);
    const known = KNOWN_BROKEN[saved.invariant];
    (known ? it.fails : it)(`replays the kept history ${basename(file)}${known ? ` (still broken: ${known})` : ''}`, { timeout: 120_000 }, async (ctx) => {
      if (saved.state === 'postgres' && !postgres.available) return ctx.skip();
      try {
        await replay(file, sandbox);
      } catch (err) {
        if (!(err instanceof HistoryFailure)) throw err;
        expect.fail(`${err.message}\n\nhistory:\n${err.result.log.join('\n')}`);
      }
    });
  }
});
