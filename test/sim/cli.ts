/**
 * `npm run sim -- [--runs N] [--steps M] [--seed S] [--state postgres] [--minutes T] [--shrink-minutes T] [--short]`
 * explores; `npm run sim -- --replay <file>` replays a saved history; `--mutation <name>` runs the
 * same in a temporary copy of the repository with test/sim/mutations/<name>.patch applied (see
 * test/sim/mutate.ts). Prints the seed, the coverage and, on a failure, the shrunk history, which
 * it keeps under test/sim/regressions/ (a mutation's under test/sim/mutations/found/).
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.js';
import { LONG_WEIGHTS, SHORT_WEIGHTS } from './commands/index.js';
import { HistoryFailure } from './history.js';
import { runMutation } from './mutate.js';
import { explore, replay, saveRegression, REGRESSIONS, type ExploreResult } from './profile.js';
import { ensureDist } from './dist.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    steps: { type: 'string', default: '40' },
    seed: { type: 'string' },
    state: { type: 'string', default: 'sqlite' },
    minutes: { type: 'string' },
    'shrink-minutes': { type: 'string', default: '10' },
    replay: { type: 'string' },
    mutation: { type: 'string' },
    short: { type: 'boolean', default: false },
    'no-save': { type: 'boolean', default: false },
  },
  allowPositionals: false,
});

function coverageLine(r: ExploreResult): string {
  const c = r.coverage;
  return [
    `histories ${r.histories}, steps ${c.steps} (${c.faultSteps} under faults), runs ${c.runs} in-process + ${c.cliRuns} CLI (${c.failedRuns} failed, as faults allow)`,
    `kills ${c.kills}, 429s ${c.rateLimited}, network failures (resets and lost answers) ${c.networkFailures}, late commits ${c.lateCommits}, skewed writes ${c.skewedWrites}`,
    `infrastructure faults armed ${c.infraFaults} (${c.infraFailures} statements failed by them), clock steps ${c.clockSteps}, frozen CLI processes ${c.freezes}, state server restarts ${c.stateRestarts}`,
    `file drops ${c.fileDrops} (${c.redeliveries} again under a name picked up before), bad rows ${c.badRows}, shop edits ${c.shopEdits}, shop orders ${c.shopOrders} (${c.refusedOrders} the import table refuses), dlq retries ${c.retries}, repairs ${c.reconciles}, mapping changes ${c.mappingChanges}`,
    `orders that booked stock ${c.bookingOrders} (${c.soldOut} refused: sold out), booked later by the ERP ${c.erpBookings}`,
    `after checkout (issue 44): shop statuses ${c.shopStatusChanges}, cancellations ${c.cancellations}, tracking entries ${c.trackingEntries}, returns ${c.returnEntries}, address changes ${c.addressChanges}, late orders ${c.backdatedOrders}; change rows the ERP got ${c.changeRows}`,
  ].join('\n  ');
}

async function main(): Promise<number> {
  if (values.mutation) return runMutation(values.mutation, process.argv.slice(2));
  await ensureDist();
  const state = values.state === 'postgres' ? 'postgres' : 'sqlite';
  if (values.replay) {
    const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    try {
      const r = await replay(values.replay, sandbox, values.state === 'postgres' ? 'postgres' : undefined);
      console.log(`replayed ${values.replay}: every invariant held\n${r.log.join('\n')}`);
      return 0;
    } catch (err) {
      if (!(err instanceof HistoryFailure)) throw err;
      console.log(`replayed ${values.replay}: ${err.invariant} broke\n${err.message}\n\nhistory:\n${err.result.log.join('\n')}`);
      return 1;
    } finally {
      await sandbox.close();
    }
  }
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
  const runs = Number(values.runs);
  const steps = Number(values.steps);
  console.log(`sim: seed ${seed}, ${runs} histories of up to ${steps} steps, state ${state}${process.env.SIM_MUTATION ? `, mutation ${process.env.SIM_MUTATION}` : ''}`);
  const started = performance.now();
  const result = await explore({
    runs,
    steps,
    seed,
    state,
    weights: values.short ? SHORT_WEIGHTS : LONG_WEIGHTS,
    ...(process.env.SIM_LOOKBACK !== undefined ? { lookback: process.env.SIM_LOOKBACK } : {}),
    ...(values.minutes ? { timeLimitMs: Number(values.minutes) * 60_000 } : {}),
    shrinkLimitMs: Number(values['shrink-minutes']) * 60_000,
    onHistory: (i, r) => {
      if (process.env.SIM_LOG) console.log((r instanceof HistoryFailure ? r.result : r).log.join('\n'));
      if ((i + 1) % 10 === 0 || r instanceof HistoryFailure) {
        const c = r instanceof HistoryFailure ? r.result.coverage : r.coverage;
        console.log(`  history ${i + 1}: ${c.steps} steps${r instanceof HistoryFailure ? `, FAILED (${r.invariant}); shrinking` : ''} [${Math.round((performance.now() - started) / 1000)} s]`);
      }
    },
  });
  console.log(`\nsim: seed ${result.seed}, ${Math.round(result.elapsedMs / 1000)} s${result.interrupted ? ' (time limit reached)' : ''}\n  ${coverageLine(result)}`);
  if (!result.failure) {
    console.log('  0 failures');
    return 0;
  }
  const f = result.failure;
  console.log(`\nFAILED: ${f.invariant} (shrunk in ${result.shrinkRuns} runs)\n${f.message}\n\nseed ${f.seed}, path "${f.path}"\nshrunk history (${f.history.length} commands):\n${f.log.join('\n')}`);
  if (!values['no-save']) {
    const folder = process.env.SIM_MUTATION ? join(import.meta.dirname, 'mutations', 'found') : REGRESSIONS;
    console.log(`\nkept as ${saveRegression(f, folder)}; replay: npm run sim -- --replay <that file>`);
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
