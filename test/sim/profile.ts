/**
 * An exploration: fast-check draws `runs` histories of up to `steps` commands from a seed, runs
 * each (test/sim/history.ts), and on the first failure shrinks it to the smallest history that
 * still fails. One sandbox serves every history of the process (emptied between them). A saved
 * history (a regression file) is replayed command by command, without the generator.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { commandArbitrary, commandOf, SHORT_WEIGHTS, type SimCommand, type Weights } from './commands/index.js';
import { emptyCoverage, type Coverage } from './model.js';
import { HistoryFailure, runHistory, type HistoryResult } from './history.js';
import type { Args } from './commands/base.js';

export const REGRESSIONS = resolve(import.meta.dirname, 'regressions');

/** What an exploration is asked to do. */
export interface ExploreOptions {
  readonly runs: number;
  readonly steps: number;
  readonly seed: number;
  readonly state: 'sqlite' | 'postgres';
  readonly weights?: Weights;
  /** The products source's lookback (a mutation sets 0). */
  readonly lookback?: string;
  /** Stop drawing new histories (and shrinking) after this long. */
  readonly timeLimitMs?: number;
  /** Stop shrinking after this long: the smallest failing history so far is the answer. @default 600000 */
  readonly shrinkLimitMs?: number;
  /** Called after every history the generator drew (not the shrinking's). */
  readonly onHistory?: (index: number, result: HistoryResult | HistoryFailure) => void;
}

/** A failure, shrunk, as a regression file keeps it. */
export interface SavedFailure {
  readonly invariant: string;
  readonly message: string;
  readonly seed: number;
  /** fast-check's path to the shrunk counterexample: `fc.assert(…, { seed, path })` with the same runs, steps and weights replays it. */
  readonly path: string;
  readonly steps: number;
  readonly state: 'sqlite' | 'postgres';
  readonly lookback?: string;
  readonly mutation?: string;
  /** The shrunk history, command by command: what `--replay` and `npm test` run. */
  readonly history: readonly { command: string; args: Args }[];
  /** What each step of the shrunk history did. */
  readonly log: readonly string[];
}

/** The outcome of an exploration. */
export interface ExploreResult {
  readonly seed: number;
  readonly histories: number;
  readonly coverage: Coverage;
  readonly elapsedMs: number;
  readonly interrupted: boolean;
  readonly failure?: SavedFailure;
  /** Histories run while shrinking. */
  readonly shrinkRuns: number;
}

/** Add one history's coverage to a sum. */
export function addCoverage(sum: Coverage, c: Coverage): void {
  for (const k of Object.keys(sum) as (keyof Coverage)[]) sum[k] += c[k];
}

/** Explore from a seed; the first failure is shrunk and returned, not thrown. */
export async function explore(o: ExploreOptions, sandbox?: SandboxHandle): Promise<ExploreResult> {
  const shop = sandbox ?? (await startSandbox({ seed: 'empty', dbPath: ':memory:' }));
  const started = performance.now();
  const coverage = emptyCoverage();
  let drawn = 0;
  let shrinking = false;
  let shrinkRuns = 0;
  let shrinkStarted = 0;
  const shrinkLimitMs = o.shrinkLimitMs ?? 600_000;
  let last: HistoryFailure | undefined;
  const property = fc.asyncProperty(fc.commands([commandArbitrary(o.weights ?? SHORT_WEIGHTS)], { maxCommands: o.steps, size: 'max' }), async (cmds) => {
    // Out of shrinking time: every further candidate counts as passing, so fast-check settles on the smallest failure so far.
    if (shrinking && performance.now() - shrinkStarted > shrinkLimitMs) return;
    if (shrinking) shrinkRuns++;
    try {
      const result = await runHistory(cmds, { sandbox: shop, state: o.state, ...(o.lookback !== undefined ? { lookback: o.lookback } : {}) });
      if (!shrinking) {
        addCoverage(coverage, result.coverage);
        o.onHistory?.(drawn, result);
        drawn++;
      }
    } catch (err) {
      if (!(err instanceof HistoryFailure)) throw err;
      if (!shrinking) {
        addCoverage(coverage, err.result.coverage);
        o.onHistory?.(drawn, err);
        drawn++;
      }
      if (!shrinking) shrinkStarted = performance.now();
      shrinking = true;
      last = err;
      throw err;
    }
  });
  try {
    const details = await fc.check(property, { seed: o.seed, numRuns: o.runs, ...(o.timeLimitMs ? { interruptAfterTimeLimit: o.timeLimitMs } : {}) });
    if (details.failed && !last) throw new Error(`the exploration failed outside a history: ${details.errorInstance instanceof Error ? details.errorInstance.stack : String(details.errorInstance)}`);
    const failure: SavedFailure | undefined =
      details.failed && last
        ? {
            invariant: last.invariant,
            message: last.message,
            seed: details.seed,
            path: details.counterexamplePath ?? '',
            steps: o.steps,
            state: o.state,
            ...(o.lookback !== undefined ? { lookback: o.lookback } : {}),
            ...(process.env.SIM_MUTATION ? { mutation: process.env.SIM_MUTATION } : {}),
            history: last.result.executed as SavedFailure['history'],
            log: last.result.log,
          }
        : undefined;
    return { seed: details.seed, histories: drawn, coverage, elapsedMs: performance.now() - started, interrupted: details.interrupted, shrinkRuns, ...(failure ? { failure } : {}) };
  } finally {
    if (!sandbox) await shop.close();
  }
}

/** Keep a failure under test/sim/regressions/<date>-<seed>.json; returns the file. */
export function saveRegression(f: SavedFailure, folder = REGRESSIONS): string {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${f.mutation ? `${f.mutation}-` : ''}${new Date(performance.timeOrigin + performance.now()).toISOString().slice(0, 10)}-${f.seed}.json`);
  writeFileSync(file, `${JSON.stringify(f, null, 2)}\n`);
  return file;
}

/** Every kept regression file. */
export function regressionFiles(folder = REGRESSIONS): string[] {
  try {
    return readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => join(folder, f));
  } catch {
    return [];
  }
}

/** The kept failure in a regression file. */
export function readRegression(file: string): SavedFailure {
  return JSON.parse(readFileSync(file, 'utf8')) as SavedFailure;
}

/** Replay a saved history command by command, every invariant on; resolves with its result, rejects with a HistoryFailure. */
export async function replay(file: string, sandbox: SandboxHandle, state?: 'sqlite' | 'postgres'): Promise<HistoryResult> {
  const saved = readRegression(file);
  const commands: SimCommand[] = saved.history.map(commandOf);
  return runHistory(commands, { sandbox, state: state ?? saved.state, checkKnownBroken: true, ...(saved.lookback !== undefined ? { lookback: saved.lookback } : {}) });
}
